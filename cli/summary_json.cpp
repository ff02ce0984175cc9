#include "cli/summary_json.h"

#include <nlohmann/json.hpp>

namespace ampscope::cli {

namespace {

using nlohmann::ordered_json;

ordered_json groupsToJson(const std::vector<analyzer::GroupTime>& groups) {
  ordered_json out = ordered_json::array();
  for (const analyzer::GroupTime& group : groups) {
    ordered_json kernels = ordered_json::array();
    for (const analyzer::KernelTime& kernel : group.top_kernels) {
      kernels.push_back({{"name", kernel.name},
                         {"calls", kernel.calls},
                         {"time_ns", kernel.time_ns},
                         {"tensor_cores", kernel.verdict.tensor_core},
                         {"precision", analyzer::precisionName(kernel.verdict.precision)},
                         {"rule", kernel.verdict.rule_id},
                         {"confidence", analyzer::confidenceName(kernel.verdict.confidence)}});
    }
    out.push_back({{"name", group.name},
                   {"phase", group.phase},
                   {"op_calls", group.op_calls},
                   {"kernels", group.kernels},
                   {"gpu_time_ns", group.gpu_time_ns},
                   {"tensor_core_time_ns", group.tensor_core_time_ns},
                   {"top_kernels", kernels}});
  }
  return out;
}

template <typename Count>
ordered_json countsToJson(const std::map<std::string, Count>& counts) {
  ordered_json out = ordered_json::object();
  for (const auto& [key, value] : counts) out[key] = value;
  return out;
}

}  // namespace

std::string summaryToJson(const analyzer::TraceSummary& summary,
                          const std::vector<analyzer::Recommendation>& recommendations) {
  ordered_json devices = ordered_json::array();
  for (const analyzer::DeviceSummary& device : summary.devices) {
    devices.push_back({{"id", device.id},
                       {"name", device.name},
                       {"compute_capability", device.compute_capability},
                       {"sm_count", device.sm_count},
                       {"kernels", device.kernels},
                       {"kernel_time_ns", device.kernel_time_ns}});
  }
  const analyzer::CorrelationCounts& c = summary.correlation;
  const trace::ImportStats& stats = summary.import_stats;
  ordered_json doc;
  doc["format"] = summary.format;
  doc["format_detail"] = summary.format_detail;
  doc["devices"] = devices;
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
  doc["tensor_cores"] = {{"time_ns", summary.tensor_cores.time_ns},
                         {"fraction", summary.tensor_cores.fraction},
                         {"by_precision", countsToJson(summary.tensor_cores.by_precision)},
                         {"rules_version", summary.tensor_cores.rules_version}};
  ordered_json shapes = ordered_json::array();
  for (const analyzer::ShapeCheck& check : summary.shape_checks) {
    ordered_json misaligned = ordered_json::array();
    for (const analyzer::DimensionFinding& f : check.misaligned) {
      misaligned.push_back({{"dimension", f.dimension}, {"value", f.value}, {"padded", f.padded}});
    }
    shapes.push_back({{"op", check.op},
                      {"shapes", check.shapes},
                      {"layer", check.layer},
                      {"gemm", {{"m", check.dims.m}, {"n", check.dims.n}, {"k", check.dims.k}, {"batch", check.dims.batch},
                                {"convolution", check.dims.convolution}}},
                      {"calls", check.calls},
                      {"gpu_time_ns", check.gpu_time_ns},
                      {"tensor_core_time_ns", check.tensor_core_time_ns},
                      {"precision", analyzer::precisionName(check.precision)},
                      {"required_multiple", check.required_multiple},
                      {"misaligned", misaligned},
                      {"smallest_kernel_alignment", check.smallest_kernel_alignment}});
  }
  doc["shape_checks"] = shapes;
  const analyzer::IterationSummary& it = summary.iterations;
  ordered_json steps = ordered_json::array();
  for (std::size_t i = 0; i < it.iterations.size(); ++i) {
    const analyzer::Iteration& step = it.iterations[i];
    steps.push_back({{"number", step.number},
                     {"start_ns", step.start_ns},
                     {"duration_ns", step.durationNs()},
                     {"warmup", step.warmup},
                     {"data_exposed_ns", summary.data_pipeline.exposed_ns.empty() ? 0 : summary.data_pipeline.exposed_ns[i]}});
  }
  doc["iterations"] = {{"count", it.iterations.size()},
                       {"source", it.source},
                       {"warmup", it.warmup_count},
                       {"steady_mean_ns", it.steady_mean_ns},
                       {"steady_stddev_ns", it.steady_stddev_ns},
                       {"steady_min_ns", it.steady_min_ns},
                       {"steady_max_ns", it.steady_max_ns},
                       {"steps", steps}};
  const analyzer::DataPipelineExposure& dp = summary.data_pipeline;
  doc["data_pipeline"] = {{"exposed_ns_per_iteration", dp.exposed_ns_per_iteration},
                          {"exposed_fraction", dp.exposed_fraction},
                          {"loader_ns_per_iteration", dp.loader_ns_per_iteration},
                          {"pageable_h2d_ns_per_iteration", dp.pageable_h2d_ns_per_iteration},
                          {"pageable_h2d_copies", dp.pageable_h2d_copies},
                          {"speedup_if_hidden", dp.speedup_if_hidden}};
  const analyzer::AmdahlProjection& amdahl = summary.amdahl;
  ordered_json parts = ordered_json::array();
  for (const analyzer::StepPart& part : amdahl.parts) {
    parts.push_back({{"name", part.name}, {"ns_per_step", part.ns_per_step}, {"fraction", part.fraction},
                     {"speedup", part.speedup}});
  }
  doc["amdahl"] = {{"device_row", amdahl.device.name},
                   {"projected_speedup", amdahl.projected_speedup},
                   {"ceiling", amdahl.ceiling},
                   {"parts", parts},
                   {"note", amdahl.note}};
  doc["top_operators"] = groupsToJson(summary.top_operators);
  doc["top_layers"] = groupsToJson(summary.top_layers);
  ordered_json recs = ordered_json::array();
  for (const analyzer::Recommendation& r : recommendations) {
    recs.push_back({{"rule", r.rule},
                    {"severity", analyzer::severityName(r.severity)},
                    {"target", r.target},
                    {"evidence", r.evidence},
                    {"action", r.action},
                    {"estimated_gain_ns", r.estimated_gain_ns},
                    {"estimated_gain_pct", r.estimated_gain_pct}});
  }
  doc["recommendations"] = recs;
  doc["import_stats"] = {{"events_read", stats.events_read},
                         {"events_imported", stats.events_imported},
                         {"gpu_records_without_launch", stats.gpu_records_without_launch},
                         {"dropped_by_collector", stats.dropped_by_collector},
                         {"skipped", countsToJson(stats.skipped)},
                         {"not_understood", countsToJson(stats.not_understood)}};
  return doc.dump(2) + "\n";
}

}  // namespace ampscope::cli
