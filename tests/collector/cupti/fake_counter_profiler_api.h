#pragma once
// A CounterProfilerApi without libcupti: chips with the base metrics a test gives them, a pass
// rule, samples and ranges queued by the test for each decode, refusals where the test asks for
// them, and context creation driven by the test. It records the calls made, in order.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "collector/cupti/counter_profiler_api.h"

namespace ampscope::collector {

class FakeCounterProfilerApi final : public CounterProfilerApi {
 public:
  CounterCall subscribeContexts(ContextCallback callback, void* user) override;
  void unsubscribe() override;
  CounterCall deviceOf(CUcontext context, std::uint32_t* device) override;
  CounterCall initializeProfiler() override;
  void deinitializeProfiler() override;
  CounterCall chipName(std::uint32_t device, std::string* chip) override;
  CounterCall pmCounterAvailability(std::uint32_t device, std::vector<std::uint8_t>* image) override;
  CounterCall rangeCounterAvailability(CUcontext context, std::vector<std::uint8_t>* image) override;
  CounterCall baseMetrics(CounterProfiler profiler, const std::string& chip, const std::vector<std::uint8_t>& availability,
                          std::vector<std::string>* names) override;
  CounterCall passes(CounterProfiler profiler, const std::string& chip, const std::vector<std::uint8_t>& availability,
                     const std::vector<std::string>& metrics, std::size_t* passes) override;
  CounterCall pmStart(const PmSamplingSetup& setup, CounterHandle* handle) override;
  CounterCall pmDecode(CounterHandle handle, PmDecode* decoded) override;
  CounterCall pmStop(CounterHandle handle) override;
  void pmRelease(CounterHandle handle) override;
  CounterCall rangeStart(const RangeProfilerSetup& setup, CounterHandle* handle) override;
  CounterCall rangeCollect(CounterHandle handle, bool restart, RangeCollection* collected) override;
  void rangeRelease(CounterHandle handle) override;
  std::uint64_t timestamp() override;
  std::string resultString(CUptiResult result) override;

  // A CounterProfilerApi that forwards to this fake, so the test keeps the fake after the source is gone.
  std::unique_ptr<CounterProfilerApi> borrow();

  // The program's side: a context created on a device, or about to be destroyed.
  static CUcontext context(std::uintptr_t id) { return reinterpret_cast<CUcontext>(id); }
  void createContext(CUcontext context, std::uint32_t device);
  void destroyContext(CUcontext context);

  // What the test sets up.
  std::map<std::uint32_t, std::string> chips = {{0, "GH100"}};
  std::map<std::string, std::set<std::string>> base_metrics = {
      {"GH100", {"sm__pipe_tensor_cycles_active", "sm__cycles_active", "sm__cycles_elapsed", "sm__inst_executed_pipe_tensor",
                 "sm__pipe_tensor_op_hmma_cycles_active", "sm__inst_executed_pipe_tensor_op_gmma"}}};
  std::size_t metrics_per_pass = 8;  // a set of more metrics needs a second pass
  std::optional<CUptiResult> refuse_availability;  // as the driver does for non-administrators
  std::optional<CUptiResult> refuse_subscribe;
  std::optional<CUptiResult> refuse_decode;
  // rangeCollect fails (after handing out its collection: the ranges evaluated before the failure).
  std::optional<CUptiResult> refuse_collect;
  // Added to collectorNowNs for cuptiGetTimestamp: 0 when CUPTI uses the collector's clock.
  std::int64_t cupti_clock_offset_ns = 0;
  // Handed out by the decodes, in order: one entry per pmDecode / rangeCollect call; none left:
  // nothing new.
  std::deque<PmDecode> decodes;
  std::deque<RangeCollection> collections;

  // What the code did.
  std::vector<std::string> calls;  // "subscribe", "initialize", "pmStart 0", "pmDecode", "pmStop", ...
  std::vector<PmSamplingSetup> pm_setups;
  std::vector<RangeProfilerSetup> range_setups;
  std::set<CounterHandle> live;  // started, not yet released

 private:
  std::map<CUcontext, std::uint32_t> devices_;
  ContextCallback callback_ = nullptr;
  void* user_ = nullptr;
  CounterHandle next_handle_ = 1;
};

}  // namespace ampscope::collector
