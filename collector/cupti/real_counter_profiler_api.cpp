#include "collector/cupti/real_counter_profiler_api.h"

#include <algorithm>
#include <cstdlib>

#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

// CUPTI's profiling calls take versioned parameter structs: structSize says which version the
// caller was built with and pPriv stays null. Each is value-initialised ({}) and its size set, so
// fields a newer header adds are zero.
#define AMPSCOPE_CUPTI_PARAMS(type, name) \
  type name{};                            \
  name.structSize = type##_STRUCT_SIZE

#define AMPSCOPE_COUNTER_CALL(function, params)                           \
  do {                                                                    \
    const CUptiResult ampscope_result = function(&(params));              \
    if (ampscope_result != CUPTI_SUCCESS) return {ampscope_result, #function}; \
  } while (false)

namespace ampscope::collector {

namespace {

CUpti_ProfilerType profilerType(CounterProfiler profiler) {
  return profiler == CounterProfiler::kPmSampling ? CUPTI_PROFILER_TYPE_PM_SAMPLING : CUPTI_PROFILER_TYPE_RANGE_PROFILER;
}

// The profiler host object: evaluates metric names for one chip (libnvperf_host behind CUPTI).
class HostObject {
 public:
  HostObject() = default;
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
  ~HostObject() {
    if (object_ == nullptr) return;
    AMPSCOPE_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params, params);
    params.pHostObject = object_;
    (void)cuptiProfilerHostDeinitialize(&params);
  }

  CounterCall initialize(CounterProfiler profiler, const std::string& chip, const std::vector<std::uint8_t>& availability) {
    AMPSCOPE_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params, params);
    params.profilerType = profilerType(profiler);
    params.pChipName = chip.c_str();
    params.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
    AMPSCOPE_COUNTER_CALL(cuptiProfilerHostInitialize, params);
    object_ = params.pHostObject;
    return {};
  }

  // The configuration image that schedules metrics' counters; CUPTI keeps pointing into it.
  CounterCall configImage(const std::vector<const char*>& metrics, std::vector<std::uint8_t>* image) {
    AMPSCOPE_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, add);
    add.pHostObject = object_;
    add.ppMetricNames = const_cast<const char**>(metrics.data());
    add.numMetrics = metrics.size();
    AMPSCOPE_COUNTER_CALL(cuptiProfilerHostConfigAddMetrics, add);
    AMPSCOPE_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, size);
    size.pHostObject = object_;
    AMPSCOPE_COUNTER_CALL(cuptiProfilerHostGetConfigImageSize, size);
    image->assign(size.configImageSize, 0);
    AMPSCOPE_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, get);
    get.pHostObject = object_;
    get.configImageSize = image->size();
    get.pConfigImage = image->data();
    AMPSCOPE_COUNTER_CALL(cuptiProfilerHostGetConfigImage, get);
    return {};
  }

  CounterCall evaluate(const std::vector<std::uint8_t>& counter_data, std::size_t index,
                       const std::vector<const char*>& metrics, std::vector<double>* values) {
    values->assign(metrics.size(), 0.0);
    AMPSCOPE_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, params);
    params.pHostObject = object_;
    params.pCounterDataImage = counter_data.data();
    params.counterDataImageSize = counter_data.size();
    params.rangeIndex = index;
    params.ppMetricNames = const_cast<const char**>(metrics.data());
    params.numMetrics = metrics.size();
    params.pMetricValues = values->data();
    AMPSCOPE_COUNTER_CALL(cuptiProfilerHostEvaluateToGpuValues, params);
    return {};
  }

  CUpti_Profiler_Host_Object* get() const { return object_; }

 private:
  CUpti_Profiler_Host_Object* object_ = nullptr;
};

// Metric names as CUPTI takes them: pointers into strings that outlive every call.
struct MetricNames {
  explicit MetricNames(std::vector<std::string> metric_names) : names(std::move(metric_names)) {
    for (const std::string& name : names) pointers.push_back(name.c_str());
  }
  std::vector<std::string> names;
  std::vector<const char*> pointers;
};

}  // namespace

struct RealCounterProfilerApi::Subscription {
  CUpti_SubscriberHandle subscriber = nullptr;
  ContextCallback callback = nullptr;
  void* user = nullptr;

  static void CUPTIAPI onCallback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
    auto* self = static_cast<Subscription*>(userdata);
    if (domain != CUPTI_CB_DOMAIN_RESOURCE || data == nullptr || self->callback == nullptr) return;
    const auto* resource = static_cast<const CUpti_ResourceData*>(data);
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) self->callback(self->user, resource->context, true);
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) self->callback(self->user, resource->context, false);
  }
};

struct RealCounterProfilerApi::PmSampler {
  explicit PmSampler(std::vector<std::string> names) : metrics(std::move(names)) {}
  HostObject host;
  MetricNames metrics;
  std::vector<std::uint8_t> config;        // CUPTI reads it until the sampler is disabled
  std::vector<std::uint8_t> counter_data;  // decoded samples land here
  CUpti_PmSampling_Object* object = nullptr;
};

struct RealCounterProfilerApi::RangeProfiler {
  explicit RangeProfiler(std::vector<std::string> names) : metrics(std::move(names)) {}
  HostObject host;
  MetricNames metrics;
  std::vector<std::uint8_t> config;
  std::vector<std::uint8_t> counter_data;
  std::size_t max_ranges = 0;
  CUpti_RangeProfiler_Object* object = nullptr;
  bool started = false;  // between Start and Stop
};

RealCounterProfilerApi::RealCounterProfilerApi() = default;

RealCounterProfilerApi::~RealCounterProfilerApi() {
  for (auto it = samplers_.begin(); it != samplers_.end();) pmRelease((it++)->first);
  for (auto it = profilers_.begin(); it != profilers_.end();) rangeRelease((it++)->first);
  unsubscribe();
}

CounterCall RealCounterProfilerApi::subscribeContexts(ContextCallback callback, void* user) {
  auto subscription = std::make_unique<Subscription>();
  subscription->callback = callback;
  subscription->user = user;
  CUptiResult result = cuptiSubscribe(&subscription->subscriber, &Subscription::onCallback, subscription.get());
  if (result != CUPTI_SUCCESS) return {result, "cuptiSubscribe"};
  for (CUpti_CallbackId cbid : {CUPTI_CBID_RESOURCE_CONTEXT_CREATED, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING}) {
    result = cuptiEnableCallback(1, subscription->subscriber, CUPTI_CB_DOMAIN_RESOURCE, cbid);
    if (result != CUPTI_SUCCESS) {
      (void)cuptiUnsubscribe(subscription->subscriber);
      return {result, "cuptiEnableCallback"};
    }
  }
  subscription_ = std::move(subscription);
  return {};
}

void RealCounterProfilerApi::unsubscribe() {
  if (subscription_ == nullptr) return;
  (void)cuptiUnsubscribe(subscription_->subscriber);
  subscription_.reset();
}

CounterCall RealCounterProfilerApi::deviceOf(CUcontext context, std::uint32_t* device) {
  const CUptiResult result = cuptiGetDeviceId(context, device);
  if (result != CUPTI_SUCCESS) return {result, "cuptiGetDeviceId"};
  return {};
}

CounterCall RealCounterProfilerApi::initializeProfiler() {
  AMPSCOPE_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params, params);
  AMPSCOPE_COUNTER_CALL(cuptiProfilerInitialize, params);
  return {};
}

void RealCounterProfilerApi::deinitializeProfiler() {
  AMPSCOPE_CUPTI_PARAMS(CUpti_Profiler_DeInitialize_Params, params);
  (void)cuptiProfilerDeInitialize(&params);
}

CounterCall RealCounterProfilerApi::chipName(std::uint32_t device, std::string* chip) {
  AMPSCOPE_CUPTI_PARAMS(CUpti_Device_GetChipName_Params, params);
  params.deviceIndex = device;
  AMPSCOPE_COUNTER_CALL(cuptiDeviceGetChipName, params);
  *chip = params.pChipName != nullptr ? params.pChipName : "";
  return {};
}

CounterCall RealCounterProfilerApi::pmCounterAvailability(std::uint32_t device, std::vector<std::uint8_t>* image) {
  // Asked twice: for the image's size, then for the image.
  AMPSCOPE_CUPTI_PARAMS(CUpti_PmSampling_GetCounterAvailability_Params, params);
  params.deviceIndex = device;
  AMPSCOPE_COUNTER_CALL(cuptiPmSamplingGetCounterAvailability, params);
  image->assign(params.counterAvailabilityImageSize, 0);
  params.pCounterAvailabilityImage = image->data();
  AMPSCOPE_COUNTER_CALL(cuptiPmSamplingGetCounterAvailability, params);
  return {};
}

CounterCall RealCounterProfilerApi::rangeCounterAvailability(CUcontext context, std::vector<std::uint8_t>* image) {
  AMPSCOPE_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params, params);
  params.ctx = context;
  AMPSCOPE_COUNTER_CALL(cuptiProfilerGetCounterAvailability, params);
  image->assign(params.counterAvailabilityImageSize, 0);
  params.pCounterAvailabilityImage = image->data();
  AMPSCOPE_COUNTER_CALL(cuptiProfilerGetCounterAvailability, params);
  return {};
}

CounterCall RealCounterProfilerApi::baseMetrics(CounterProfiler profiler, const std::string& chip,
                                                const std::vector<std::uint8_t>& availability,
                                                std::vector<std::string>* names) {
  HostObject host;
  if (CounterCall call = host.initialize(profiler, chip, availability); !call.ok()) return call;
  names->clear();
  for (CUpti_MetricType type : {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT}) {
    AMPSCOPE_CUPTI_PARAMS(CUpti_Profiler_Host_GetBaseMetrics_Params, params);
    params.pHostObject = host.get();
    params.metricType = type;
    AMPSCOPE_COUNTER_CALL(cuptiProfilerHostGetBaseMetrics, params);
    for (std::size_t i = 0; i < params.numMetrics; ++i) names->emplace_back(params.ppMetricNames[i]);
  }
  return {};
}

CounterCall RealCounterProfilerApi::passes(CounterProfiler profiler, const std::string& chip,
                                           const std::vector<std::uint8_t>& availability,
                                           const std::vector<std::string>& metrics, std::size_t* passes) {
  HostObject host;
  if (CounterCall call = host.initialize(profiler, chip, availability); !call.ok()) return call;
  const MetricNames names(metrics);
  std::vector<std::uint8_t> image;
  if (CounterCall call = host.configImage(names.pointers, &image); !call.ok()) return call;
  AMPSCOPE_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params, params);
  params.configImageSize = image.size();
  params.pConfigImage = image.data();
  AMPSCOPE_COUNTER_CALL(cuptiProfilerHostGetNumOfPasses, params);
  *passes = params.numOfPasses;
  return {};
}

CounterCall RealCounterProfilerApi::pmStart(const PmSamplingSetup& setup, CounterHandle* handle) {
  auto sampler = std::make_unique<PmSampler>(setup.metrics);
  if (CounterCall call = sampler->host.initialize(CounterProfiler::kPmSampling, setup.chip, setup.availability); !call.ok()) {
    return call;
  }
  if (CounterCall call = sampler->host.configImage(sampler->metrics.pointers, &sampler->config); !call.ok()) return call;
  AMPSCOPE_CUPTI_PARAMS(CUpti_PmSampling_Enable_Params, enable);
  enable.deviceIndex = setup.device;
  AMPSCOPE_COUNTER_CALL(cuptiPmSamplingEnable, enable);
  sampler->object = enable.pPmSamplingObject;
  // From here on the sampler is released (disabled) on any failure, through the map.
  const CounterHandle id = next_handle_++;
  PmSampler& s = *sampler;
  samplers_.emplace(id, std::move(sampler));
  const auto fail = [&](CounterCall call) {
    pmRelease(id);
    return call;
  };
  AMPSCOPE_CUPTI_PARAMS(CUpti_PmSampling_SetConfig_Params, config);
  config.pPmSamplingObject = s.object;
  config.configSize = s.config.size();
  config.pConfig = s.config.data();
  config.hardwareBufferSize = setup.hardware_buffer_bytes;
  config.samplingInterval = setup.interval;
  config.triggerMode = setup.time_trigger ? CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL
                                          : CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_SYSCLK_INTERVAL;
  // Oldest kept: an overflow is then reported (and counted) rather than silently overwritten.
  config.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
  if (CUptiResult r = cuptiPmSamplingSetConfig(&config); r != CUPTI_SUCCESS) return fail({r, "cuptiPmSamplingSetConfig"});
  AMPSCOPE_CUPTI_PARAMS(CUpti_PmSampling_GetCounterDataSize_Params, size);
  size.pPmSamplingObject = s.object;
  size.pMetricNames = const_cast<const char**>(s.metrics.pointers.data());
  size.numMetrics = s.metrics.pointers.size();
  size.maxSamples = setup.samples_per_decode;
  if (CUptiResult r = cuptiPmSamplingGetCounterDataSize(&size); r != CUPTI_SUCCESS) {
    return fail({r, "cuptiPmSamplingGetCounterDataSize"});
  }
  s.counter_data.assign(size.counterDataSize, 0);
  AMPSCOPE_CUPTI_PARAMS(CUpti_PmSampling_CounterDataImage_Initialize_Params, init);
  init.pPmSamplingObject = s.object;
  init.counterDataSize = s.counter_data.size();
  init.pCounterData = s.counter_data.data();
  if (CUptiResult r = cuptiPmSamplingCounterDataImageInitialize(&init); r != CUPTI_SUCCESS) {
    return fail({r, "cuptiPmSamplingCounterDataImageInitialize"});
  }
  AMPSCOPE_CUPTI_PARAMS(CUpti_PmSampling_Start_Params, start);
  start.pPmSamplingObject = s.object;
  if (CUptiResult r = cuptiPmSamplingStart(&start); r != CUPTI_SUCCESS) return fail({r, "cuptiPmSamplingStart"});
  *handle = id;
  return {};
}

CounterCall RealCounterProfilerApi::pmDecode(CounterHandle handle, PmDecode* decoded) {
  const auto found = samplers_.find(handle);
  if (found == samplers_.end()) return {CUPTI_ERROR_INVALID_PARAMETER, "pmDecode"};
  PmSampler& s = *found->second;
  AMPSCOPE_CUPTI_PARAMS(CUpti_PmSampling_DecodeData_Params, decode);
  decode.pPmSamplingObject = s.object;
  decode.pCounterDataImage = s.counter_data.data();
  decode.counterDataImageSize = s.counter_data.size();
  AMPSCOPE_COUNTER_CALL(cuptiPmSamplingDecodeData, decode);
  decoded->overflow = decode.overflow != 0;
  decoded->drained = decode.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS;
  AMPSCOPE_CUPTI_PARAMS(CUpti_PmSampling_GetCounterDataInfo_Params, info);
  info.pCounterDataImage = s.counter_data.data();
  info.counterDataImageSize = s.counter_data.size();
  AMPSCOPE_COUNTER_CALL(cuptiPmSamplingGetCounterDataInfo, info);
  decoded->samples.clear();
  decoded->samples.reserve(info.numCompletedSamples);
  for (std::size_t index = 0; index < info.numCompletedSamples; ++index) {
    AMPSCOPE_CUPTI_PARAMS(CUpti_PmSampling_CounterData_GetSampleInfo_Params, sample);
    sample.pPmSamplingObject = s.object;
    sample.pCounterDataImage = s.counter_data.data();
    sample.counterDataImageSize = s.counter_data.size();
    sample.sampleIndex = index;
    AMPSCOPE_COUNTER_CALL(cuptiPmSamplingCounterDataGetSampleInfo, sample);
    RawSample& out = decoded->samples.emplace_back();
    out.start = sample.startTimestamp;
    out.end = sample.endTimestamp;
    if (CounterCall call = s.host.evaluate(s.counter_data, index, s.metrics.pointers, &out.values); !call.ok()) return call;
  }
  // The image is emptied for the next decode; its samples were read.
  AMPSCOPE_CUPTI_PARAMS(CUpti_PmSampling_CounterDataImage_Initialize_Params, init);
  init.pPmSamplingObject = s.object;
  init.counterDataSize = s.counter_data.size();
  init.pCounterData = s.counter_data.data();
  AMPSCOPE_COUNTER_CALL(cuptiPmSamplingCounterDataImageInitialize, init);
  return {};
}

CounterCall RealCounterProfilerApi::pmStop(CounterHandle handle) {
  const auto found = samplers_.find(handle);
  if (found == samplers_.end()) return {CUPTI_ERROR_INVALID_PARAMETER, "pmStop"};
  AMPSCOPE_CUPTI_PARAMS(CUpti_PmSampling_Stop_Params, params);
  params.pPmSamplingObject = found->second->object;
  AMPSCOPE_COUNTER_CALL(cuptiPmSamplingStop, params);
  return {};
}

void RealCounterProfilerApi::pmRelease(CounterHandle handle) {
  const auto found = samplers_.find(handle);
  if (found == samplers_.end()) return;
  if (found->second->object != nullptr) {
    AMPSCOPE_CUPTI_PARAMS(CUpti_PmSampling_Disable_Params, params);
    params.pPmSamplingObject = found->second->object;
    (void)cuptiPmSamplingDisable(&params);
  }
  samplers_.erase(found);  // the host object deinitialises with it
}

CounterCall RealCounterProfilerApi::rangeStart(const RangeProfilerSetup& setup, CounterHandle* handle) {
  auto profiler = std::make_unique<RangeProfiler>(setup.metrics);
  profiler->max_ranges = setup.max_ranges;
  if (CounterCall call = profiler->host.initialize(CounterProfiler::kRangeProfiler, setup.chip, setup.availability);
      !call.ok()) {
    return call;
  }
  if (CounterCall call = profiler->host.configImage(profiler->metrics.pointers, &profiler->config); !call.ok()) return call;
  AMPSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params, enable);
  enable.ctx = setup.context;
  AMPSCOPE_COUNTER_CALL(cuptiRangeProfilerEnable, enable);
  profiler->object = enable.pRangeProfilerObject;
  const CounterHandle id = next_handle_++;
  RangeProfiler& p = *profiler;
  profilers_.emplace(id, std::move(profiler));
  AMPSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, size);
  size.pRangeProfilerObject = p.object;
  size.pMetricNames = const_cast<const char**>(p.metrics.pointers.data());
  size.numMetrics = p.metrics.pointers.size();
  size.maxNumOfRanges = p.max_ranges;
  size.maxNumRangeTreeNodes = static_cast<std::uint32_t>(p.max_ranges);
  if (CUptiResult r = cuptiRangeProfilerGetCounterDataSize(&size); r != CUPTI_SUCCESS) {
    rangeRelease(id);
    return {r, "cuptiRangeProfilerGetCounterDataSize"};
  }
  p.counter_data.assign(size.counterDataSize, 0);
  // Restarting with restart = true runs what a collection does after it: image, config, start.
  RangeCollection nothing;
  if (CounterCall call = rangeCollect(id, true, &nothing); !call.ok()) {
    rangeRelease(id);
    return call;
  }
  *handle = id;
  return {};
}

CounterCall RealCounterProfilerApi::rangeCollect(CounterHandle handle, bool restart, RangeCollection* collected) {
  const auto found = profilers_.find(handle);
  if (found == profilers_.end()) return {CUPTI_ERROR_INVALID_PARAMETER, "rangeCollect"};
  RangeProfiler& p = *found->second;
  if (p.started) {
    AMPSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params, stop);
    stop.pRangeProfilerObject = p.object;
    p.started = false;
    AMPSCOPE_COUNTER_CALL(cuptiRangeProfilerStop, stop);
    AMPSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params, decode);
    decode.pRangeProfilerObject = p.object;
    AMPSCOPE_COUNTER_CALL(cuptiRangeProfilerDecodeData, decode);
    collected->dropped += decode.numOfRangeDropped;
    AMPSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, info);
    info.pCounterDataImage = p.counter_data.data();
    info.counterDataImageSize = p.counter_data.size();
    AMPSCOPE_COUNTER_CALL(cuptiRangeProfilerGetCounterDataInfo, info);
    for (std::size_t index = 0; index < info.numTotalRanges; ++index) {
      RawRange range;
      AMPSCOPE_CUPTI_PARAMS(CUpti_Profiler_Host_GetRangeName_Params, name);
      name.pCounterDataImage = p.counter_data.data();
      name.counterDataImageSize = p.counter_data.size();
      name.rangeIndex = index;
      name.delimiter = "/";
      if (cuptiProfilerHostGetRangeName(&name) == CUPTI_SUCCESS && name.pRangeName != nullptr) {
        range.name = name.pRangeName;
        std::free(const_cast<char*>(name.pRangeName));  // the caller's to free, says cupti_profiler_host.h
      }
      if (CounterCall call = p.host.evaluate(p.counter_data, index, p.metrics.pointers, &range.values); !call.ok()) {
        // Not evaluated, this range and those after it: counted as lost, never stored as zeros.
        collected->dropped += info.numTotalRanges - index;
        return call;
      }
      collected->ranges.push_back(std::move(range));
    }
  }
  if (!restart) return {};
  AMPSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, init);
  init.pRangeProfilerObject = p.object;
  init.counterDataSize = p.counter_data.size();
  init.pCounterData = p.counter_data.data();
  AMPSCOPE_COUNTER_CALL(cuptiRangeProfilerCounterDataImageInitialize, init);
  AMPSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params, config);
  config.pRangeProfilerObject = p.object;
  config.configSize = p.config.size();
  config.pConfig = p.config.data();
  config.counterDataImageSize = p.counter_data.size();
  config.pCounterDataImage = p.counter_data.data();
  config.range = CUPTI_AutoRange;          // a range per kernel launch
  config.replayMode = CUPTI_KernelReplay;  // each kernel replayed for each pass, alone on the GPU
  config.maxRangesPerPass = p.max_ranges;
  config.numNestingLevels = 1;
  config.minNestingLevel = 1;
  config.passIndex = 0;
  config.targetNestingLevel = 1;
  AMPSCOPE_COUNTER_CALL(cuptiRangeProfilerSetConfig, config);
  AMPSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params, start);
  start.pRangeProfilerObject = p.object;
  AMPSCOPE_COUNTER_CALL(cuptiRangeProfilerStart, start);
  p.started = true;
  return {};
}

void RealCounterProfilerApi::rangeRelease(CounterHandle handle) {
  const auto found = profilers_.find(handle);
  if (found == profilers_.end()) return;
  if (found->second->started) {
    AMPSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params, stop);
    stop.pRangeProfilerObject = found->second->object;
    (void)cuptiRangeProfilerStop(&stop);
  }
  if (found->second->object != nullptr) {
    AMPSCOPE_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params, params);
    params.pRangeProfilerObject = found->second->object;
    (void)cuptiRangeProfilerDisable(&params);
  }
  profilers_.erase(found);
}

std::uint64_t RealCounterProfilerApi::timestamp() {
  std::uint64_t now = 0;
  if (cuptiGetTimestamp(&now) != CUPTI_SUCCESS) return 0;
  return now;
}

std::string RealCounterProfilerApi::resultString(CUptiResult result) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) {
    return "CUPTI result " + std::to_string(static_cast<int>(result));
  }
  return text;
}

}  // namespace ampscope::collector
