#include "analyzer/correlate/kernel_metric_links.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "analyzer/correlate/launch_lookup.h"

namespace ampscope::analyzer {
namespace {

using trace::Index;
using trace::kNone;

std::size_t at(Index index) { return static_cast<std::size_t>(index); }

// Runtime names carry a version suffix in some files ("cudaLaunchKernel_v7000").
std::string_view withoutVersion(std::string_view name) {
  const std::size_t suffix = name.find("_v");
  return suffix == std::string_view::npos ? name : name.substr(0, suffix);
}

void linkByCorrelation(trace::KernelMetrics& range, const LaunchLookup& launches,
                       const std::unordered_map<Index, Index>& kernel_of_launch) {
  range.launch = launches.find(range.pid, range.correlation_id);
  if (range.launch == kNone) return;
  const auto kernel = kernel_of_launch.find(range.launch);
  if (kernel != kernel_of_launch.end()) range.kernel = kernel->second;
}

// The kernel of the same name on the same device running at the range's midpoint. Kernels are
// sorted by start: the walk goes back from the last one started by the midpoint, as far as the
// longest kernel of the trace reaches.
Index kernelAtTime(const trace::Trace& trace, const trace::KernelMetrics& range, std::int64_t longest_ns) {
  const std::int64_t middle = range.start_ns + (range.end_ns - range.start_ns) / 2;
  auto first_after = std::upper_bound(trace.kernels.begin(), trace.kernels.end(), middle,
                                      [](std::int64_t t, const trace::Kernel& k) { return t < k.start_ns; });
  for (auto it = first_after; it != trace.kernels.begin();) {
    --it;
    if (middle - it->start_ns > longest_ns) break;
    if (it->device != range.device || it->end_ns < middle) continue;
    if (range.kernel_name == trace::StringTable::kEmpty || it->name == range.kernel_name) {
      return static_cast<Index>(it - trace.kernels.begin());
    }
  }
  return kNone;
}

}  // namespace

bool launchesOneKernel(std::string_view api_name) {
  const std::string_view name = withoutVersion(api_name);
  return name == "cudaLaunchKernel" || name == "cudaLaunchKernelExC" || name == "__cudaLaunchKernel" ||
         name == "cudaLaunchCooperativeKernel" || name == "cuLaunchKernel" || name == "cuLaunchKernelEx" ||
         name == "cuLaunchCooperativeKernel" || name == "cudaLaunch" || name == "cudaLaunchKernel_ptsz" ||
         name == "cudaLaunchKernelExC_ptsz" || name == "cuLaunchKernel_ptsz" || name == "cuLaunchKernelEx_ptsz";
}

bool launchesGraph(std::string_view api_name) {
  const std::string_view name = withoutVersion(api_name);
  return name.find("GraphLaunch") != std::string_view::npos;
}

std::uint64_t linkKernelMetrics(trace::Trace& trace) {
  if (trace.kernel_metrics.empty()) return 0;
  std::unordered_map<Index, Index> kernel_of_launch;
  for (std::size_t k = 0; k < trace.kernels.size(); ++k) {
    if (trace.kernels[k].launch != kNone) kernel_of_launch.emplace(trace.kernels[k].launch, static_cast<Index>(k));
  }
  const LaunchLookup launches(trace);
  std::int64_t longest_ns = 0;
  for (const trace::Kernel& kernel : trace.kernels) longest_ns = std::max(longest_ns, kernel.end_ns - kernel.start_ns);
  // The ranges to match by order, and the kernel launches (and graph launches) of each process.
  std::map<std::int64_t, std::vector<std::size_t>> ordered_ranges;
  for (std::size_t r = 0; r < trace.kernel_metrics.size(); ++r) {
    trace::KernelMetrics& range = trace.kernel_metrics[r];
    range.launch = kNone;
    range.kernel = kNone;
    if (range.correlation_id != 0) linkByCorrelation(range, launches, kernel_of_launch);
    else if (!range.times_measured) ordered_ranges[range.pid].push_back(r);
    else range.kernel = kernelAtTime(trace, range, longest_ns);
    if (range.kernel != kNone && range.launch == kNone) range.launch = trace.kernels[at(range.kernel)].launch;
  }
  for (const auto& [pid, ranges] : ordered_ranges) {
    // Launch calls do not say their device: a process's ranges of several devices cannot be
    // put in one launch order.
    const std::uint32_t device = trace.kernel_metrics[ranges.front()].device;
    const bool one_device = std::all_of(ranges.begin(), ranges.end(),
                                        [&](std::size_t r) { return trace.kernel_metrics[r].device == device; });
    std::vector<Index> kernel_launches;
    std::uint64_t graph_launches = 0;
    for (std::size_t l = 0; l < trace.launches.size(); ++l) {
      const trace::LaunchCall& launch = trace.launches[l];
      if (pid != trace::kUnknownPid && trace.pidOfThread(launch.thread) != pid) continue;
      const std::string_view name = trace.str(launch.name);
      if (launchesOneKernel(name)) kernel_launches.push_back(static_cast<Index>(l));
      else if (launchesGraph(name)) ++graph_launches;
    }
    if (!one_device || graph_launches > 0 || kernel_launches.size() != ranges.size()) {
      const std::string place =
          fmt::format("{} profiled ranges{} for {} kernel launch calls and {} graph launches of process {}",
                      ranges.size(), one_device ? "" : " of several devices", kernel_launches.size(), graph_launches,
                      pid);
      for (std::size_t i = 0; i < ranges.size(); ++i) {
        trace.import_stats.notUnderstood("profiled range without times not matched: the launches do not pair with the ranges", place);
      }
      continue;
    }
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      trace::KernelMetrics& range = trace.kernel_metrics[ranges[i]];
      range.launch = kernel_launches[i];
      const auto kernel = kernel_of_launch.find(range.launch);
      if (kernel != kernel_of_launch.end()) range.kernel = kernel->second;
    }
  }
  std::uint64_t matched = 0;
  for (const trace::KernelMetrics& range : trace.kernel_metrics) {
    if (range.launch != kNone || range.kernel != kNone) {
      ++matched;
    } else if (range.correlation_id != 0 || range.times_measured) {
      trace.import_stats.notUnderstood(
          "profiled range not matched to a kernel",
          fmt::format("the range of kernel '{}' at {} ns", trace.str(range.kernel_name), range.start_ns));
    }
  }
  return matched;
}

}  // namespace ampscope::analyzer
