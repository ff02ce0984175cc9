#pragma once
// What a backend tells about its tensors' memory when asked to: every tensor's allocation and
// the moment its memory is released. `ampscope train --profile` hands these to the collector;
// the trainer itself knows nothing of who listens (nothing is reported when no one does).

#include <cstdint>

#include "trainer/tensor/tensor.h"

namespace ampscope::trainer {

struct AllocationEvent {
  // > 0: a tensor was allocated; < 0: its memory was released. The bytes the tensor takes in its
  // dtype as the GPU stores it (FP16/BF16 2 per element, FP32 4), on the CPU backend too, whose
  // emulation holds every dtype as a float: what a GPU run of the same model would allocate.
  std::int64_t bytes = 0;
  std::uintptr_t address = 0;  // the tensor's block
  DeviceKind device = DeviceKind::kCpu;
  int device_index = 0;  // the CUDA ordinal; 0 for the host
  // Just after this event, in the same bytes: the live tensors' sum, and that plus what the
  // backend keeps for reuse (the CPU tensor pool's cached blocks, the CUDA backend's scratch and
  // workspace). Counts only tensors allocated while an observer was set.
  std::int64_t total_allocated_bytes = 0;
  std::int64_t total_reserved_bytes = 0;
};

class AllocationObserver {
 public:
  virtual ~AllocationObserver() = default;
  // Called on the thread that allocated or released, at that moment (a release may happen on any
  // thread that drops a tensor's last reference), one call at a time, in the order of the totals.
  // It must not allocate tensors. An exception it throws is dropped, the report with it.
  virtual void allocationEvent(const AllocationEvent& event) = 0;
};

}  // namespace ampscope::trainer
