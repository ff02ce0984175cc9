#pragma once
// One NVTX range per layer op and pass, whose text carries the layer, the op, the pass, the
// shapes of input, parameters and output, the dtype it computes in, and the GEMM (M,N,K) or
// convolution parameters: the format of docs/trainer_ranges.md. Texts are built and registered
// once per layer, pass and input shape.

#include <array>
#include <string>
#include <unordered_map>

#include "trainer/instrumentation/range_marker.h"
#include "trainer/model/model.h"

namespace ampscope::trainer {

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
