#pragma once
// The texts of the trainer's NVTX ranges, in the format of docs/trainer_ranges.md: the training
// loop's own (steps, phases, evaluation, data work) and one per layer op and pass. ampscope reads a
// run's profile by these texts, so they are written here only.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "trainer/instrumentation/range_marker.h"
#include "trainer/model/model.h"

namespace ampscope::trainer {

// The texts of the training loop's own ranges (docs/trainer_ranges.md): each step ("step 12"), the
// phases inside it ("data", "forward", ...), the evaluation after training and the data
// pipeline's batches ("batch 3"). ampscope reads a run's profile by these texts
// (analyzer/normalise/phase_rules.cpp, analyzer/normalise/trainer_range_text.cpp), so they are written here only.
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

// One NVTX range per layer op and pass, whose text carries the layer, the op, the pass, the
// shapes of input, parameters and output, the dtype it computes in, and the GEMM (M,N,K) or
// convolution parameters: the format of docs/trainer_ranges.md. Texts are built and registered
// once per layer, pass and input shape.

// The text of a layer's range; see docs/trainer_ranges.md.
std::string layerRangeText(Layer& layer, Pass pass, const Shape& input_shape, DType compute);

class LayerRanges final : public LayerObserver {
 public:
  LayerRanges(const AutocastPolicy& policy, DType autocast) : policy_(policy), autocast_(autocast) {}

  // The text of layer's range in this pass for an input of this shape and dtype, in the dtype
  // autocast computes the layer's op in: what beginLayer registers and pushes.
  std::string text(Layer& layer, Pass pass, const Shape& input_shape, DType input_dtype) const;

  void beginLayer(Layer& layer, Pass pass, const Shape& input_shape, DType input_dtype) override;
  void endLayer(Layer& layer, Pass pass) override;

 private:
  struct Cached {
    bool built = false;
    Shape input_shape;
    DType input_dtype = DType::kFp32;
    RangeMarker::Handle handle = nullptr;
  };
  const AutocastPolicy& policy_;
  DType autocast_;
  std::unordered_map<const Layer*, std::array<Cached, 2>> cache_;  // forward, backward
};

}  // namespace ampscope::trainer
