#include "tests/collector/cupti/fake_cupti_api.h"

#include <algorithm>

namespace ampscope::collector {

namespace {

class BorrowedCuptiApi final : public CuptiApi {
 public:
  explicit BorrowedCuptiApi(CuptiApi& api) : api_(api) {}

  trace::Status registerBufferCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                                        CUpti_BuffersCallbackCompleteFunc completed) override {
    return api_.registerBufferCallbacks(requested, completed);
  }
  trace::Status registerTimestampCallback(CUpti_TimestampCallbackFunc timestamp) override {
    return api_.registerTimestampCallback(timestamp);
  }
  trace::Status setThreadIdType(CUpti_ActivityThreadIdType type) override { return api_.setThreadIdType(type); }
  trace::Status enableKind(CUpti_ActivityKind kind) override { return api_.enableKind(kind); }
  trace::Status disableKind(CUpti_ActivityKind kind) override { return api_.disableKind(kind); }
  trace::Status flushAll(bool forced) override { return api_.flushAll(forced); }
  trace::Result<std::size_t> droppedRecords(CUcontext context, std::uint32_t stream_id) override {
    return api_.droppedRecords(context, stream_id);
  }
  trace::Result<CUpti_Activity*> nextRecord(std::uint8_t* buffer, std::size_t valid_bytes,
                                            CUpti_Activity* previous) override {
    return api_.nextRecord(buffer, valid_bytes, previous);
  }
  std::string callbackName(CUpti_CallbackDomain domain, std::uint32_t cbid) override {
    return api_.callbackName(domain, cbid);
  }
  std::string resultString(CUptiResult result) override { return api_.resultString(result); }
  std::string driverDiagnosis() override { return api_.driverDiagnosis(); }

 private:
  CuptiApi& api_;
};

}  // namespace

std::unique_ptr<CuptiApi> FakeCuptiApi::borrow() { return std::make_unique<BorrowedCuptiApi>(*this); }

trace::Status FakeCuptiApi::registerBufferCallbacks(CUpti_BuffersCallbackRequestFunc requested_fn,
                                                    CUpti_BuffersCallbackCompleteFunc completed_fn) {
  calls.push_back("callbacks");
  requested = requested_fn;
  completed = completed_fn;
  return {};
}

trace::Status FakeCuptiApi::registerTimestampCallback(CUpti_TimestampCallbackFunc timestamp_fn) {
  calls.push_back("timestamp");
  timestamp = timestamp_fn;
  return {};
}

trace::Status FakeCuptiApi::setThreadIdType(CUpti_ActivityThreadIdType type) {
  calls.push_back("threadIdType " + std::to_string(static_cast<int>(type)));
  return {};
}

trace::Status FakeCuptiApi::enableKind(CUpti_ActivityKind kind) {
  calls.push_back("enable " + std::to_string(static_cast<int>(kind)));
  if (failing_kind == kind) {
    return trace::Error{"cuptiActivityEnable(kind " + std::to_string(static_cast<int>(kind)) +
                        ") failed: CUPTI_ERROR_NOT_INITIALIZED (15)"};
  }
  enabled.push_back(kind);
  return {};
}

trace::Status FakeCuptiApi::disableKind(CUpti_ActivityKind kind) {
  calls.push_back("disable " + std::to_string(static_cast<int>(kind)));
  enabled.erase(std::remove(enabled.begin(), enabled.end(), kind), enabled.end());
  return {};
}

trace::Status FakeCuptiApi::flushAll(bool forced) {
  calls.push_back(forced ? "flush forced" : "flush");
  return {};
}

trace::Result<std::size_t> FakeCuptiApi::droppedRecords(CUcontext /*context*/, std::uint32_t /*stream_id*/) {
  calls.push_back("dropped");
  if (dropped_unreadable) return trace::Error{"cuptiActivityGetNumDroppedRecords failed: CUPTI_ERROR_UNKNOWN"};
  const std::size_t count = dropped;
  dropped = 0;
  return count;
}

trace::Result<CUpti_Activity*> FakeCuptiApi::nextRecord(std::uint8_t* buffer, std::size_t valid_bytes,
                                                        CUpti_Activity* previous) {
  const std::lock_guard lock(layouts_mutex_);
  const auto layout = layouts_.find(buffer);
  if (layout == layouts_.end()) return trace::Error{"fake CUPTI: a buffer the test did not describe"};
  const std::vector<std::size_t>& offsets = layout->second.offsets;
  std::size_t index = 0;
  if (previous != nullptr) {
    const auto at = static_cast<std::size_t>(reinterpret_cast<std::uint8_t*>(previous) - buffer);
    index = static_cast<std::size_t>(std::find(offsets.begin(), offsets.end(), at) - offsets.begin()) + 1;
  }
  if (index >= offsets.size() || offsets[index] >= valid_bytes) return static_cast<CUpti_Activity*>(nullptr);
  if (index >= layout->second.unreadable_from) {
    return trace::Error{"cuptiActivityGetNextRecord failed: CUPTI_ERROR_INVALID_KIND (21)"};
  }
  return reinterpret_cast<CUpti_Activity*>(buffer + offsets[index]);
}

std::string FakeCuptiApi::callbackName(CUpti_CallbackDomain domain, std::uint32_t cbid) {
  const auto& names = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? runtime_names : driver_names;
  const auto found = names.find(cbid);
  return found == names.end() ? std::string() : found->second;
}

std::string FakeCuptiApi::resultString(CUptiResult result) {
  return "CUPTI result " + std::to_string(static_cast<int>(result));
}

std::uint8_t* FakeCuptiApi::requestBuffer(std::size_t* size) {
  std::uint8_t* buffer = nullptr;
  std::size_t max_records = 0;
  requested(&buffer, size, &max_records);
  return buffer;
}

void FakeCuptiApi::completeBuffer(std::uint8_t* buffer, std::size_t size, std::size_t valid_bytes) {
  completed(nullptr, 0, buffer, size, valid_bytes);
}

}  // namespace ampscope::collector
