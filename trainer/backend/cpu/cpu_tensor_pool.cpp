#include "trainer/backend/cpu/cpu_tensor_pool.h"

#include <algorithm>
#include <new>

namespace ampscope::trainer {

CpuTensorPool::Shelves::~Shelves() {
  for (auto& [count, blocks] : free_by_count) {
    for (const Shelved& shelved : blocks) delete[] shelved.block;
  }
}

CpuTensorPool::CpuTensorPool(std::size_t max_cached_bytes) : shelves_(std::make_shared<Shelves>()) {
  shelves_->max_cached_bytes = max_cached_bytes;
}

std::shared_ptr<float[]> CpuTensorPool::allocate(std::size_t count, std::size_t logical_bytes) {
  float* block = nullptr;
  {
    const std::lock_guard lock(shelves_->mutex);
    const auto shelf = shelves_->free_by_count.find(count);
    if (shelf != shelves_->free_by_count.end() && !shelf->second.empty()) {
      block = shelf->second.back().block;
      shelves_->cached_logical_bytes -= shelf->second.back().logical_bytes;
      shelf->second.pop_back();
      shelves_->cached_bytes -= count * sizeof(float);
    }
  }
  if (block == nullptr) {
    block = new float[count]();
  } else {
    std::fill(block, block + count, 0.0f);
  }
  // The deleter keeps the shelves alive, so a tensor may outlive the backend that made it.
  return std::shared_ptr<float[]>(block, [shelves = shelves_, count, logical_bytes](float* freed) {
    release(shelves, freed, count, logical_bytes);
  });
}

void CpuTensorPool::release(const std::shared_ptr<Shelves>& shelves, float* block, std::size_t count,
                            std::size_t logical_bytes) {
  const std::size_t bytes = count * sizeof(float);
  try {
    const std::lock_guard lock(shelves->mutex);
    if (shelves->cached_bytes + bytes <= shelves->max_cached_bytes) {
      shelves->free_by_count[count].push_back({block, logical_bytes});
      shelves->cached_bytes += bytes;
      shelves->cached_logical_bytes += logical_bytes;
      return;
    }
  } catch (const std::bad_alloc&) {
    // No memory for the shelf's bookkeeping: free the block rather than throw from a deleter.
  }
  delete[] block;
}

std::size_t CpuTensorPool::cachedBytes() const {
  const std::lock_guard lock(shelves_->mutex);
  return shelves_->cached_bytes;
}

std::size_t CpuTensorPool::cachedLogicalBytes() const {
  const std::lock_guard lock(shelves_->mutex);
  return shelves_->cached_logical_bytes;
}

}  // namespace ampscope::trainer
