#include "collector/cupti/real_cupti_api.h"

#include <dlfcn.h>

#include <fmt/format.h>

#include "collector/cupti/cupti_check.h"

namespace ampscope::collector {

trace::Status RealCuptiApi::registerBufferCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                                                    CUpti_BuffersCallbackCompleteFunc completed) {
  AMPSCOPE_CUPTI_CHECK(cuptiActivityRegisterCallbacks(requested, completed));
  return {};
}

trace::Status RealCuptiApi::registerTimestampCallback(CUpti_TimestampCallbackFunc timestamp) {
  AMPSCOPE_CUPTI_CHECK(cuptiActivityRegisterTimestampCallback(timestamp));
  return {};
}

trace::Status RealCuptiApi::setThreadIdType(CUpti_ActivityThreadIdType type) {
  AMPSCOPE_CUPTI_CHECK(cuptiSetThreadIdType(type));
  return {};
}

trace::Status RealCuptiApi::enableKind(CUpti_ActivityKind kind) {
  const CUptiResult result = cuptiActivityEnable(kind);
  if (result == CUPTI_SUCCESS) return {};
  // The kind's number is what tells the enables apart; the macro would only show "kind".
  return cuptiCallError(result, fmt::format("cuptiActivityEnable(kind {})", static_cast<int>(kind)).c_str());
}

trace::Status RealCuptiApi::disableKind(CUpti_ActivityKind kind) {
  const CUptiResult result = cuptiActivityDisable(kind);
  if (result == CUPTI_SUCCESS) return {};
  return cuptiCallError(result, fmt::format("cuptiActivityDisable(kind {})", static_cast<int>(kind)).c_str());
}

trace::Status RealCuptiApi::flushAll(bool forced) {
  AMPSCOPE_CUPTI_CHECK(cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0));
  return {};
}

trace::Result<std::size_t> RealCuptiApi::droppedRecords(CUcontext context, std::uint32_t stream_id) {
  std::size_t dropped = 0;
  AMPSCOPE_CUPTI_CHECK(cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped));
  return dropped;
}

trace::Result<CUpti_Activity*> RealCuptiApi::nextRecord(std::uint8_t* buffer, std::size_t valid_bytes,
                                                        CUpti_Activity* previous) {
  CUpti_Activity* record = previous;
  const CUptiResult result = cuptiActivityGetNextRecord(buffer, valid_bytes, &record);
  if (result == CUPTI_SUCCESS) return record;
  if (result == CUPTI_ERROR_MAX_LIMIT_REACHED) return static_cast<CUpti_Activity*>(nullptr);
  return cuptiCallError(result, "cuptiActivityGetNextRecord(buffer, valid_bytes, &record)");
}

std::string RealCuptiApi::callbackName(CUpti_CallbackDomain domain, std::uint32_t cbid) {
  const char* name = nullptr;
  if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) return {};
  return name;
}

std::string RealCuptiApi::resultString(CUptiResult result) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) {
    return fmt::format("CUPTI result {}", static_cast<int>(result));
  }
  return text;
}

std::string RealCuptiApi::driverDiagnosis() {
  // The driver is opened by name, as CUPTI and the CUDA runtime do; this library never links it.
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (driver == nullptr) {
    const char* why = dlerror();
    return fmt::format("the NVIDIA driver library libcuda.so.1 cannot be loaded ({}); is the NVIDIA driver "
                       "installed?",
                       why != nullptr ? why : "no reason given");
  }
  std::string diagnosis;
  using DeviceGetCount = decltype(&cuDeviceGetCount);
  using GetErrorName = decltype(&cuGetErrorName);
  auto device_get_count = reinterpret_cast<DeviceGetCount>(dlsym(driver, "cuDeviceGetCount"));
  auto get_error_name = reinterpret_cast<GetErrorName>(dlsym(driver, "cuGetErrorName"));
  if (device_get_count != nullptr) {
    // No cuInit here: under CUDA_INJECTION64_PATH this code may run inside cuInit itself.
    // Before initialisation the count is CUDA_ERROR_NOT_INITIALIZED, which says nothing new.
    int count = 0;
    const CUresult result = device_get_count(&count);
    if (result == CUDA_SUCCESS && count == 0) {
      diagnosis = "the NVIDIA driver is installed but sees no GPU";
    } else if (result != CUDA_SUCCESS && result != CUDA_ERROR_NOT_INITIALIZED) {
      const char* name = nullptr;
      if (get_error_name == nullptr || get_error_name(result, &name) != CUDA_SUCCESS) name = nullptr;
      diagnosis = fmt::format("the NVIDIA driver cannot count the GPUs: cuDeviceGetCount gives {}",
                              name != nullptr ? name : fmt::format("CUresult {}", static_cast<int>(result)));
    }
  }
  dlclose(driver);
  return diagnosis;
}

}  // namespace ampscope::collector
