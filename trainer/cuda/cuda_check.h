#pragma once
// One checker per foreign API: a failed call becomes a BackendError (trainer/backend/backend_error.h)
// whose source is the library and whose message is the library's own words for the failure, then
// the function called and where. Library code never prints, so the message has to carry
// everything a user needs to report the problem; the training run adds the step and the layer op.
// Beside the checkers, UniqueHandle owns what those libraries hand out.

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstdint>
#include <utility>

namespace ampscope::trainer::cuda {

// call: the call as written (the macros pass #call); only the function's name goes into the message.
[[noreturn]] void throwCudaError(cudaError_t status, const char* call, const char* file, int line);
[[noreturn]] void throwCublasError(cublasStatus_t status, const char* call, const char* file, int line);
[[noreturn]] void throwCudnnError(cudnnStatus_t status, const char* call, const char* file, int line);

// cuBLAS and cuDNN take int extents; a larger one is a programming error worth a clear message,
// not a silent wrap-around.
int checkedInt(std::int64_t value, const char* what);

// Owns one handle of a C library (stream, event, cuBLAS or cuDNN context, descriptor) and
// destroys it with the library's own function, so a constructor that fails half way still
// releases what it had created.
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

#define AMPSCOPE_CUDA_CHECK(call)                                                                     \
  do {                                                                                                \
    const cudaError_t ampscope_cuda_status = (call);                                                  \
    if (ampscope_cuda_status != cudaSuccess) {                                                        \
      ::ampscope::trainer::cuda::throwCudaError(ampscope_cuda_status, #call, __FILE__, __LINE__);     \
    }                                                                                                 \
  } while (false)

#define AMPSCOPE_CUBLAS_CHECK(call)                                                                   \
  do {                                                                                                \
    const cublasStatus_t ampscope_cublas_status = (call);                                             \
    if (ampscope_cublas_status != CUBLAS_STATUS_SUCCESS) {                                            \
      ::ampscope::trainer::cuda::throwCublasError(ampscope_cublas_status, #call, __FILE__, __LINE__); \
    }                                                                                                 \
  } while (false)

#define AMPSCOPE_CUDNN_CHECK(call)                                                                    \
  do {                                                                                                \
    const cudnnStatus_t ampscope_cudnn_status = (call);                                               \
    if (ampscope_cudnn_status != CUDNN_STATUS_SUCCESS) {                                              \
      ::ampscope::trainer::cuda::throwCudnnError(ampscope_cudnn_status, #call, __FILE__, __LINE__);   \
    }                                                                                                 \
  } while (false)
