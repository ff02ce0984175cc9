#pragma once
// One checker per foreign API: a failed call becomes a BackendError (trainer/backend/backend_error.h)
// whose source is the library and whose message is the library's own words for the failure, then
// the function called and where. Library code never prints, so the message has to carry
// everything a user needs to report the problem; the training run adds the step and the layer op.

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstdint>

namespace ampscope::trainer::cuda {

// call: the call as written (the macros pass #call); only the function's name goes into the message.
[[noreturn]] void throwCudaError(cudaError_t status, const char* call, const char* file, int line);
[[noreturn]] void throwCublasError(cublasStatus_t status, const char* call, const char* file, int line);
[[noreturn]] void throwCudnnError(cudnnStatus_t status, const char* call, const char* file, int line);

// cuBLAS and cuDNN take int extents; a larger one is a programming error worth a clear message,
// not a silent wrap-around.
int checkedInt(std::int64_t value, const char* what);

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
