#include "tests/collector/cupti/fake_counter_profiler_api.h"

#include "collector/collector_clock.h"

namespace ampscope::collector {

namespace {

class BorrowedCounterProfilerApi final : public CounterProfilerApi {
 public:
  explicit BorrowedCounterProfilerApi(FakeCounterProfilerApi& fake) : fake_(fake) {}
  CounterCall subscribeContexts(ContextCallback callback, void* user) override { return fake_.subscribeContexts(callback, user); }
  void unsubscribe() override { fake_.unsubscribe(); }
  CounterCall deviceOf(CUcontext context, std::uint32_t* device) override { return fake_.deviceOf(context, device); }
  CounterCall initializeProfiler() override { return fake_.initializeProfiler(); }
  void deinitializeProfiler() override { fake_.deinitializeProfiler(); }
  CounterCall chipName(std::uint32_t device, std::string* chip) override { return fake_.chipName(device, chip); }
  CounterCall pmCounterAvailability(std::uint32_t device, std::vector<std::uint8_t>* image) override {
    return fake_.pmCounterAvailability(device, image);
  }
  CounterCall rangeCounterAvailability(CUcontext context, std::vector<std::uint8_t>* image) override {
    return fake_.rangeCounterAvailability(context, image);
  }
  CounterCall baseMetrics(CounterProfiler profiler, const std::string& chip, const std::vector<std::uint8_t>& availability,
                          std::vector<std::string>* names) override {
    return fake_.baseMetrics(profiler, chip, availability, names);
  }
  CounterCall passes(CounterProfiler profiler, const std::string& chip, const std::vector<std::uint8_t>& availability,
                     const std::vector<std::string>& metrics, std::size_t* passes) override {
    return fake_.passes(profiler, chip, availability, metrics, passes);
  }
  CounterCall pmStart(const PmSamplingSetup& setup, CounterHandle* handle) override { return fake_.pmStart(setup, handle); }
  CounterCall pmDecode(CounterHandle handle, PmDecode* decoded) override { return fake_.pmDecode(handle, decoded); }
  CounterCall pmStop(CounterHandle handle) override { return fake_.pmStop(handle); }
  void pmRelease(CounterHandle handle) override { fake_.pmRelease(handle); }
  CounterCall rangeStart(const RangeProfilerSetup& setup, CounterHandle* handle) override {
    return fake_.rangeStart(setup, handle);
  }
  CounterCall rangeCollect(CounterHandle handle, bool restart, RangeCollection* collected) override {
    return fake_.rangeCollect(handle, restart, collected);
  }
  void rangeRelease(CounterHandle handle) override { fake_.rangeRelease(handle); }
  std::uint64_t timestamp() override { return fake_.timestamp(); }
  std::string resultString(CUptiResult result) override { return fake_.resultString(result); }

 private:
  FakeCounterProfilerApi& fake_;
};

}  // namespace

std::unique_ptr<CounterProfilerApi> FakeCounterProfilerApi::borrow() {
  return std::make_unique<BorrowedCounterProfilerApi>(*this);
}

void FakeCounterProfilerApi::createContext(CUcontext context, std::uint32_t device) {
  devices_[context] = device;
  if (callback_ != nullptr) callback_(user_, context, true);
}

void FakeCounterProfilerApi::destroyContext(CUcontext context) {
  if (callback_ != nullptr) callback_(user_, context, false);
  devices_.erase(context);
}

CounterCall FakeCounterProfilerApi::subscribeContexts(ContextCallback callback, void* user) {
  calls.push_back("subscribe");
  if (refuse_subscribe) return {*refuse_subscribe, "cuptiSubscribe"};
  callback_ = callback;
  user_ = user;
  return {};
}

void FakeCounterProfilerApi::unsubscribe() {
  calls.push_back("unsubscribe");
  callback_ = nullptr;
  user_ = nullptr;
}

CounterCall FakeCounterProfilerApi::deviceOf(CUcontext context, std::uint32_t* device) {
  const auto found = devices_.find(context);
  if (found == devices_.end()) return {CUPTI_ERROR_INVALID_CONTEXT, "cuptiGetDeviceId"};
  *device = found->second;
  return {};
}

CounterCall FakeCounterProfilerApi::initializeProfiler() {
  calls.push_back("initialize");
  return {};
}

void FakeCounterProfilerApi::deinitializeProfiler() { calls.push_back("deinitialize"); }

CounterCall FakeCounterProfilerApi::chipName(std::uint32_t device, std::string* chip) {
  const auto found = chips.find(device);
  if (found == chips.end()) return {CUPTI_ERROR_INVALID_DEVICE, "cuptiDeviceGetChipName"};
  *chip = found->second;
  return {};
}

CounterCall FakeCounterProfilerApi::pmCounterAvailability(std::uint32_t, std::vector<std::uint8_t>* image) {
  if (refuse_availability) return {*refuse_availability, "cuptiPmSamplingGetCounterAvailability"};
  *image = {1, 2, 3};
  return {};
}

CounterCall FakeCounterProfilerApi::rangeCounterAvailability(CUcontext, std::vector<std::uint8_t>* image) {
  if (refuse_availability) return {*refuse_availability, "cuptiProfilerGetCounterAvailability"};
  *image = {4, 5, 6};
  return {};
}

CounterCall FakeCounterProfilerApi::baseMetrics(CounterProfiler, const std::string& chip, const std::vector<std::uint8_t>&,
                                                std::vector<std::string>* names) {
  const auto found = base_metrics.find(chip);
  if (found == base_metrics.end()) return {CUPTI_ERROR_NOT_SUPPORTED, "cuptiProfilerHostInitialize"};
  names->assign(found->second.begin(), found->second.end());
  return {};
}

CounterCall FakeCounterProfilerApi::passes(CounterProfiler, const std::string&, const std::vector<std::uint8_t>&,
                                           const std::vector<std::string>& metrics, std::size_t* passes) {
  *passes = (metrics.size() + metrics_per_pass - 1) / metrics_per_pass;
  return {};
}

CounterCall FakeCounterProfilerApi::pmStart(const PmSamplingSetup& setup, CounterHandle* handle) {
  calls.push_back("pmStart " + std::to_string(setup.device));
  pm_setups.push_back(setup);
  *handle = next_handle_++;
  live.insert(*handle);
  return {};
}

CounterCall FakeCounterProfilerApi::pmDecode(CounterHandle, PmDecode* decoded) {
  calls.push_back("pmDecode");
  if (refuse_decode) return {*refuse_decode, "cuptiPmSamplingDecodeData"};
  if (decodes.empty()) {
    *decoded = {};
    return {};
  }
  *decoded = std::move(decodes.front());
  decodes.pop_front();
  return {};
}

CounterCall FakeCounterProfilerApi::pmStop(CounterHandle) {
  calls.push_back("pmStop");
  return {};
}

void FakeCounterProfilerApi::pmRelease(CounterHandle handle) {
  calls.push_back("pmRelease");
  live.erase(handle);
}

CounterCall FakeCounterProfilerApi::rangeStart(const RangeProfilerSetup& setup, CounterHandle* handle) {
  calls.push_back("rangeStart");
  range_setups.push_back(setup);
  *handle = next_handle_++;
  live.insert(*handle);
  return {};
}

CounterCall FakeCounterProfilerApi::rangeCollect(CounterHandle, bool restart, RangeCollection* collected) {
  calls.push_back(restart ? "rangeCollect restart" : "rangeCollect last");
  *collected = {};
  if (!collections.empty()) {
    *collected = std::move(collections.front());
    collections.pop_front();
  }
  if (refuse_collect) return {*refuse_collect, "cuptiProfilerHostEvaluateToGpuValues"};
  return {};
}

void FakeCounterProfilerApi::rangeRelease(CounterHandle handle) {
  calls.push_back("rangeRelease");
  live.erase(handle);
}

std::uint64_t FakeCounterProfilerApi::timestamp() {
  return static_cast<std::uint64_t>(collectorNowNs() + cupti_clock_offset_ns);
}

std::string FakeCounterProfilerApi::resultString(CUptiResult result) {
  switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: return "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
    case CUPTI_ERROR_NOT_SUPPORTED: return "CUPTI_ERROR_NOT_SUPPORTED";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED: return "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
    default: return "CUPTI error " + std::to_string(static_cast<int>(result));
  }
}

}  // namespace ampscope::collector
