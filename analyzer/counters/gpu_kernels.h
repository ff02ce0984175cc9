#pragma once
// Which kernels of a trace ran on a GPU: the counters measure GPUs, and a trace's host devices
// (the trainer's CPU backend records its ops as kernels of a kCpu device) are left out of every
// figure they give.

#include <cstdint>
#include <set>

#include "trace/trace_model.h"

namespace ampscope::analyzer {

class GpuKernels {
 public:
  explicit GpuKernels(const trace::Trace& trace) {
    for (const trace::Device& device : trace.devices) {
      if (device.kind == trace::DeviceKind::kCpu) host_devices_.insert(device.id);
    }
  }
  bool onGpu(const trace::Kernel& kernel) const { return host_devices_.count(kernel.device) == 0; }

 private:
  std::set<std::uint32_t> host_devices_;
};

}  // namespace ampscope::analyzer
