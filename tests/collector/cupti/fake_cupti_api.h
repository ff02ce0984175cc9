#pragma once
// A CuptiApi without libcupti: it records the calls made, fails where a test asks it to, lends
// the test CUPTI's callbacks to drive, and walks buffers of records laid out by
// ActivityBufferBuilder (real CUpti_Activity* structs, packed at CUPTI's 8-byte alignment).

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "collector/cupti/cupti_api.h"

namespace ampscope::collector {

class FakeCuptiApi final : public CuptiApi {
 public:
  // Where each record of a buffer starts; records from unreadable_from on make nextRecord fail
  // as CUPTI does on an incomplete record.
  struct Layout {
    std::vector<std::size_t> offsets;
    std::size_t unreadable_from = static_cast<std::size_t>(-1);
  };

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
  std::string driverDiagnosis() override { return diagnosis; }

  // A CuptiApi to hand a GpuActivitySource that forwards every call to this fake, so the test
  // keeps the fake (and what it recorded) after the source is gone.
  std::unique_ptr<CuptiApi> borrow();

  // The layout of a buffer the test filled (ActivityBufferBuilder calls it). Thread-safe, as
  // CUPTI's threads fill buffers while the writer walks others.
  void describe(const std::uint8_t* buffer, Layout layout) {
    const std::lock_guard lock(layouts_mutex_);
    layouts_[buffer] = std::move(layout);
  }

  // Drives CUPTI's side: asks the registered callback for a buffer, hands one back.
  std::uint8_t* requestBuffer(std::size_t* size);
  void completeBuffer(std::uint8_t* buffer, std::size_t size, std::size_t valid_bytes);

  // What was called, in order: "timestamp", "threadIdType 1", "callbacks", "enable 10",
  // "disable 10", "flush", "flush forced", "dropped".
  std::vector<std::string> calls;
  std::vector<CUpti_ActivityKind> enabled;  // enabled now, in enabling order
  CUpti_TimestampCallbackFunc timestamp = nullptr;
  CUpti_BuffersCallbackRequestFunc requested = nullptr;
  CUpti_BuffersCallbackCompleteFunc completed = nullptr;

  // What the test makes it answer.
  std::optional<CUpti_ActivityKind> failing_kind;  // enableKind fails for it, as CUPTI without a driver
  std::string diagnosis;
  std::size_t dropped = 0;  // returned and reset by droppedRecords, as CUPTI does
  bool dropped_unreadable = false;
  std::map<std::uint32_t, std::string> runtime_names;
  std::map<std::uint32_t, std::string> driver_names;

 private:
  std::mutex layouts_mutex_;
  std::map<const std::uint8_t*, Layout> layouts_;
};

}  // namespace ampscope::collector
