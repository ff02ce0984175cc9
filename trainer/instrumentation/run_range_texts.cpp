#include "trainer/instrumentation/run_range_texts.h"

#include <fmt/format.h>

namespace ampscope::trainer {

const char* runPhaseRangeText(RunPhase phase) {
  switch (phase) {
    case RunPhase::kData: return "data";
    case RunPhase::kForward: return "forward";
    case RunPhase::kBackward: return "backward";
    case RunPhase::kLossScale: return "loss_scale";
    case RunPhase::kOptimizer: return "optimizer";
    case RunPhase::kEvaluate: return "evaluate";
  }
  return "";
}

std::string stepRangeText(std::int64_t step) { return fmt::format("step {}", step); }

std::string dataWorkRangeText(std::string_view what, std::int64_t batch) { return fmt::format("{} {}", what, batch); }

}  // namespace ampscope::trainer
