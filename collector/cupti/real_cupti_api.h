#pragma once
// CuptiApi on libcupti. libcupti loads without the NVIDIA driver (it opens libcuda.so.1 when
// first used), so creating one always works; its calls fail, with CUPTI's error, where there is
// no driver or GPU. Code outside collector/cupti does not need it: GpuActivitySource::start with
// options only uses one.

#include "collector/cupti/cupti_api.h"

namespace ampscope::collector {

class RealCuptiApi final : public CuptiApi {
 public:
  trace::Status registerBufferCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                                        CUpti_BuffersCallbackCompleteFunc completed) override;
  trace::Status registerTimestampCallback(CUpti_TimestampCallbackFunc timestamp) override;
  trace::Status setThreadIdType(CUpti_ActivityThreadIdType type) override;
  trace::Status enableKind(CUpti_ActivityKind kind) override;
  trace::Status disableKind(CUpti_ActivityKind kind) override;
  trace::Status flushAll(bool forced) override;
  trace::Result<std::size_t> droppedRecords(CUcontext context, std::uint32_t stream_id) override;
  trace::Result<CUpti_Activity*> nextRecord(std::uint8_t* buffer, std::size_t valid_bytes,
                                            CUpti_Activity* previous) override;
  std::string callbackName(CUpti_CallbackDomain domain, std::uint32_t cbid) override;
  std::string resultString(CUptiResult result) override;
  std::string driverDiagnosis() override;
};

}  // namespace ampscope::collector
