#include "trainer/cuda/cuda_check.h"

#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "trainer/backend/backend_error.h"

namespace ampscope::trainer::cuda {

namespace {

// "cublasGemmStridedBatchedEx at cuda_gemm.cpp:45": the call's arguments and the build's folders
// would make the one line a user sees hard to read, and add nothing to a report.
std::string site(std::string_view call, std::string_view file, int line) {
  const std::string_view function = call.substr(0, call.find('('));
  const std::string_view name = file.substr(file.find_last_of('/') + 1);
  return fmt::format("in {} at {}:{}", function, name, line);
}

}  // namespace

void throwCudaError(cudaError_t status, const char* call, const char* file, int line) {
  // Takes the error back from the runtime, or the check after the next kernel launch
  // (cudaGetLastError) would report a failed cudaMalloc a second time. A sticky error (the context
  // is lost) stays whatever is done here.
  static_cast<void>(cudaGetLastError());
  throw BackendError("CUDA", fmt::format("{} ({}) {}", cudaGetErrorString(status), cudaGetErrorName(status),
                                         site(call, file, line)));
}

void throwCublasError(cublasStatus_t status, const char* call, const char* file, int line) {
  throw BackendError("cuBLAS", fmt::format("{} ({}) {}", cublasGetStatusName(status), cublasGetStatusString(status),
                                           site(call, file, line)));
}

void throwCudnnError(cudnnStatus_t status, const char* call, const char* file, int line) {
  // cuDNN 9 keeps a longer account of the last failure than the status's name.
  std::array<char, 512> details{};
  cudnnGetLastErrorString(details.data(), details.size());
  std::string more(details.data());
  std::replace(more.begin(), more.end(), '\n', ' ');  // the user sees one line
  throw BackendError("cuDNN", fmt::format("{} {}{}{}", cudnnGetErrorString(status), site(call, file, line),
                                          more.empty() ? "" : ": ", more));
}

int checkedInt(std::int64_t value, const char* what) {
  if (value < 0 || value > std::numeric_limits<int>::max()) {
    throw BackendError("CUDA backend", fmt::format("{} = {} does not fit the int the CUDA libraries take", what, value));
  }
  return static_cast<int>(value);
}

}  // namespace ampscope::trainer::cuda
