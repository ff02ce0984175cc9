#pragma once
// Where a training run is, for the message of a failure: the layer op under way ("fc1 linear
// forward") or, between layers, the phase ("loss", "optimizer"). It watches the model's walk as a
// LayerObserver and passes each call on to the instrumentation (the NVTX ranges) when there is
// one. A layer whose forward or backward throws never reaches endLayer, so it is still named when
// the run catches the exception; that costs a pointer store per layer, nothing per backend op.

#include <string>

#include "trainer/model/model.h"

namespace ampscope::trainer {

class OpTracker final : public LayerObserver {
 public:
  // Layer calls go on to next as well (nullptr: nowhere).
  void forwardTo(LayerObserver* next) { next_ = next; }
  // Work outside the layers from now on; text is a phase name with static storage.
  void enterPhase(const char* phase) {
    phase_ = phase;
    layer_ = nullptr;
  }

  void beginLayer(Layer& layer, Pass pass, const Shape& input_shape, DType input_dtype) override;
  void endLayer(Layer& layer, Pass pass) override;

  // "fc1 linear forward", else the phase; empty when neither is known.
  std::string describe() const;

 private:
  LayerObserver* next_ = nullptr;
  const char* phase_ = "";
  const Layer* layer_ = nullptr;  // begun and not ended
  Pass pass_ = Pass::kForward;
};

}  // namespace ampscope::trainer
