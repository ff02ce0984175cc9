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
  if (held_) held_->fetch_sub(static_cast<std::int64_t>(capacity_bytes_));
}

void* DeviceBuffer::reserve(std::size_t bytes, cudaStream_t stream) {
  if (bytes <= capacity_bytes_) return data_;
  const std::size_t capacity = grownCapacity(capacity_bytes_, bytes);
  if (data_ != nullptr) {
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
