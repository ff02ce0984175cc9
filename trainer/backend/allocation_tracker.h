#pragma once
// A backend's side of AllocationObserver: wraps the memory of each tensor allocated while an
// observer is set, so that its release is reported too, and keeps the totals. Shared with those
// tensors' deleters, so a tensor may outlive the backend that made it. With no observer set a
// backend pays one atomic load per allocation and its tensors are not wrapped.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "trainer/backend/allocation_observer.h"

namespace ampscope::trainer {

class AllocationTracker {
 public:
  // held_bytes: what the backend keeps for reuse beyond live tensors, in the bytes events count
  // (see AllocationEvent); asked on every report, under the tracker's lock, so it must not
  // allocate a tensor nor outlive anything it reads (the tensors' deleters may call it late).
  static std::shared_ptr<AllocationTracker> create(DeviceKind device, int device_index,
                                                   std::function<std::int64_t()> held_bytes);

  // nullptr: report nothing from now on. Once this returns, the previous observer gets no call.
  void setObserver(AllocationObserver* observer);
  bool observed() const { return observed_.load(std::memory_order_relaxed); }

  // Reports a new tensor's memory and returns memory that reports its own release, after
  // `memory` itself is released (so a pooled block is counted as held by then).
  static std::shared_ptr<void> track(const std::shared_ptr<AllocationTracker>& tracker, std::shared_ptr<void> memory,
                                     std::int64_t bytes);

  AllocationTracker(DeviceKind device, int device_index, std::function<std::int64_t()> held_bytes);

 private:
  void report(std::int64_t bytes, const void* address) noexcept;

  const DeviceKind device_;
  const int device_index_;
  const std::function<std::int64_t()> held_bytes_;
  std::mutex mutex_;
  AllocationObserver* observer_ = nullptr;  // under mutex_
  std::int64_t allocated_bytes_ = 0;       // under mutex_
  std::atomic<bool> observed_{false};
};

// The bytes a tensor of `count` elements of dtype takes on a GPU: what allocation events count.
std::int64_t gpuStorageBytes(std::int64_t count, DType dtype);

}  // namespace ampscope::trainer
