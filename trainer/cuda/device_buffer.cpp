#include "trainer/cuda/device_buffer.h"

#include <algorithm>

#include "trainer/cuda/cuda_check.h"

namespace ampscope::trainer::cuda {

namespace {

// Doubling keeps the number of reallocations logarithmic when sizes creep up over a run.
std::size_t grownCapacity(std::size_t current, std::size_t wanted) { return std::max(wanted, current * 2); }

}  // namespace

DeviceBuffer::~DeviceBuffer() {
  if (data_ != nullptr) static_cast<void>(cudaFree(data_));
  for (const Block& block : retired_) static_cast<void>(cudaFree(block.data));
  if (held_) {
    std::int64_t held = static_cast<std::int64_t>(capacity_bytes_);
    for (const Block& block : retired_) held += static_cast<std::int64_t>(block.bytes);
    held_->fetch_sub(held);
  }
}

void* DeviceBuffer::reserve(std::size_t bytes, cudaStream_t stream) {
  if (bytes <= capacity_bytes_) return data_;
  const std::size_t capacity = grownCapacity(capacity_bytes_, bytes);
  if (data_ != nullptr && keep_retired_) {
    // A captured graph may use this block: it stays until the buffer goes (still counted).
    retired_.push_back({data_, capacity_bytes_});
    data_ = nullptr;
    capacity_bytes_ = 0;
  } else if (data_ != nullptr) {
    AMPSCOPE_CUDA_CHECK(cudaStreamSynchronize(stream));
    AMPSCOPE_CUDA_CHECK(cudaFree(data_));
    data_ = nullptr;
    if (held_) held_->fetch_sub(static_cast<std::int64_t>(capacity_bytes_));
    capacity_bytes_ = 0;
  }
  AMPSCOPE_CUDA_CHECK(cudaMalloc(&data_, capacity));
  capacity_bytes_ = capacity;
  if (held_) held_->fetch_add(static_cast<std::int64_t>(capacity_bytes_));
  return data_;
}

PinnedBuffer::~PinnedBuffer() {
  if (data_ != nullptr) static_cast<void>(cudaFreeHost(data_));
}

void* PinnedBuffer::reserve(std::size_t bytes) {
  if (bytes <= capacity_bytes_) return data_;
  const std::size_t capacity = grownCapacity(capacity_bytes_, bytes);
  if (data_ != nullptr) {
    AMPSCOPE_CUDA_CHECK(cudaFreeHost(data_));
    data_ = nullptr;
    capacity_bytes_ = 0;
  }
  AMPSCOPE_CUDA_CHECK(cudaMallocHost(&data_, capacity));
  capacity_bytes_ = capacity;
  return data_;
}

}  // namespace ampscope::trainer::cuda
