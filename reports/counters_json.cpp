#include "reports/counters_json.h"

#include <cmath>

#include "reports/verdict_words.h"
#include "reports/view_limits.h"

namespace ampscope::reports {

namespace {

using nlohmann::ordered_json;

ordered_json cudaCoreOpsJson(const std::optional<analyzer::CudaCoreOps>& ops) {
  if (!ops) return nullptr;
  return {{"fp16", ops->fp16}, {"fp32", ops->fp32}, {"fp64", ops->fp64}};
}

// Two maps keyed by the metric's recorded name, so that a total is read as metrics[name].
struct MetricMaps {
  ordered_json metrics = ordered_json::object();
  ordered_json metric_ranges = ordered_json::object();
};

MetricMaps metricMaps(const std::vector<analyzer::MetricTotal>& totals) {
  MetricMaps out;
  for (const analyzer::MetricTotal& total : totals) {
    out.metrics[total.metric] = total.total;
    out.metric_ranges[total.metric] = total.ranges;
  }
  return out;
}

ordered_json groupRowJson(const analyzer::GroupCounterRow& row) {
  MetricMaps maps = metricMaps(row.totals);
  return {{"group", row.group},
          {"pass", trace::phaseName(row.pass)},
          {"ranges", row.ranges},
          {"tensor_active", measuredShareJson(row.tensor_active)},
          {"cuda_core_ops", cudaCoreOpsJson(row.cuda_core_ops)},
          {"metrics", std::move(maps.metrics)},
          {"metric_ranges", std::move(maps.metric_ranges)}};
}

ordered_json kernelRowJson(const analyzer::KernelCounterRow& row) {
  MetricMaps maps = metricMaps(row.totals);
  ordered_json& metrics = maps.metrics;
  ordered_json& metric_ranges = maps.metric_ranges;
  return {{"kernel", row.kernel},
          {"ranges", row.ranges},
          {"matched", row.matched},
          {"time_ns", row.time_ns},
          {"tensor_active", measuredShareJson(row.tensor_active)},
          {"measured_ns", row.measured_ns},
          {"source", analyzer::measurementSourceName(row.source)},
          {"basis", row.basis},
          {"cuda_core_ops", cudaCoreOpsJson(row.cuda_core_ops)},
          {"metrics", std::move(metrics)},
          {"metric_ranges", std::move(metric_ranges)}};
}

// Each series by what it is and when, not point by point: the Perfetto export draws the points.
ordered_json seriesJson(const analyzer::MetricSeries& series) {
  const bool any = !series.points.empty();
  const std::int64_t start_ns = any ? series.points.front().start_ns : 0;
  const std::int64_t end_ns = any ? series.points.back().end_ns : 0;
  return {{"device", series.device},
          {"metric", series.metric},
          {"meaning", analyzer::metricMeaningName(series.reading.meaning)},
          {"share", series.share},
          {"samples", series.points.size()},
          {"start_ns", any ? ordered_json(start_ns) : ordered_json(nullptr)},
          {"end_ns", any ? ordered_json(end_ns) : ordered_json(nullptr)},
          {"span_ns", end_ns - start_ns}};
}

ordered_json disagreementJson(const analyzer::VerdictDisagreement& d) {
  const std::optional<bool> by_name = tensorCoreFlag(d.by_name.tensor_core);
  const std::optional<bool> measured = tensorCoreFlag(d.measured);
  return {{"kernel", d.kernel},
          {"by_name", {{"tensor_cores", by_name ? ordered_json(*by_name) : ordered_json(nullptr)},
                       {"verdict", analyzer::tensorCoreUseName(d.by_name.tensor_core)},
                       {"precision", analyzer::precisionName(d.by_name.precision)},
                       {"rule", d.by_name.rule_id},
                       {"confidence", analyzer::confidenceName(d.by_name.confidence)}}},
          {"measured", {{"tensor_cores", measured ? ordered_json(*measured) : ordered_json(nullptr)},
                        {"verdict", analyzer::tensorCoreUseName(d.measured)},
                        {"tensor_active", d.tensor_active},
                        {"basis", d.basis}}},
          {"time_ns", d.time_ns}};
}

template <typename Value>
ordered_json mapJson(const std::map<std::string, Value>& values) {
  ordered_json out = ordered_json::object();
  for (const auto& [key, value] : values) out[key] = value;
  return out;
}

}  // namespace

ordered_json measuredShareJson(const std::optional<double>& share) {
  return share && std::isfinite(*share) ? ordered_json(*share) : ordered_json(nullptr);
}

ordered_json measuredTensorCoresJson(const analyzer::MeasuredTensorCores& m) {
  return {{"covered_ns", m.covered_ns},
          {"kernel_time_ns", m.kernel_time_ns},
          // A share of no time is no figure: null, with covered_ns saying so.
          {"active_share", m.covered_ns > 0 ? measuredShareJson(m.active_share) : ordered_json(nullptr)},
          {"tensor_core_ns", m.tensor_core_ns},
          {"idle_ns", m.idle_ns},
          {"metrics", m.metrics}};
}

ordered_json countersJson(const analyzer::CounterAnalysis& counters, std::size_t top) {
  if (!counters.recorded() && counters.not_understood.empty()) return nullptr;
  ordered_json kernels = ordered_json::array();
  for (const analyzer::KernelCounterRow& row : firstN(counters.kernels, top)) kernels.push_back(kernelRowJson(row));
  ordered_json series = ordered_json::array();
  for (const analyzer::MetricSeries& s : counters.series) series.push_back(seriesJson(s));
  ordered_json disagreements = ordered_json::array();
  for (const analyzer::VerdictDisagreement& d : counters.disagreements) disagreements.push_back(disagreementJson(d));
  ordered_json groups = ordered_json::array();
  for (const analyzer::GroupCounterRow& row : firstN(counters.groups, top)) groups.push_back(groupRowJson(row));
  return {{"recorded", counters.recorded()},
          {"kernel_names", counters.kernels.size()},
          {"kernels", std::move(kernels)},
          {"groups_are_operators", counters.groups_operators},
          {"groups", std::move(groups)},
          {"series", std::move(series)},
          {"disagreements", std::move(disagreements)},
          {"not_understood", mapJson(counters.not_understood)},
          {"not_understood_first_place", mapJson(counters.first_place)}};
}

}  // namespace ampscope::reports
