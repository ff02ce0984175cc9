#pragma once
// The tensor pipe's busy share as device-wide samples tell it (CUPTI PM sampling, Nsight Systems'
// GPU metrics): for each kernel, the samples' share over the time it ran; and, for each kernel
// name, the share over the samples that name alone filled. A sample is the whole device over its
// period: it cannot tell apart two kernels that ran in it, so only samples one name filled
// (kPureSampleShare of the period, others under 1 - that) give a name its verdict.
// docs/hardware_counters.md, "Sampled counters".

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace/trace_model.h"

namespace ampscope::analyzer {

inline constexpr double kPureSampleShare = 0.95;

struct SampledNameShare {
  double busy_weighted_ns = 0.0;  // share x time over its pure samples
  std::int64_t pure_ns = 0;       // the pure samples' time

  double share() const { return pure_ns > 0 ? busy_weighted_ns / static_cast<double>(pure_ns) : 0.0; }
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
