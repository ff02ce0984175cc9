#pragma once
// A Backend that passes every op on and counts what the training step asks of the device, by the
// phase the run is in: launches (kernels, copies and library calls queued; a multi-tensor op as
// the launches of its plan) and host reads (each time the host waits for the device to hand back
// what it computed). `train --json` reports them per step; the tests hold the steady step to no
// host read and to as many optimizer launches for 2 parameter tensors as for 8.
//
// A cuBLAS or cuDNN call counts as one launch, whatever kernels the library runs inside it.

#include <array>
#include <cstdint>

#include "trainer/backend/backend_decorator.h"
#include "trainer/instrumentation/run_range_texts.h"

namespace ampscope::trainer {

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
  const DeviceDemand& counted() const { return counted_; }

 private:
  void arrive(BackendOp op, std::int64_t launches) override;

  RunPhase phase_ = RunPhase::kData;
  DeviceDemand counted_;
};

}  // namespace ampscope::trainer
