#include "cli/summary_text.h"

#include <fmt/format.h>

#include "reports/report_file.h"

namespace ampscope::cli {

using reports::formatDuration;

namespace {

std::string percent(std::uint64_t part, std::uint64_t whole) {
  if (whole == 0) return "-";
  return fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

std::string shorten(const std::string& name, std::size_t width) {
  if (name.size() <= width) return name;
  return name.substr(0, width - 3) + "...";
}

void appendGroups(std::string& out, const char* title, const std::vector<analyzer::GroupTime>& groups,
                  std::int64_t total_ns) {
  if (groups.empty()) return;
  out += fmt::format("\n{}\n", title);
  out += fmt::format("  {:>11} {:>6} {:>7}  {:<9} {}\n", "GPU time", "share", "kernels", "phase", "name");
  for (const analyzer::GroupTime& group : groups) {
    out += fmt::format("  {:>11} {:>6} {:>7}  {:<9} {}\n", formatDuration(group.gpu_time_ns),
                       percent(static_cast<std::uint64_t>(group.gpu_time_ns), static_cast<std::uint64_t>(total_ns)),
                       group.kernels, group.phase, shorten(group.name, 80));
    for (std::size_t i = 0; i < group.top_kernels.size() && i < 3; ++i) {
      const analyzer::KernelTime& kernel = group.top_kernels[i];
      const std::string verdict = kernel.verdict.tensor_core
                                      ? fmt::format("TC {}", analyzer::precisionName(kernel.verdict.precision))
                                      : "";
      out += fmt::format("  {:>11} {:>6} {:>7}  {:<9}   {}\n", formatDuration(kernel.time_ns), "",
                         kernel.calls, verdict, shorten(kernel.name, 78));
    }
  }
}

void appendShapeChecks(std::string& out, const std::vector<analyzer::ShapeCheck>& checks) {
  if (checks.empty()) return;
  out += "\nMatrix ops by GPU time: GEMM shape, precision, dimensions off the precision's multiple\n";
  for (const analyzer::ShapeCheck& c : checks) {
    std::string findings;
    for (const analyzer::DimensionFinding& f : c.misaligned) {
      findings += fmt::format(" {} {}->{}", f.dimension, f.value, f.padded);
    }
    if (!findings.empty() && c.smallest_kernel_alignment > 0 && c.smallest_kernel_alignment < c.required_multiple) {
      findings += fmt::format(" (align{} kernels)", c.smallest_kernel_alignment);
    }
    out += fmt::format("  {:>11}  {:<10} M={} N={} K={}{}  {}{}\n", formatDuration(c.gpu_time_ns),
                       analyzer::precisionName(c.precision), c.dims.m, c.dims.n, c.dims.k,
                       c.dims.batch > 1 ? fmt::format(" x{}", c.dims.batch) : "", shorten(c.op, 40),
                       findings.empty() ? "" : fmt::format("  multiple of {}:{}", c.required_multiple, findings));
  }
}

}  // namespace

std::string summaryToText(const analyzer::TraceSummary& s,
                          const std::vector<analyzer::Recommendation>& recommendations) {
  const analyzer::CorrelationCounts& c = s.correlation;
  std::string out;
  out += fmt::format("format      {} ({})\n", s.format, s.format_detail);
  for (const analyzer::DeviceSummary& device : s.devices) {
    if (device.kernels == 0 && s.devices.size() > 1) continue;
    out += fmt::format("device {:<4} {}{}{}: {} kernels, {}\n", device.id,
                       device.name.empty() ? "(unnamed)" : device.name,
                       device.compute_capability.empty() ? "" : ", compute " + device.compute_capability,
                       device.sm_count ? fmt::format(", {} SMs", device.sm_count) : "",
                       device.kernels, formatDuration(device.kernel_time_ns));
  }
  out += fmt::format("span        {} of trace; GPU busy {}, kernel time {} (summed over streams)\n",
                     formatDuration(s.trace_span_ns), formatDuration(s.gpu_busy_ns),
                     formatDuration(s.gpu_kernel_time_ns));
  out += fmt::format("kernels     {}: {} linked to a launch call ({}), {} attributed to an operator ({})\n",
                     c.kernels, c.kernels_linked_to_launch, percent(c.kernels_linked_to_launch, c.kernels),
                     c.kernels_attributed_to_op, percent(c.kernels_attributed_to_op, c.kernels));
  out += fmt::format("memory ops  {} ({} linked), memcpy time {}\n", c.memory_ops,
                     c.memory_ops_linked_to_launch, formatDuration(s.memcpy_time_ns));
  out += fmt::format("host        {} threads, {} ranges/operators, {} API calls ({} inside an operator)\n",
                     s.threads, s.ranges, c.launches, c.launches_in_op);
  if (c.backward_ranges_linked_to_forward > 0) {
    out += fmt::format("autograd    {} backward ops linked to their forward op by sequence number\n",
                       c.backward_ranges_linked_to_forward);
  }
  std::string precisions;
  for (const auto& [precision, ns] : s.tensor_cores.by_precision) {
    precisions += fmt::format("{}{} {}", precisions.empty() ? "" : ", ", precision, formatDuration(ns));
  }
  out += fmt::format("tensor core {} of kernel time ({:.1f}%){}\n", formatDuration(s.tensor_cores.time_ns),
                     100.0 * s.tensor_cores.fraction, precisions.empty() ? "" : ": " + precisions);
  const analyzer::IterationSummary& it = s.iterations;
  if (it.iterations.empty()) {
    out += fmt::format("iterations  {}\n", it.source);
  } else {
    out += fmt::format("iterations  {} from {} ({} warm-up): steady step {} ± {}\n", it.iterations.size(),
                       it.source, it.warmup_count, formatDuration(it.steady_mean_ns),
                       formatDuration(it.steady_stddev_ns));
    const analyzer::DataPipelineExposure& dp = s.data_pipeline;
    out += fmt::format("data        {} per step loading while the GPU idles ({:.1f}% of the step; the "
                       "loader itself runs {}); hidden, the step would be {:.2f}x faster\n",
                       formatDuration(dp.exposed_ns_per_iteration), 100.0 * dp.exposed_fraction,
                       formatDuration(dp.loader_ns_per_iteration), dp.speedup_if_hidden);
    if (dp.replay_if_hidden.done) {
      out += fmt::format("            replayed with the host's recorded launch times: {:.2f}x\n",
                         dp.replay_if_hidden.speedup);
    }
    if (dp.pageable_h2d_copies > 0) {
      out += fmt::format("            {} per step in {} host-to-device copies from pageable memory\n",
                         formatDuration(dp.pageable_h2d_ns_per_iteration), dp.pageable_h2d_copies);
    }
  }
  if (!s.amdahl.parts.empty()) {
    out += fmt::format("AMP         projected step speedup {:.2f}x on {} figures; ceiling {:.2f}x "
                       "(even infinitely fast math)\n", s.amdahl.projected_speedup, s.amdahl.device.name,
                       s.amdahl.ceiling);
    for (const analyzer::StepPart& part : s.amdahl.parts) {
      out += fmt::format("            {:>11} {:>5.1f}%  x{:<5.2f} {}\n", formatDuration(part.ns_per_step),
                         100.0 * part.fraction, part.speedup, part.name);
    }
    const analyzer::StepReplay& replay = s.amdahl.replay;
    if (replay.done) {
      out += fmt::format("            replayed with the host's recorded launch times: {:.2f}x, ceiling {:.2f}x "
                         "(the replay as recorded: {} for {} recorded)\n", replay.speedup,
                         s.amdahl.replay_ceiling.speedup, formatDuration(replay.baseline_ns),
                         formatDuration(replay.original_ns));
    } else if (!replay.note.empty()) {
      out += fmt::format("            no replay: {}\n", replay.note);
    }
  } else if (!s.amdahl.note.empty()) {
    out += fmt::format("AMP         no projection: {}\n", s.amdahl.note);
  }
  if (!recommendations.empty()) {
    out += "\nRecommendations, by estimated gain per step\n";
    for (std::size_t i = 0; i < recommendations.size() && i < 8; ++i) {
      const analyzer::Recommendation& r = recommendations[i];
      out += fmt::format("  {:>6}  {:>5.1f}%  {:<22} {}\n          {}\n          -> {}\n",
                         analyzer::severityName(r.severity), r.estimated_gain_pct, r.rule, r.target, r.evidence,
                         r.action);
    }
    if (recommendations.size() > 8) {
      out += fmt::format("  ... {} more in --json\n", recommendations.size() - 8);
    }
  }
  appendGroups(out, "Top operators by GPU time (kernels under each top-level operator)", s.top_operators,
               s.gpu_kernel_time_ns);
  appendGroups(out, "Top layers by GPU time", s.top_layers, s.gpu_kernel_time_ns);
  appendShapeChecks(out, s.shape_checks);

  const trace::ImportStats& stats = s.import_stats;
  out += fmt::format("\nimport      {} events read, {} imported\n", stats.events_read, stats.events_imported);
  for (const auto& [what, count] : stats.skipped) out += fmt::format("  skipped        {:>8}  {}\n", count, what);
  for (const auto& [what, count] : stats.not_understood) out += fmt::format("  NOT understood {:>8}  {}\n", count, what);
  if (stats.gpu_records_without_launch > 0) {
    out += fmt::format("  kept           {:>8}  GPU records without a launch call in the trace\n",
                       stats.gpu_records_without_launch);
  }
  if (stats.dropped_by_collector > 0) {
    out += fmt::format("  LOST           {:>8}  records the recording tool dropped\n", stats.dropped_by_collector);
  }
  return out;
}

}  // namespace ampscope::cli
