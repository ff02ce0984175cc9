#pragma once
// What a training run keeps beside its step (trainer/engine/training_run.cpp): the count of what
// each step asks of the device, where the run is for the message of a failure, and the backend
// the run chose (--device).

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "trainer/backend/backend.h"
#include "trainer/backend/backend_decorator.h"
#include "trainer/instrumentation/trainer_ranges.h"
#include "trainer/model/model.h"

namespace ampscope::trainer {

// A Backend that passes every op on and counts what the training step asks of the device, by the
// phase the run is in: launches (kernels, copies and library calls queued; a multi-tensor op as
// the launches of its plan) and host reads (each time the host waits for the device to hand back
// what it computed). `train --json` reports them per step; the tests hold the steady step to no
// host read and to as many optimizer launches for 2 parameter tensors as for 8.
//
// A cuBLAS or cuDNN call counts as one launch, whatever kernels the library runs inside it.
struct DeviceDemand {
  std::array<std::int64_t, kRunPhases.size()> launches{};  // by RunPhase
  std::int64_t host_reads = 0;

  std::int64_t totalLaunches() const;
  DeviceDemand operator-(const DeviceDemand& earlier) const;
};

class CountingBackend final : public BackendDecorator {
 public:
  explicit CountingBackend(Backend& inner) : BackendDecorator(inner) {}

  // The phase the ops that follow belong to.
  void setPhase(RunPhase phase) { phase_ = phase; }
  // A captured step replayed: one launch, in the phase the run is in.
  void noteGraphLaunch() { ++counted_.launches[static_cast<std::size_t>(phase_)]; }
  const DeviceDemand& counted() const { return counted_; }

 private:
  void arrive(BackendOp op, std::int64_t launches) override;

  RunPhase phase_ = RunPhase::kData;
  DeviceDemand counted_;
};

// Where a training run is, for the message of a failure: the layer op under way ("fc1 linear
// forward") or, between layers, the phase ("loss", "optimizer"). It watches the model's walk as a
// LayerObserver and passes each call on to the instrumentation (the NVTX ranges) when there is
// one. A layer whose forward or backward throws never reaches endLayer, so it is still named when
// the run catches the exception; that costs a pointer store per layer, nothing per backend op.
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

// --device auto|cpu|cuda: the backend a run uses, and what to tell the user about the choice.
struct SelectedBackend {
  std::unique_ptr<Backend> backend;
  std::string note;  // "using the CPU: no GPU: ..."; empty when nothing needs saying
};

// "cuda" fails with the reason when there is no usable GPU or the build has no CUDA backend;
// "auto" falls back to the CPU and says why.
Result<SelectedBackend> selectBackend(std::string_view device);

}  // namespace ampscope::trainer
