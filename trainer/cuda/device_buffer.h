#pragma once
// Memory the backend keeps for itself between ops: device scratch, the cuDNN workspace and the
// pinned host staging of uploads and downloads. Each grows on demand and is reused, so steady
// training does no allocation of its own.

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ampscope::trainer::cuda {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // At least `bytes` of device memory; the contents are lost when it grows. Work queued on
  // `stream` may still read the old block, so growing waits for the stream first.
  void* reserve(std::size_t bytes, cudaStream_t stream);

  // Keeps `held` up to date with this buffer's capacity (added on growth, taken off when the
  // buffer goes), for the allocation totals; several buffers may share one counter.
  void countCapacityIn(std::shared_ptr<std::atomic<std::int64_t>> held) { held_ = std::move(held); }

  // From now on a block the buffer grows out of is kept, not freed, until the buffer goes: a
  // captured CUDA graph holds its address and may be replayed after the buffer grew.
  void keepRetiredBlocks() { keep_retired_ = true; }

 private:
  struct Block {
    void* data = nullptr;
    std::size_t bytes = 0;
  };
  void* data_ = nullptr;
  std::size_t capacity_bytes_ = 0;
  std::shared_ptr<std::atomic<std::int64_t>> held_;
  bool keep_retired_ = false;
  std::vector<Block> retired_;
};

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer();
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  // At least `bytes` of page-locked host memory; the caller has made sure no copy still uses it.
  void* reserve(std::size_t bytes);

 private:
  void* data_ = nullptr;
  std::size_t capacity_bytes_ = 0;
};

// Carves one scratch block into aligned regions: add() every region first, then reserve
// bytes() once and resolve the offsets against its base.
class ScratchLayout {
 public:
  template <typename T>
  std::size_t add(std::size_t count) {
    const std::size_t offset = (bytes_ + kAlignment - 1) / kAlignment * kAlignment;
    bytes_ = offset + count * sizeof(T);
    return offset;
  }
  std::size_t bytes() const { return bytes_ == 0 ? 1 : bytes_; }
  template <typename T>
  static T* at(void* base, std::size_t offset) {
    return reinterpret_cast<T*>(static_cast<std::byte*>(base) + offset);
  }

 private:
  static constexpr std::size_t kAlignment = 256;  // what cudaMalloc guarantees
  std::size_t bytes_ = 0;
};

}  // namespace ampscope::trainer::cuda
