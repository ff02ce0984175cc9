#pragma once
// An allocator for buffers of a few MiB that are filled, read once and freed while the program
// goes on (an import's slices of rows): it maps large blocks straight from the system and unmaps
// them when freed, so their memory leaves the process at once. Through malloc it would not:
// glibc raises its mmap threshold to the size of each mapped block freed (up to 32 MiB), so later
// blocks of that size come from the heap, and the heap keeps what is freed in its middle as the
// process's resident memory.

#include <cstddef>
#include <memory>
#include <new>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#endif

namespace ampscope {

template <typename T>
struct PageAllocator {
  using value_type = T;
  // Smaller blocks come from malloc: mapping them would waste most of a page each.
  static constexpr std::size_t kMappedBytes = std::size_t{1} << 20;

  PageAllocator() = default;
  template <typename U>
  PageAllocator(const PageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
#if defined(__unix__) || defined(__APPLE__)
    if (n * sizeof(T) >= kMappedBytes) {
      void* block = mmap(nullptr, n * sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (block == MAP_FAILED) throw std::bad_alloc();
      return static_cast<T*>(block);
    }
#endif
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept {
#if defined(__unix__) || defined(__APPLE__)
    if (n * sizeof(T) >= kMappedBytes) {
      munmap(p, n * sizeof(T));
      return;
    }
#endif
    std::allocator<T>().deallocate(p, n);
  }
  template <typename U>
  bool operator==(const PageAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace ampscope
