#include "trainer/backend/allocation_tracker.h"

#include <utility>

namespace ampscope::trainer {

std::shared_ptr<AllocationTracker> AllocationTracker::create(DeviceKind device, int device_index,
                                                             std::function<std::int64_t()> held_bytes) {
  return std::make_shared<AllocationTracker>(device, device_index, std::move(held_bytes));
}

AllocationTracker::AllocationTracker(DeviceKind device, int device_index, std::function<std::int64_t()> held_bytes)
    : device_(device), device_index_(device_index), held_bytes_(std::move(held_bytes)) {}

void AllocationTracker::setObserver(AllocationObserver* observer) {
  const std::lock_guard lock(mutex_);
  observer_ = observer;
  observed_.store(observer != nullptr, std::memory_order_relaxed);
}

std::shared_ptr<void> AllocationTracker::track(const std::shared_ptr<AllocationTracker>& tracker,
                                               std::shared_ptr<void> memory, std::int64_t bytes) {
  void* block = memory.get();
  tracker->report(bytes, block);
  return std::shared_ptr<void>(block, [tracker, memory = std::move(memory), bytes](void* released) mutable {
    memory.reset();
    tracker->report(-bytes, released);
  });
}

void AllocationTracker::report(std::int64_t bytes, const void* address) noexcept {
  const std::lock_guard lock(mutex_);
  // Kept whether or not anyone listens, so a later observer sees totals that still add up.
  allocated_bytes_ += bytes;
  if (observer_ == nullptr) return;
  AllocationEvent event;
  event.bytes = bytes;
  event.address = reinterpret_cast<std::uintptr_t>(address);
  event.device = device_;
  event.device_index = device_index_;
  event.total_allocated_bytes = allocated_bytes_;
  event.total_reserved_bytes = allocated_bytes_ + (held_bytes_ ? held_bytes_() : 0);
  try {
    observer_->allocationEvent(event);
  } catch (...) {
    // A report is worth less than the training run: a release cannot throw, and an allocation
    // that succeeded stays one.
  }
}

std::int64_t gpuStorageBytes(std::int64_t count, DType dtype) {
  return count * static_cast<std::int64_t>(bytesPerElement(dtype, DeviceKind::kCuda));
}

}  // namespace ampscope::trainer
