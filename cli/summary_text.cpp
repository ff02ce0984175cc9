#include "cli/summary_text.h"

#include <algorithm>

#include <span>
#include <string_view>

#include <fmt/format.h>

#include "cli/counters_text.h"
#include "cli/memory_text.h"
#include "reports/job_rows.h"
#include "reports/layer_pass_view.h"
#include "reports/report_file.h"
#include "reports/report_rows.h"
#include "reports/verdict_words.h"
#include "reports/view_limits.h"

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

void appendGroups(std::string& out, const std::string& title, std::span<const analyzer::GroupTime> groups,
                  std::int64_t total_ns, bool on_cpu) {
  if (groups.empty()) return;
  out += fmt::format("\n{}\n", title);
  out += fmt::format("  {:>11} {:>6} {:>7}  {:<9} {}\n", on_cpu ? "CPU time" : "GPU time", "share",
                     on_cpu ? "ops" : "kernels", "phase", "name");
  for (const analyzer::GroupTime& group : groups) {
    out += fmt::format("  {:>11} {:>6} {:>7}  {:<9} {}\n", formatDuration(group.gpu_time_ns),
                       percent(static_cast<std::uint64_t>(group.gpu_time_ns), static_cast<std::uint64_t>(total_ns)),
                       group.kernels, group.phase, shorten(group.name, 80));
    for (const analyzer::KernelTime& kernel : reports::firstN(group.kernel_times, 3)) {
      out += fmt::format("  {:>11} {:>6} {:>7}  {:<9}   {}\n", formatDuration(kernel.time_ns), "",
                         kernel.calls, reports::tensorCoreBrief(kernel.verdict), shorten(kernel.name, 78));
    }
  }
}

void appendShapeChecks(std::string& out, std::span<const analyzer::ShapeCheck> checks, bool on_cpu) {
  if (checks.empty()) return;
  out += on_cpu ? "\nMatrix ops by CPU time: GEMM shape, precision, dimensions off the multiple a GPU's Tensor "
                  "Cores want\n"
                : "\nMatrix ops by GPU time: GEMM shape, precision, dimensions off the precision's multiple\n";
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
                       c.dims.batch > 1 ? fmt::format(" x{}", c.dims.batch) : "",
                       shorten(c.op, 40) + reports::leadingDimensionsText(c.dims),
                       findings.empty() ? "" : fmt::format("  multiple of {}:{}", c.required_multiple, findings));
  }
}

// The passes of the top layers (by GPU time), in model order.
void appendLayerPasses(std::string& out, const analyzer::TraceSummary& s, std::size_t top, bool on_cpu) {
  const reports::LayerPassView view = reports::layerPassView(s, top);
  if (view.rows.empty()) return;
  out += fmt::format("\nLayers by pass ({} of the ops {} ran, in model order)\n",
                     on_cpu ? "host time" : "GPU time", view.scope);
  out += fmt::format("  {:<16} {:<9} {:>7} {:>11} {:>11}\n", "layer", "pass", "calls", "time", "per call");
  for (const analyzer::LayerRow* p : view.rows) {
    const std::int64_t per_call = p->calls > 0 ? p->time_ns / static_cast<std::int64_t>(p->calls) : 0;
    out += fmt::format("  {:<16} {:<9} {:>7} {:>11} {:>11}\n", shorten(p->layer, 16), trace::phaseName(p->pass), p->calls,
                       formatDuration(p->time_ns), formatDuration(per_call));
  }
}

std::string share(double fraction) { return fmt::format("{:.3f}%", 100.0 * fraction); }

// " (rank 3 of 8)", " (rank 3)" where the trace gives no world size, or nothing.
std::string distributedText(const trace::DistributedInfo& job) {
  if (!job.rankKnown()) return {};
  return job.worldSizeKnown() ? fmt::format(" (rank {} of {})", job.rank, job.world_size) : fmt::format(" (rank {})", job.rank);
}

void appendAmpNumerics(std::string& out, const analyzer::AmpNumerics& n) {
  if (!n.recorded) return;
  out += fmt::format("\nAMP numerics (the trainer's counters{})\n",
                     n.steps > 0 ? fmt::format(", {} steps, {} to {}", n.steps, n.first_step, n.last_step) : "");
  if (n.has_loss) {
    out += fmt::format("  loss        {:.4g} at step {} -> {:.4g} at step {}\n", n.loss_first, n.loss_first_step,
                       n.loss_last, n.loss_last_step);
  }
  if (n.loss_scale_samples > 0) {
    out += fmt::format("  loss scale  {}; min {}, max {}, final {}\n", analyzer::formatLossScaleHistory(n.loss_scale_changes), n.loss_scale_min,
                       n.loss_scale_max, n.loss_scale_final);
  }
  if (n.counted_steps > 0) {
    out += fmt::format("  skipped     {} of {} steps{}\n", n.skipped_steps, n.counted_steps,
                       n.skipped.empty() ? "" : ": " + analyzer::formatStepRuns(n.skipped));
  }
  if (!n.tensors.empty()) {
    out += fmt::format("  gradients   share of values FP16 rounds to zero at the recorded scale, and of zeros "
                       "(all steps; {})\n", analyzer::recentStepsText(n));
    out += fmt::format("    {:<22} {:>12} {:>10} {:>10} {:>9} {:>9} {:>10}\n", "tensor", "values", "underflow",
                       "(last)", "zero", "(last)", "non-finite");
    for (const analyzer::TensorNumerics& t : n.tensors) {
      out += fmt::format("    {:<22} {:>12} {:>10} {:>10} {:>9} {:>9} {:>10}\n", shorten(t.tensor, 22), t.all.values,
                         share(t.all.underflowShare()), share(t.recent.underflowShare()), share(t.all.zeroShare()),
                         share(t.recent.zeroShare()), t.all.non_finite);
    }
  }
  if (n.suggested_loss_scale > 0) {
    out += fmt::format("  headroom    the largest recorded gradient fits FP16 up to a loss scale of {}\n",
                       n.suggested_loss_scale);
  }
}

// Which device table row the rates and the projection use, and why; or how to name one.
void appendDeviceRow(std::string& out, const analyzer::TraceSummary& s) {
  if (s.recorded_on_cpu) {
    const analyzer::DeviceChoice& target = s.what_if.device;
    out += target.spec ? fmt::format("device      none: recorded on the CPU; what-if on {}: {}\n", target.spec->name, target.reason)
                       : "device      none: recorded on the CPU\n";
    return;
  }
  if (s.device.spec) {
    // A derived spec is no row of the table: its reason says what it was derived from.
    const char* what = s.device.basis == analyzer::DeviceBasis::kDerived ? ", peaks derived" : " row";
    out += fmt::format("device      {}{}: {}\n", s.device.spec->name, what, s.device.reason);
    return;
  }
  if (s.device.basis == analyzer::DeviceBasis::kAmdGpu) {
    // --gpu names an NVIDIA row: no help for an AMD GPU's own figures.
    out += fmt::format("device      AMD GPU, no row: {}\n", s.device.reason);
    return;
  }
  out += fmt::format("device      unknown — {}\n            {}\n", reports::kDeviceUnknownHint, s.device.reason);
}

void appendModelFlopUtilisation(std::string& out, const analyzer::TraceSummary& s) {
  const analyzer::OpPerformance& ops = s.op_performance;
  if (ops.model_flop_utilisation) {
    out += fmt::format("MFU         {} of {} ({} {}; FLOPs known for {} of matrix time)\n",
                       reports::formatPercent(*ops.model_flop_utilisation), reports::utilisationPeak(ops),
                       reports::formatFlops(ops.flops_per_step), reports::performanceScope(ops),
                       reports::formatPercent(ops.matrix_time_with_known_flops));
  } else if (s.recorded_on_cpu) {
    out += ops.flops_per_step > 0 ? fmt::format("MFU         n/a on the CPU ({} per step of known work)\n",
                                                reports::formatFlops(ops.flops_per_step))
                                  : "MFU         n/a on the CPU\n";
  } else if (!s.device.spec) {
    out += "MFU         unknown: the device is unknown\n";
  } else {
    out += fmt::format("MFU         unknown: {}\n", ops.note.empty() ? "no op's FLOPs are known" : ops.note);
  }
}

// The what-if device's step, compact: the note and the per-layer estimates are in the report.
void appendWhatIf(std::string& out, const analyzer::TraceSummary& s) {
  const analyzer::WhatIfProjection& w = s.what_if;
  if (!w.device.spec) return;
  out += fmt::format("what-if     on {}, model estimates of one step's GPU work (host, data loading and launch gaps "
                     "not included; {} of the op time has known work)\n",
                     w.device.spec->name, reports::formatPercent(w.known_share));
  // A device without TF32 Tensor Cores has no TF32 figure of its own (it equals FP32): left out.
  out += fmt::format("            FP32 {}, {}AMP {}: {} FP32 -> AMP\n",
                     formatDuration(static_cast<std::int64_t>(w.step_fp32_ns)),
                     w.device.spec->tf32_tflops > 0
                         ? fmt::format("TF32 {}, ", formatDuration(static_cast<std::int64_t>(w.step_tf32_ns)))
                         : std::string(),
                     formatDuration(static_cast<std::int64_t>(w.step_amp_ns)),
                     w.ampSpeedup() ? reports::formatSpeedup(*w.ampSpeedup()) : std::string("n/a"));
  const reports::WhatIfRows view = reports::whatIfRows(s, 0);
  if (view.misaligned.empty()) return;
  // The costliest first; those the model gives no cost (a 1-channel input, a latency-bound op)
  // are counted, not listed: they are not advice.
  std::vector<const analyzer::LayerRow*> costly;
  for (const analyzer::LayerRow* row : view.misaligned) {
    if (row->what_if_padding_cost_ns > 0) costly.push_back(row);
  }
  std::stable_sort(costly.begin(), costly.end(), [](const analyzer::LayerRow* a, const analyzer::LayerRow* b) {
    return a->what_if_padding_cost_ns > b->what_if_padding_cost_ns;
  });
  std::string listed;
  for (std::size_t i = 0; i < costly.size() && i < 3; ++i) {
    const analyzer::LayerRow& row = *costly[i];
    listed += fmt::format("{}{} {} {} ({})", listed.empty() ? "" : ", ", row.layer, trace::phaseName(row.pass),
                          reports::dimensionsText(row.what_if_misaligned),
                          formatDuration(static_cast<std::int64_t>(row.what_if_padding_cost_ns)));
  }
  if (costly.size() > 3) listed += fmt::format(", and {} more in the report", costly.size() - 3);
  const std::size_t free_of_cost = view.misaligned.size() - costly.size();
  if (costly.empty()) {
    out += fmt::format("            off the multiple of 8: {} layer {}, none costing AMP time in the model\n",
                       free_of_cost, free_of_cost == 1 ? "pass" : "passes");
    return;
  }
  if (free_of_cost > 0) listed += fmt::format("; {} more cost none", free_of_cost);
  out += fmt::format("            off the multiple of 8 (AMP time it costs per step): {}\n", listed);
}

void appendImportStats(std::string& out, const trace::ImportStats& stats) {
  out += fmt::format("\nimport      {} events read, {} imported\n", stats.events_read, stats.events_imported);
  for (const auto& [what, count] : stats.skipped) out += fmt::format("  skipped        {:>8}  {}\n", count, what);
  for (const auto& [what, count] : stats.not_understood) {
    const auto place = stats.first_place.find(what);
    out += fmt::format("  NOT understood {:>8}  {}{}\n", count, what,
                       place == stats.first_place.end() ? std::string() : fmt::format("; first at {}", place->second));
  }
  if (stats.gpu_records_without_launch > 0) {
    out += fmt::format("  kept           {:>8}  GPU records without a launch call in the trace\n",
                       stats.gpu_records_without_launch);
  }
  if (stats.dropped_by_collector > 0) {
    out += fmt::format("  LOST           {:>8}  records the recording tool dropped\n", stats.dropped_by_collector);
  }
  for (const auto& [reason, count] : stats.lost) {
    out += fmt::format("  LOST           the collector lost {} records: {}\n", count, reason);
  }
}

}  // namespace

std::string summaryToText(const analyzer::TraceSummary& s,
                          const std::vector<analyzer::Recommendation>& recommendations, std::size_t top) {
  const analyzer::CorrelationCounts& c = s.correlation;
  std::string out;
  out += fmt::format("format      {} ({})\n", s.format, s.format_detail);
  const bool on_cpu = s.recorded_on_cpu;
  for (const analyzer::DeviceSummary& device : s.devices) {
    if (device.kernels == 0 && s.devices.size() > 1) continue;
    const bool cpu = device.kind == trace::DeviceKind::kCpu;
    out += fmt::format("device {:<4} {}{}{}{}: {} {}, {}\n", device.id,
                       device.name.empty() ? "(unnamed)" : device.name, cpu ? " (host CPU)" : "",
                       device.compute_capability.empty() ? "" : ", compute " + device.compute_capability,
                       device.sm_count ? fmt::format(", {} SMs", device.sm_count) : "",
                       device.kernels, cpu ? "host ops" : "kernels", formatDuration(device.kernel_time_ns));
  }
  if (on_cpu) {
    out += fmt::format("CPU run     recorded on {}\n", reports::kCpuRunNote);
  }
  appendDeviceRow(out, s);
  std::uint64_t lost = 0;
  for (const auto& [reason, count] : s.import_stats.lost) lost += count;
  if (lost > 0) {
    out += fmt::format("LOST        the collector lost {} records (by reason under import below): the figures "
                       "miss that work\n", lost);
  }
  std::uint64_t not_understood = 0;
  for (const auto& [reason, count] : s.import_stats.not_understood) not_understood += count;
  if (not_understood > 0) {
    out += fmt::format("read        {} records or values not understood, of {} kinds (by reason and first place under "
                       "import below); the rest of the trace is read\n",
                       not_understood, s.import_stats.not_understood.size());
  }
  if (s.read_window) {
    out += fmt::format("window      --window {}: {} of the recording read, what lies outside it left out (records "
                       "that cross its edges are kept whole)\n",
                       s.read_window->asked, formatDuration(s.read_window->end_ns - s.read_window->start_ns));
  }
  if (on_cpu) {
    out += fmt::format("span        {} of trace; host ops busy {}, host op time {}\n", formatDuration(s.trace_span_ns),
                       formatDuration(s.gpu_busy_ns), formatDuration(s.gpu_kernel_time_ns));
  } else {
    out += fmt::format("span        {} of trace; GPU busy {}, kernel time {} (summed over streams)\n",
                       formatDuration(s.trace_span_ns), formatDuration(s.gpu_busy_ns),
                       formatDuration(s.gpu_kernel_time_ns));
  }
  out += fmt::format("{}{}: {} linked to a launch call ({}), {} attributed to an operator ({})\n",
                     on_cpu ? "host ops    " : "kernels     ", c.kernels, c.kernels_linked_to_launch,
                     percent(c.kernels_linked_to_launch, c.kernels), c.kernels_attributed_to_op,
                     percent(c.kernels_attributed_to_op, c.kernels));
  out += fmt::format("memory ops  {} ({} linked), memcpy time {}\n", c.memory_ops,
                     c.memory_ops_linked_to_launch, formatDuration(s.memcpy_time_ns));
  out += memoryHeadlineText(s);
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
  if (on_cpu) {
    out += "tensor core not applicable: recorded on the CPU\n";
  } else {
    const analyzer::TensorCoreTime& tc = s.tensor_cores;
    out += fmt::format("tensor core {} of kernel time ({:.1f}%){}\n", formatDuration(tc.time_ns),
                       100.0 * tc.fraction, precisions.empty() ? "" : ": " + precisions);
    // Measured first where counters decided some: they outrank every reading of a name.
    if (tc.measured_ns > 0 || tc.medium_confidence_ns > 0 || tc.low_confidence_ns > 0) {
      out += fmt::format("            by confidence: {}high {}, medium {}, low {}\n",
                         tc.measured_ns > 0 ? fmt::format("measured {}, ", formatDuration(tc.measured_ns)) : std::string(),
                         formatDuration(tc.high_confidence_ns), formatDuration(tc.medium_confidence_ns),
                         formatDuration(tc.low_confidence_ns));
    }
    if (tc.unknown_time_ns > 0) {
      out += fmt::format("            unknown {} ({:.1f}%): {} (TC? below)\n", formatDuration(tc.unknown_time_ns),
                         100.0 * tc.unknown_fraction,
                         s.device.basis == analyzer::DeviceBasis::kAmdGpu ? "every kernel of an AMD GPU"
                                                                          : "matrix kernels no rule or evidence places");
    }
  }
  out += countersHeadlineText(s);
  const analyzer::IterationSummary& it = s.iterations;
  if (it.iterations.empty()) {
    out += fmt::format("iterations  {}\n", it.source);
  } else {
    out += fmt::format("iterations  {} from {} ({} warm-up): steady step {} ± {}\n", it.iterations.size(),
                       it.source, it.warmup_count, formatDuration(it.steady_mean_ns),
                       formatDuration(it.steady_stddev_ns));
    if (const std::string ahead = reports::hostAheadNote(it); !ahead.empty()) {
      out += fmt::format("            {}; a step is timed to the end of the GPU work it launched\n", ahead);
    }
    const analyzer::DataPipelineExposure& dp = s.data_pipeline;
    out += fmt::format("data        {} per step loading while {} ({:.1f}% of the step; the "
                       "loader itself runs {}); hidden, the step would be {:.2f}x faster\n",
                       formatDuration(dp.exposed_ns_per_iteration), on_cpu ? "no host op runs" : "the GPU idles",
                       100.0 * dp.exposed_fraction,
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
  appendModelFlopUtilisation(out, s);
  if (!s.amdahl.parts.empty()) {
    out += fmt::format("AMP         projected {} speedup {:.2f}x on {} figures; ceiling {:.2f}x "
                       "(even infinitely fast math)\n",
                       s.amdahl.per_step ? std::string("step") : reports::amdahlScope(s.amdahl) + ":",
                       s.amdahl.projected_speedup, s.amdahl.device.name, s.amdahl.ceiling);
    for (const analyzer::StepPart& part : s.amdahl.parts) {
      out += fmt::format("            {:>11} {:>5.1f}%  x{:<5.2f} {}\n", formatDuration(part.ns_per_step),
                         100.0 * part.fraction, part.speedup, part.label());
    }
    const analyzer::StepReplay& replay = s.amdahl.replay;
    if (replay.done) {
      out += fmt::format("            replayed at the host's pace (time it spent blocked by the GPU given back): "
                         "{:.2f}x, ceiling {:.2f}x (the replay as recorded: {} for {} recorded); reachable {:.2f}x\n",
                         replay.speedup, s.amdahl.replay_ceiling.speedup, formatDuration(replay.baseline_ns),
                         formatDuration(replay.original_ns), s.amdahl.reachableSpeedup());
    } else if (!replay.note.empty()) {
      out += fmt::format("            no replay: {}\n", replay.note);
    }
  } else if (!s.device.spec && !on_cpu) {
    out += "AMP         no projection: the device is unknown (see the device line)\n";
  } else if (!s.amdahl.note.empty()) {
    out += fmt::format("AMP         no projection: {}\n", s.amdahl.note);
  }
  const analyzer::Communication& comm = s.communication;
  if (comm.time_ns > 0) {
    out += fmt::format("comms       {} {} in collectives: {} exposed, {} beside compute{}\n", formatDuration(comm.time_ns),
                       comm.per_step ? "per step" : "in the window", formatDuration(comm.exposed_ns),
                       formatDuration(comm.overlapped_ns),
                       distributedText(s.distributed));
    for (const analyzer::CollectiveRow& row : comm.collectives) {
      out += fmt::format("            {:>11}  x{:<4} {:<14} {}{}\n", formatDuration(row.time_ns), row.calls,
                         analyzer::collectiveKindName(row.kind), row.name,
                         row.busbw_gbps ? fmt::format("  busbw {:.2f} GB/s", *row.busbw_gbps) : std::string());
    }
  }
  const analyzer::LaunchQueue& queue = s.launch_queue;
  if (queue.measured) {
    out += fmt::format("pacing      {}: {}\n", analyzer::pacingName(queue.pacing), queue.pacing_evidence);
  } else if (!queue.note.empty()) {
    out += fmt::format("pacing      unknown: {}\n", queue.note);
  }
  appendWhatIf(out, s);
  out += recommendationsToText(recommendations);
  appendAmpNumerics(out, s.amp_numerics);
  out += memoryToText(s, top);
  out += countersToText(s, top);
  appendGroups(out,
               on_cpu ? "Top operators by CPU time (host ops under each top-level operator)"
                      : "Top operators by GPU time (kernels under each top-level operator)",
               reports::firstN(s.operators, top), s.gpu_kernel_time_ns, on_cpu);
  appendGroups(out, on_cpu ? "Top layers by CPU time" : "Top layers by GPU time", reports::firstN(s.layers, top),
               s.gpu_kernel_time_ns, on_cpu);
  appendLayerPasses(out, s, top, on_cpu);
  appendShapeChecks(out, reports::firstN(s.shape_checks, top), on_cpu);
  appendImportStats(out, s.import_stats);
  return out;
}

std::string recommendationsToText(const std::vector<analyzer::Recommendation>& recommendations) {
  if (recommendations.empty()) return {};
  std::string out;
  std::size_t shown = 0;
  std::size_t actions = 0;
  for (const analyzer::Recommendation& r : recommendations) {
    if (analyzer::isNote(r)) continue;
    if (++actions > 8) continue;
    if (shown++ == 0) out += "\nRecommendations, by estimated gain per step\n";
    out += fmt::format("  {:>6}  {:>5.1f}%  {:<22} {}\n          {}\n          -> {}\n",
                       analyzer::severityName(r.severity), r.estimated_gain_pct, r.rule, reports::targetWithRanks(r), r.evidence,
                       r.action);
  }
  if (actions > 8) out += fmt::format("  ... {} more in --json\n", actions - 8);
  std::size_t notes = 0;
  for (const analyzer::Recommendation& r : recommendations) {
    if (!analyzer::isNote(r)) continue;
    if (notes++ == 0) out += "\nNotes (no gain estimated)\n";
    out += fmt::format("  {:<22} {}: {}\n", r.rule, reports::targetWithRanks(r), r.action);
  }
  return out;
}

}  // namespace ampscope::cli
