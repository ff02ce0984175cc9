#pragma once
// Memory for CPU tensors, reused. A training step allocates the same tensors every step (cast
// weights, gradient buffers, activations) and frees them at its end. Through plain new/delete the
// large ones come from the top of the heap, which the allocator may hand back to the system when
// they are freed and fault in again, page by page, the next step: how often depends on what else
// the process allocates, and a profiled run took 3.5 times the page faults of an unprofiled one.
// Blocks freed here wait, by size, for the next tensor of that size.

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace ampscope::trainer {

class CpuTensorPool {
 public:
  // Freed blocks kept at most, in bytes; past that a freed block goes back to the heap.
  static constexpr std::size_t kDefaultMaxCachedBytes = std::size_t{1} << 30;

  explicit CpuTensorPool(std::size_t max_cached_bytes = kDefaultMaxCachedBytes);

  // count floats, zeroed. The memory returns to the pool when the last reference goes, whichever
  // thread drops it, even after the pool object itself is gone. logical_bytes: what the tensor
  // would take on a GPU (its dtype's size there), kept with the block while it is cached.
  std::shared_ptr<float[]> allocate(std::size_t count, std::size_t logical_bytes = 0);

  std::size_t cachedBytes() const;
  // The cached blocks' logical bytes: what a GPU's caching allocator would hold for them.
  std::size_t cachedLogicalBytes() const;

 private:
  struct Shelved {
    float* block;
    std::size_t logical_bytes;
  };
  struct Shelves {
    mutable std::mutex mutex;
    std::map<std::size_t, std::vector<Shelved>> free_by_count;
    std::size_t cached_bytes = 0;
    std::size_t cached_logical_bytes = 0;
    std::size_t max_cached_bytes = 0;
    ~Shelves();
  };
  static void release(const std::shared_ptr<Shelves>& shelves, float* block, std::size_t count,
                      std::size_t logical_bytes);

  std::shared_ptr<Shelves> shelves_;
};

}  // namespace ampscope::trainer
