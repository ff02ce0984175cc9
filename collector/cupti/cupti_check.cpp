#include "collector/cupti/cupti_check.h"

#include <fmt/format.h>

namespace ampscope::collector {

namespace {

// The results whose cause a user can act on, in words. CUPTI's strings are only the enum names.
const char* hint(CUptiResult result) {
  switch (result) {
    case CUPTI_ERROR_NOT_INITIALIZED:
      return "CUPTI could not connect to the CUDA driver";
    case CUPTI_ERROR_INVALID_DEVICE:
      return "the device is not usable for profiling";
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
      return "this driver or device does not support the request";
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return "profiling is restricted to administrators on this machine (NVreg_RestrictProfilingToAdminUsers)";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
      return "another profiler (Nsight Systems, nvprof, a second ampscope) already uses CUPTI in this process";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
      return "CUPTI does not support this kind of device";
    case CUPTI_ERROR_OUT_OF_MEMORY:
      return "CUPTI ran out of memory";
    default:
      return nullptr;
  }
}

}  // namespace

trace::Error cuptiCallError(CUptiResult result, const char* call) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown CUPTI result";
  std::string message = fmt::format("{} failed: {} ({})", call, text, static_cast<int>(result));
  if (const char* why = hint(result)) message += fmt::format(": {}", why);
  return trace::Error{std::move(message)};
}

}  // namespace ampscope::collector
