#pragma once
// A GPU run built op by op in a test: each op is an operator range on the main thread holding one
// launch, whose kernel runs for the given time right after it. Summarised as an import would be.

#include <algorithm>
#include <cstdint>
#include <string>

#include "analyzer/core/analysis_options.h"
#include "analyzer/summary/trace_summary.h"
#include "imported_trace.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

inline constexpr std::int64_t kUs = 1000;

class GpuTraceBuilder {
 public:
  explicit GpuTraceBuilder(const char* device_name) {
    trace_.format = trace::TraceFormat::kKineto;
    trace::Device gpu;
    gpu.name = trace_.strings.intern(device_name);
    trace_.devices.push_back(gpu);
    thread_ = trace_.threadIndex(1, 1);
  }

  GpuTraceBuilder& op(const std::string& name, const std::string& shapes, const std::string& dtypes,
                      const std::string& kernel, std::int64_t kernel_ns, trace::Phase phase = trace::Phase::kUnknown) {
    trace::Range r;
    r.start_ns = now_;
    r.end_ns = now_ + 10 * kUs;
    r.name = trace_.strings.intern(name);
    r.thread = thread_;
    r.kind = trace::RangeKind::kOperator;
    r.phase = phase;
    r.shapes = trace_.strings.intern(shapes);
    r.dtypes = trace_.strings.intern(dtypes);
    trace_.ranges.push_back(r);
    trace::LaunchCall launch;
    launch.start_ns = now_ + 2 * kUs;
    launch.end_ns = now_ + 4 * kUs;
    launch.correlation_id = ++correlation_;
    launch.name = trace_.strings.intern("cudaLaunchKernel");
    launch.thread = thread_;
    trace_.launches.push_back(launch);
    trace::Kernel k;
    k.start_ns = gpu_now_ = std::max(gpu_now_, now_ + 5 * kUs);
    k.end_ns = gpu_now_ += kernel_ns;
    k.correlation_id = correlation_;
    k.name = trace_.strings.intern(kernel);
    trace_.kernels.push_back(k);
    now_ += 20 * kUs;
    return *this;
  }

  // Another kernel launched from the last op (a second launch inside its range), right after
  // the GPU's previous work.
  GpuTraceBuilder& alsoKernel(const std::string& kernel, std::int64_t kernel_ns) {
    const trace::Range& op = trace_.ranges.back();
    trace::LaunchCall launch;
    launch.start_ns = op.start_ns + 6 * kUs;
    launch.end_ns = op.start_ns + 8 * kUs;
    launch.correlation_id = ++correlation_;
    launch.name = trace_.strings.intern("cudaLaunchKernel");
    launch.thread = thread_;
    trace_.launches.push_back(launch);
    trace::Kernel k;
    k.start_ns = gpu_now_ = std::max(gpu_now_, launch.end_ns + kUs);
    k.end_ns = gpu_now_ += kernel_ns;
    k.correlation_id = correlation_;
    k.name = trace_.strings.intern(kernel);
    trace_.kernels.push_back(k);
    return *this;
  }

  TraceSummary summary(const AnalysisOptions& options = {}) {
    trace_.sortByTime();
    const CorrelationCounts counts = test::correlateAsImported(trace_);
    return summarizeTrace(trace_, counts, options);
  }

 private:
  trace::Trace trace_;
  trace::Index thread_ = trace::kNone;
  std::int64_t now_ = 0;
  std::int64_t gpu_now_ = 0;
  std::uint64_t correlation_ = 0;
};

}  // namespace ampscope::analyzer
