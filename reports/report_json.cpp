#include "reports/report_json.h"

#include <limits>
#include <optional>

#include "reports/counters_json.h"
#include "reports/job_json.h"
#include "reports/memory_json.h"
#include "reports/report_file.h"
#include "reports/report_rows.h"
#include "reports/verdict_words.h"
#include "reports/view_limits.h"

namespace ampscope::reports {

namespace {

using nlohmann::ordered_json;

// On the CPU there is no Tensor Core figure to give: null, not a zero that reads as "none used".
ordered_json tensorCoreNs(const analyzer::TraceSummary& summary, std::int64_t ns) {
  return summary.recorded_on_cpu ? ordered_json(nullptr) : ordered_json(ns);
}

// tensor_cores: true or false where known, null for an unknown verdict and for a host op; verdict
// tells those apart.
ordered_json verdictFields(const analyzer::TensorCoreVerdict& verdict) {
  const std::optional<bool> on_tensor_cores = tensorCoreFlag(verdict.tensor_core);
  return {{"tensor_cores", on_tensor_cores ? ordered_json(*on_tensor_cores) : ordered_json(nullptr)},
          {"verdict", analyzer::tensorCoreUseName(verdict.tensor_core)},
          {"precision", analyzer::precisionName(verdict.precision)},
          {"rule", verdict.rule_id},
          {"confidence", analyzer::confidenceName(verdict.confidence)},
          {"host", verdict.tensor_core == analyzer::TensorCoreUse::kHost}};
}

ordered_json groupsJson(const analyzer::TraceSummary& summary, const std::vector<analyzer::GroupTime>& groups,
                        std::size_t top) {
  ordered_json out = ordered_json::array();
  for (const analyzer::GroupTime& group : firstN(groups, top)) {
    ordered_json kernels = ordered_json::array();
    for (const analyzer::KernelTime& kernel : firstN(group.kernel_times, top)) {
      ordered_json entry = {{"name", kernel.name}, {"calls", kernel.calls}, {"time_ns", kernel.time_ns}};
      entry.update(verdictFields(kernel.verdict));
      kernels.push_back(std::move(entry));
    }
    out.push_back({{"name", group.name},
                   {"phase", group.phase},
                   {"op_calls", group.op_calls},
                   {"kernels", group.kernels},
                   {"gpu_time_ns", group.gpu_time_ns},
                   {"tensor_core_time_ns", tensorCoreNs(summary, group.tensor_core_time_ns)},
                   {"top_kernels", std::move(kernels)}});
  }
  return out;
}

template <typename Count>
ordered_json mapJson(const std::map<std::string, Count>& values) {
  ordered_json out = ordered_json::object();
  for (const auto& [key, value] : values) out[key] = value;
  return out;
}

// Every named layer's passes, in model order (none when the trace names no layers).
ordered_json layerPassesJson(const analyzer::TraceSummary& summary) {
  ordered_json out = ordered_json::array();
  if (summary.layer_table.groups_operators) return out;
  for (const analyzer::LayerRow& p : summary.layer_table.rows) {
    out.push_back({{"layer", p.layer}, {"phase", trace::phaseName(p.pass)}, {"calls", p.calls}, {"kernels", p.kernels},
                   {"time_ns", p.time_ns}, {"tensor_core_time_ns", tensorCoreNs(summary, p.tensor_core_time_ns)}});
  }
  return out;
}

ordered_json stepByPassJson(const std::vector<analyzer::PassPart>& parts) {
  ordered_json out = ordered_json::array();
  for (const analyzer::PassPart& part : parts) {
    out.push_back({{"kind", analyzer::passPartKindName(part.kind)}, {"label", analyzer::passPartLabel(part.kind)},
                   {"ns_per_step", part.ns_per_step}});
  }
  return out;
}

ordered_json gradientCountsJson(const analyzer::GradientCounts& c) {
  return {{"values", c.values},
          {"zeros", c.zeros},
          {"underflow", c.underflow},
          {"non_finite", c.non_finite},
          {"zero_share", c.zeroShare()},
          {"underflow_share", c.underflowShare()}};
}

ordered_json ampNumericsJson(const analyzer::AmpNumerics& n) {
  ordered_json changes = ordered_json::array();
  for (const analyzer::LossScaleChange& c : n.loss_scale_changes) changes.push_back({{"step", c.step}, {"value", c.value}});
  ordered_json skipped = ordered_json::array();
  for (const analyzer::StepRun& run : n.skipped) skipped.push_back({{"first", run.first}, {"last", run.last}});
  ordered_json tensors = ordered_json::array();
  for (const analyzer::TensorNumerics& t : n.tensors) {
    ordered_json entry = {{"tensor", t.tensor}, {"all", gradientCountsJson(t.all)},
                          {"recent", gradientCountsJson(t.recent)}};
    if (t.has_bins) {
      entry["smallest_exponent"] = t.smallest_exponent;
      entry["largest_exponent"] = t.largest_exponent;
      entry["underflow_share_at_suggested_scale"] = t.underflow_share_at_suggested_scale;
    }
    tensors.push_back(std::move(entry));
  }
  const auto orNull = [](bool known, double value) { return known ? ordered_json(value) : ordered_json(nullptr); };
  const bool scaled = n.loss_scale_samples > 0;
  return {{"recorded", n.recorded},
          {"steps", n.steps},
          {"first_step", n.first_step},
          {"last_step", n.last_step},
          {"histogram_steps", n.histogram_steps},
          {"recent_from_step", n.recent_from_step},
          {"recent_steps", n.recent_steps},
          {"compute_dtypes", n.compute_dtypes},
          {"loss", {{"first", orNull(n.has_loss, n.loss_first)}, {"first_step", n.loss_first_step},
                    {"last", orNull(n.has_loss, n.loss_last)}, {"last_step", n.loss_last_step}}},
          {"loss_scale", {{"samples", n.loss_scale_samples}, {"min", orNull(scaled, n.loss_scale_min)},
                          {"max", orNull(scaled, n.loss_scale_max)}, {"final", orNull(scaled, n.loss_scale_final)},
                          {"changes", std::move(changes)}}},
          {"skipped_steps", {{"count", n.skipped_steps}, {"counted_steps", n.counted_steps},
                             {"runs", std::move(skipped)}}},
          {"suggested_loss_scale", orNull(n.suggested_loss_scale > 0, n.suggested_loss_scale)},
          {"tensors", std::move(tensors)}};
}

// The GEMM dimensions that are a matrix's leading dimension, where the strides tell them; null
// where they do not (then any of the three is taken to matter).
ordered_json leadingDimensionsJson(const analyzer::GemmDims& dims) {
  const auto names = leadingDimensionNames(dims);
  return names ? ordered_json(*names) : ordered_json(nullptr);
}

ordered_json shapeChecksJson(std::span<const analyzer::ShapeCheck> checks) {
  ordered_json out = ordered_json::array();
  for (const analyzer::ShapeCheck& check : checks) {
    ordered_json misaligned = ordered_json::array();
    for (const analyzer::DimensionFinding& f : check.misaligned) {
      misaligned.push_back({{"dimension", f.dimension}, {"value", f.value}, {"padded", f.padded}});
    }
    const analyzer::GemmDims& d = check.dims;
    out.push_back({{"op", check.op},
                   {"shapes", check.shapes},
                   {"strides", check.strides},
                   {"layer", check.layer},
                   {"gemm", {{"m", d.m}, {"n", d.n}, {"k", d.k}, {"batch", d.batch}, {"convolution", d.convolution},
                             {"leading_dimensions", leadingDimensionsJson(d)}}},
                   {"calls", check.calls},
                   {"gpu_time_ns", check.gpu_time_ns},
                   {"tensor_core_time_ns", check.tensor_core_time_ns},
                   {"precision", analyzer::precisionName(check.precision)},
                   {"required_multiple", check.required_multiple},
                   {"misaligned", std::move(misaligned)},
                   {"smallest_kernel_alignment", check.smallest_kernel_alignment}});
  }
  return out;
}

ordered_json iterationsJson(const analyzer::TraceSummary& summary) {
  const analyzer::IterationSummary& it = summary.iterations;
  const std::vector<std::int64_t>& exposed = summary.data_pipeline.exposed_ns;
  ordered_json steps = ordered_json::array();
  for (std::size_t i = 0; i < it.iterations.size(); ++i) {
    const analyzer::Iteration& step = it.iterations[i];
    steps.push_back({{"number", step.number},
                     {"start_ns", step.start_ns},
                     {"duration_ns", step.durationNs()},
                     {"host_start_ns", step.host_start_ns},
                     {"host_duration_ns", step.host_end_ns - step.host_start_ns},
                     {"warmup", step.warmup},
                     {"data_exposed_ns", i < exposed.size() ? exposed[i] : 0}});
  }
  return {{"count", it.iterations.size()},         {"source", it.source},
          {"warmup", it.warmup_count},             {"steady_mean_ns", it.steady_mean_ns},
          {"steady_stddev_ns", it.steady_stddev_ns}, {"steady_min_ns", it.steady_min_ns},
          {"steady_max_ns", it.steady_max_ns},     {"steady_host_mean_ns", it.steady_host_mean_ns},
          {"steps", std::move(steps)}};
}

ordered_json replayJson(const analyzer::StepReplay& replay) {
  return {{"done", replay.done},
          {"speedup", replay.speedup},
          {"original_ns", replay.original_ns},
          {"baseline_ns", replay.baseline_ns},
          {"replayed_ns", replay.replayed_ns},
          {"note", replay.note}};
}

ordered_json amdahlJson(const analyzer::AmdahlProjection& amdahl) {
  ordered_json parts = ordered_json::array();
  for (const analyzer::StepPart& part : amdahl.parts) {
    parts.push_back({{"kind", analyzer::stepPartKindName(part.kind)}, {"name", part.label()},
                     {"ns_per_step", part.ns_per_step}, {"fraction", part.fraction}, {"speedup", part.speedup}});
  }
  return {{"device_row", amdahl.device.name}, {"per_step", amdahl.per_step}, {"window_ns", amdahl.window_ns},
          {"projected_speedup", amdahl.projected_speedup},
          {"reachable_speedup", amdahl.reachableSpeedup()},
          {"ceiling", amdahl.ceiling},        {"parts", std::move(parts)},
          {"replay", replayJson(amdahl.replay)}, {"replay_ceiling", replayJson(amdahl.replay_ceiling)},
          {"note", amdahl.note}};
}

ordered_json communicationJson(const analyzer::Communication& c) {
  return {{"per_step", c.per_step}, {"window_ns", c.window_ns},
          {"ranks", c.ranks > 0 ? ordered_json(c.ranks) : ordered_json(nullptr)},
          {"time_ns", c.time_ns}, {"overlapped_ns", c.overlapped_ns}, {"exposed_ns", c.exposed_ns},
          {"collectives", collectivesJson(c.collectives)}, {"note", c.note}};
}

ordered_json queueJson(const analyzer::LaunchQueue& q) {
  return {{"measured", q.measured},
          {"per_step", q.per_step},
          {"window_ns", q.window_ns},
          {"median_depth", q.median_depth},
          {"max_depth", q.max_depth},
          {"median_launch_to_start_ns", q.median_launch_to_start_ns},
          {"typical_launch_call_ns", q.typical_launch_call_ns},
          {"host_blocked_ns_per_iteration", q.host_blocked_ns_per_iteration},
          {"sync_ns_per_iteration", q.sync_ns_per_iteration},
          {"blocked_launch_ns_per_iteration", q.blocked_launch_ns_per_iteration},
          {"host_blocked_fraction", q.host_blocked_fraction},
          {"blocked_launches", q.blocked_launches},
          {"gpu_busy_fraction", q.gpu_busy_fraction},
          {"pacing", analyzer::pacingName(q.pacing)},
          {"pacing_evidence", q.pacing_evidence},
          {"note", q.note}};
}

template <typename T>
ordered_json orNull(const std::optional<T>& value) {
  return value ? ordered_json(*value) : ordered_json(nullptr);
}

// The per-op model's figures of a layer or kernel row.
ordered_json rowPerformanceJson(const analyzer::RowPerformance& p) {
  return {{"flops", p.flops > 0 ? ordered_json(p.flops) : ordered_json(nullptr)},
          {"bytes", p.bytes > 0 ? ordered_json(p.bytes) : ordered_json(nullptr)},
          {"work_known_share", p.work_known_share},
          {"achieved_tflops", orNull(p.achieved_tflops)},
          {"peak_tflops", p.peak_tflops > 0 ? ordered_json(p.peak_tflops) : ordered_json(nullptr)},
          {"bound", analyzer::roofBoundName(p.bound)},
          {"predicted_amp_ns", orNull(p.predicted_amp_ns)}};
}

ordered_json deviceJson(const analyzer::DeviceChoice& choice) {
  ordered_json out = {{"row", choice.spec ? ordered_json(choice.spec->name) : ordered_json(nullptr)},
                      {"basis", analyzer::deviceBasisName(choice.basis)},
                      {"reason", choice.reason}};
  if (const analyzer::DeviceSpec* d = choice.spec.get()) {
    out["sm_count"] = d->sm_count;
    out["memory_gbs"] = d->memory_gbs > 0 ? ordered_json(d->memory_gbs) : ordered_json(nullptr);  // null: unknown
    out["peak_tflops"] = {{"fp32", d->fp32_tflops}, {"tf32", d->tf32_tflops}, {"fp16", d->fp16_tflops},
                          {"bf16", d->bf16_tflops}, {"fp8", d->fp8_tflops},   {"fp4", d->fp4_tflops},
                          {"int8", d->int8_tops}};
  }
  return out;
}

ordered_json opsJson(const analyzer::OpPerformance& ops, std::size_t top) {
  ordered_json out = ordered_json::array();
  for (const analyzer::OpRow& row : firstN(ops.rows, top)) {
    const analyzer::OpWork& w = row.work;
    out.push_back({{"op", row.op}, {"shapes", row.shapes}, {"strides", row.strides}, {"arguments", row.arguments}, {"layer", row.layer},
                   {"phase", trace::phaseName(row.pass)}, {"class", analyzer::opClassName(row.op_class)},
                   {"calls", row.calls}, {"kernels", row.kernels}, {"gpu_time_ns", row.time_ns},
                   {"precision", analyzer::precisionName(row.precision)},
                   {"flops_per_call", orNull(w.flops)}, {"bytes_per_call", orNull(w.bytes)},
                   {"work_basis", analyzer::workBasisName(w.basis)}, {"work_note", w.note},
                   {"gemm", w.gemm ? ordered_json({{"m", w.gemm->m}, {"n", w.gemm->n}, {"k", w.gemm->k}, {"batch", w.gemm->batch},
                                                   {"leading_dimensions", leadingDimensionsJson(*w.gemm)}})
                                   : ordered_json(nullptr)},
                   {"achieved_tflops", orNull(row.achieved_tflops)}, {"achieved_gbs", orNull(row.achieved_gbs)},
                   {"peak_tflops", row.peak_tflops > 0 ? ordered_json(row.peak_tflops) : ordered_json(nullptr)},
                   {"intensity", orNull(row.intensity)}, {"bound", analyzer::roofBoundName(row.bound)},
                   {"rate_note", row.rate_note}, {"amp", analyzer::ampChangeName(row.amp)},
                   {"predicted_amp_ns", orNull(row.predicted_amp_ns)}, {"amp_speedup", row.amp_speedup},
                   {"tf32_speedup", row.tf32_speedup}, {"amp_note", row.amp_note}});
  }
  return out;
}

ordered_json whatIfJson(const analyzer::WhatIfProjection& w) {
  if (!w.device.spec) return nullptr;
  return {{"device", deviceJson(w.device)}, {"default_device", w.default_device},
          {"step_fp32_ns", w.step_fp32_ns}, {"step_tf32_ns", w.step_tf32_ns}, {"step_amp_ns", w.step_amp_ns},
          {"projected_speedup", orNull(w.ampSpeedup())},
          {"known_share", w.known_share}, {"estimate", true}, {"note", w.note}};
}

ordered_json layersJson(const analyzer::TraceSummary& summary) {
  ordered_json out = ordered_json::array();
  for (const LayerCells& cells : layerCells(summary)) {
    const analyzer::LayerRow& row = *cells.row;
    out.push_back({{"layer", cells.layer}, {"op", cells.op}, {"phase", cells.phase}, {"calls", row.calls},
                   {"gpu_time_ns", row.time_ns}, {"tensor_core_time_ns", tensorCoreNs(summary, row.tensor_core_time_ns)},
                   {"eligible", cells.eligible}, {"precision", cells.precision}, {"shapes", cells.shapes},
                   {"violations", cells.violations}, {"state", analyzer::layerStateName(row.state)}});
    out.back().update(rowPerformanceJson(row.performance));
    out.back()["measured_tensor_active"] = measuredShareJson(row.measured_tensor_active);
    out.back()["measured_tensor_ns"] = row.measured_tensor_ns;
    out.back()["what_if_fp32_ns"] = orNull(row.what_if_fp32_ns);
    out.back()["what_if_amp_ns"] = orNull(row.what_if_amp_ns);
    out.back()["what_if_padding_cost_ns"] = row.what_if_padding_cost_ns;
  }
  return out;
}

ordered_json kernelsJson(const analyzer::TraceSummary& summary, std::size_t top) {
  ordered_json out = ordered_json::array();
  for (const analyzer::KernelRow& row : firstN(summary.kernels, top)) {
    ordered_json entry = {{"name", row.name}, {"calls", row.calls}, {"total_ns", row.time_ns}};
    if (!row.mangled_name.empty()) entry["mangled_name"] = row.mangled_name;
    entry.update(verdictFields(row.verdict));
    entry.update(rowPerformanceJson(row.performance));
    entry["measured_tensor_active"] = measuredShareJson(row.measured_tensor_active);
    entry["measured_tensor_ns"] = row.measured_tensor_ns;
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace

ordered_json recommendationJson(const analyzer::Recommendation& r) {
  return {{"rule", r.rule}, {"severity", analyzer::severityName(r.severity)}, {"target", r.target},
          {"evidence", r.evidence}, {"action", r.action},
          {"estimated_gain_ns", r.estimated_gain_ns}, {"estimated_gain_pct", r.estimated_gain_pct},
          {"ops", r.ops}, {"layers", r.layers}};
}

ordered_json summaryToJsonDocument(const analyzer::TraceSummary& summary,
                                   const std::vector<analyzer::Recommendation>& recommendations,
                                   std::optional<std::size_t> top_or_all) {
  const std::size_t top = top_or_all.value_or(std::numeric_limits<std::size_t>::max());
  ordered_json devices = ordered_json::array();
  for (const analyzer::DeviceSummary& device : summary.devices) {
    devices.push_back({{"id", device.id}, {"name", device.name}, {"kind", trace::deviceKindName(device.kind)},
                       {"compute_capability", device.compute_capability}, {"sm_count", device.sm_count},
                       {"kernels", device.kernels}, {"kernel_time_ns", device.kernel_time_ns}});
  }
  const analyzer::CorrelationCounts& c = summary.correlation;
  const trace::ImportStats& stats = summary.import_stats;
  const analyzer::DataPipelineExposure& dp = summary.data_pipeline;
  ordered_json doc;
  doc["format"] = summary.format;
  doc["format_detail"] = summary.format_detail;
  doc["devices"] = std::move(devices);
  doc["device"] = deviceJson(summary.device);
  doc["kernels"] = {{"count", c.kernels},
                    {"linked_to_launch", c.kernels_linked_to_launch},
                    {"attributed_to_op", c.kernels_attributed_to_op}};
  doc["memory_ops"] = {{"count", c.memory_ops}, {"linked_to_launch", c.memory_ops_linked_to_launch}};
  doc["launches"] = {{"count", c.launches}, {"inside_op", c.launches_in_op}};
  doc["ranges"] = {{"count", summary.ranges},
                   {"backward_linked_to_forward", c.backward_ranges_linked_to_forward}};
  doc["threads"] = summary.threads;
  doc["synchronizations"] = summary.synchronizations;
  doc["gpu_kernel_time_ns"] = summary.gpu_kernel_time_ns;
  doc["gpu_busy_ns"] = summary.gpu_busy_ns;
  doc["memcpy_time_ns"] = summary.memcpy_time_ns;
  doc["trace_span_ns"] = summary.trace_span_ns;
  doc["recorded_on_cpu"] = summary.recorded_on_cpu;
  doc["tensor_cores"] = {{"time_ns", tensorCoreNs(summary, summary.tensor_cores.time_ns)},
                         {"fraction", summary.recorded_on_cpu ? ordered_json(nullptr)
                                                              : ordered_json(summary.tensor_cores.fraction)},
                         {"by_precision", mapJson(summary.tensor_cores.by_precision)},
                         {"by_confidence", {{"high", tensorCoreNs(summary, summary.tensor_cores.high_confidence_ns)},
                                            {"medium", tensorCoreNs(summary, summary.tensor_cores.medium_confidence_ns)},
                                            {"low", tensorCoreNs(summary, summary.tensor_cores.low_confidence_ns)},
                                            {"measured", tensorCoreNs(summary, summary.tensor_cores.measured_ns)}}},
                         {"unknown_time_ns", tensorCoreNs(summary, summary.tensor_cores.unknown_time_ns)},
                         {"unknown_fraction", summary.recorded_on_cpu ? ordered_json(nullptr)
                                                                      : ordered_json(summary.tensor_cores.unknown_fraction)},
                         {"rules_version", summary.tensor_cores.rules_version},
                         {"applicable", !summary.recorded_on_cpu},
                         {"note", summary.recorded_on_cpu ? std::string("recorded on ") + kCpuRunNote : std::string()},
                         {"measured", measuredTensorCoresJson(summary.counters.tensor_cores)}};
  doc["shape_checks"] = shapeChecksJson(firstN(summary.shape_checks, top));
  doc["iterations"] = iterationsJson(summary);
  doc["data_pipeline"] = {{"exposed_ns_per_iteration", dp.exposed_ns_per_iteration},
                          {"exposed_fraction", dp.exposed_fraction},
                          {"loader_ns_per_iteration", dp.loader_ns_per_iteration},
                          {"pageable_h2d_ns_per_iteration", dp.pageable_h2d_ns_per_iteration},
                          {"pageable_h2d_copies", dp.pageable_h2d_copies},
                          {"speedup_if_hidden", dp.speedup_if_hidden},
                          {"replay_if_hidden", replayJson(dp.replay_if_hidden)}};
  doc["amdahl"] = amdahlJson(summary.amdahl);
  doc["queue"] = queueJson(summary.launch_queue);
  doc["communication"] = communicationJson(summary.communication);
  const trace::DistributedInfo& job = summary.distributed;
  doc["distributed"] = job.rankKnown()
                           ? ordered_json{{"rank", job.rank},
                                          {"world_size", job.worldSizeKnown() ? ordered_json(job.world_size) : ordered_json(nullptr)},
                                          {"backend", job.backend}}
                           : ordered_json(nullptr);
  const analyzer::OpPerformance& ops = summary.op_performance;
  doc["performance"] = {{"flops_per_step", ops.flops_per_step > 0 ? ordered_json(ops.flops_per_step) : ordered_json(nullptr)},
                        {"per_step", ops.per_step},
                        {"window_ns", ops.window_ns},
                        {"model_flop_utilisation", orNull(ops.model_flop_utilisation)},
                        {"utilisation_peak", ops.model_flop_utilisation ? ordered_json(analyzer::precisionName(ops.utilisation_precision))
                                                                        : ordered_json(nullptr)},
                        {"matrix_time_with_known_flops", ops.matrix_time_with_known_flops},
                        {"note", ops.note}};
  doc["ops"] = opsJson(ops, top);
  doc["what_if"] = whatIfJson(summary.what_if);
  doc["step_by_pass"] = stepByPassJson(summary.step_by_pass);
  const analyzer::HostStalls& host = summary.host_stalls;
  const analyzer::AmpNumerics& numerics = summary.amp_numerics;
  doc["host_stalls"] = {{"sync_ns_per_iteration", host.sync_ns_per_iteration},
                        {"sync_calls_per_iteration", host.sync_calls_per_iteration},
                        {"matrix_kernels", host.matrix_kernels},
                        {"matrix_blocks_per_sm", host.matrix_blocks_per_sm},
                        // Kept under their first names; amp_numerics has the full account.
                        {"loss_scale_samples", numerics.loss_scale_samples},
                        {"loss_scale_min", numerics.loss_scale_min},
                        {"loss_scale_last", numerics.loss_scale_final},
                        {"skipped_steps", numerics.skipped_steps},
                        {"counted_steps", numerics.counted_steps}};
  doc["amp_numerics"] = ampNumericsJson(numerics);
  doc["memory"] = memoryJson(summary.memory, top);
  doc["counters"] = countersJson(summary.counters, top);
  doc["top_operators"] = groupsJson(summary, summary.operators, top);
  doc["top_layers"] = groupsJson(summary, summary.layers, top);
  doc["layer_passes"] = layerPassesJson(summary);
  if (summary.read_window) {
    // Only where part of the recording was read (--window): documents of whole traces keep their keys.
    doc["read_window"] = {{"asked", summary.read_window->asked},
                          {"start_ns", summary.read_window->start_ns},
                          {"end_ns", summary.read_window->end_ns}};
  }
  doc["import_stats"] = {{"events_read", stats.events_read},
                         {"events_imported", stats.events_imported},
                         {"gpu_records_without_launch", stats.gpu_records_without_launch},
                         {"dropped_by_collector", stats.dropped_by_collector},
                         {"skipped", mapJson(stats.skipped)},
                         {"not_understood", mapJson(stats.not_understood)},
                         {"not_understood_first_place", mapJson(stats.first_place)},
                         {"lost", mapJson(stats.lost)}};
  // The keys below are the report's additions to the analyze document.
  doc["layers"] = layersJson(summary);
  doc["kernels_by_name"] = kernelsJson(summary, top);
  ordered_json recs = ordered_json::array();
  for (const analyzer::Recommendation& r : recommendations) recs.push_back(recommendationJson(r));
  doc["recommendations"] = std::move(recs);
  return doc;
}

std::string formatJsonDocument(const nlohmann::ordered_json& document) {
  return document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace ampscope::reports
