#pragma once
// Owns one handle of a C library (stream, event, cuBLAS or cuDNN context, descriptor) and
// destroys it with the library's own function, so a constructor that fails half way still
// releases what it had created.

#include <utility>

namespace ampscope::trainer::cuda {

template <typename Handle, auto Destroy>
class UniqueHandle {
 public:
  UniqueHandle() = default;
  explicit UniqueHandle(Handle handle) : handle_(handle) {}
  ~UniqueHandle() { reset(); }
  UniqueHandle(UniqueHandle&& other) noexcept : handle_(std::exchange(other.handle_, Handle{})) {}
  UniqueHandle& operator=(UniqueHandle&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, Handle{});
    }
    return *this;
  }
  UniqueHandle(const UniqueHandle&) = delete;
  UniqueHandle& operator=(const UniqueHandle&) = delete;

  Handle get() const { return handle_; }
  // Teardown cannot report errors (it runs in destructors); the status is dropped on purpose.
  void reset() {
    if (handle_ != Handle{}) static_cast<void>(Destroy(handle_));
    handle_ = Handle{};
  }

 private:
  Handle handle_{};
};

}  // namespace ampscope::trainer::cuda
