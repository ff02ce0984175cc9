#pragma once
// The tensor pipe's busy share as device-wide samples tell it (CUPTI PM sampling, Nsight Systems'
// GPU metrics): for each kernel, the samples' share over the time it ran; and, for each kernel
// name, the share over the samples it had to itself. A sample is the whole device over its period:
// it cannot tell apart two kernels that ran in it, so only samples where the name ran at least
// kSampleNameAtLeast of the period and other kernels at most kSampleOthersAtMost give the name its
// verdict; an idle GPU adds nothing to the tensor pipe, so such a sample's busy time is the name's.
// docs/hardware_counters.md, "Samples".

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace/trace_model.h"

namespace ampscope::analyzer {

inline constexpr double kSampleNameAtLeast = 0.25;
inline constexpr double kSampleOthersAtMost = 0.01;

struct SampledNameShare {
  double busy_ns = 0.0;          // the tensor pipe's busy time in the name's own samples (share x period)
  std::int64_t name_ns = 0;      // the name's kernel time in them
  std::int64_t period_ns = 0;    // their periods

  // The pipe's busy share over the name's kernel time, at most 1.
  double share() const { return name_ns > 0 ? std::min(1.0, busy_ns / static_cast<double>(name_ns)) : 0.0; }
  // The samples' own reading, over their periods: what the counter showed, idle time included.
  double reading() const { return period_ns > 0 ? busy_ns / static_cast<double>(period_ns) : 0.0; }
};

struct SampledTensorActivity {
  // Per trace kernel: the samples' busy share over its run, NaN where no tensor sample covers it.
  std::vector<float> share_by_kernel;
  std::unordered_map<trace::StringId, SampledNameShare> by_name;  // GPU kernel names with pure samples
  std::vector<std::string> metrics;  // the tensor metrics read, per device as chosen
};

// Per device, the whole tensor pipe's busy share where a metric gives it; otherwise its ops'
// (HMMA, IMMA, DMMA, GMMA) shares added up. Metrics of unknown meaning or unit are not read.
SampledTensorActivity measureSampledTensorActivity(const trace::Trace& trace);

}  // namespace ampscope::analyzer
