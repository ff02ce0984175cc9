#include "trainer/cuda/cuda_check.h"

#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace ampscope::trainer::cuda {

void throwCudaError(cudaError_t status, const char* call, const char* file, int line) {
  throw std::runtime_error(fmt::format("{} failed at {}:{}: {} ({})", call, file, line, cudaGetErrorString(status),
                                       cudaGetErrorName(status)));
}

void throwCublasError(cublasStatus_t status, const char* call, const char* file, int line) {
  throw std::runtime_error(fmt::format("{} failed at {}:{}: {} (status {})", call, file, line,
                                       cublasGetStatusString(status), static_cast<int>(status)));
}

void throwCudnnError(cudnnStatus_t status, const char* call, const char* file, int line) {
  throw std::runtime_error(fmt::format("{} failed at {}:{}: {} (status {})", call, file, line,
                                       cudnnGetErrorString(status), static_cast<int>(status)));
}

int checkedInt(std::int64_t value, const char* what) {
  if (value < 0 || value > std::numeric_limits<int>::max()) {
    throw std::length_error(fmt::format("{} = {} does not fit the int the CUDA libraries take", what, value));
  }
  return static_cast<int>(value);
}

}  // namespace ampscope::trainer::cuda
