#pragma once
// The texts of the training loop's own ranges (docs/trainer_ranges.md): each step ("step 12"), the
// phases inside it ("data", "forward", ...), the evaluation after training and the data
// pipeline's batches ("batch 3"). ampscope reads a run's profile by these texts
// (analyzer/normalise/phase_rules.cpp, analyzer/normalise/trainer_range_text.cpp), so they are written here only.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace ampscope::trainer {

enum class RunPhase { kData, kForward, kBackward, kLossScale, kOptimizer, kEvaluate };
inline constexpr std::array<RunPhase, 6> kRunPhases = {RunPhase::kData,      RunPhase::kForward,
                                                       RunPhase::kBackward,  RunPhase::kLossScale,
                                                       RunPhase::kOptimizer, RunPhase::kEvaluate};

// "data", "forward", "backward", "loss_scale", "optimizer", "evaluate".
const char* runPhaseRangeText(RunPhase phase);
// "step 12": steps count from 0 over the whole run.
std::string stepRangeText(std::int64_t step);
// "batch 3": the data pipeline's work on one batch (what: trainer/data's kBatchWork).
std::string dataWorkRangeText(std::string_view what, std::int64_t batch);

}  // namespace ampscope::trainer
