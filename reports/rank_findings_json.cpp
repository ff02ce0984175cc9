#include "reports/rank_findings_json.h"

#include <fmt/format.h>

#include "reports/enum_values.h"

namespace ampscope::reports {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;
using namespace enum_values;

template <typename T>
ordered_json orNull(const std::optional<T>& value) {
  return value ? ordered_json(*value) : ordered_json(nullptr);
}

// Reads each element of an array member as an object with read(element, path).
template <typename Read>
void eachOf(JsonReader& in, const json& object, const char* key, const std::string& path, Read read) {
  const json* items = in.array(object, key, path);
  for (std::size_t i = 0; items && i < items->size() && in.ok(); ++i) read((*items)[i], fmt::format("{}.{}[{}]", path, key, i));
}

ordered_json recommendationToJson(const analyzer::Recommendation& r) {
  return {{"rule", r.rule},
          {"severity", analyzer::severityName(r.severity)},
          {"target", r.target},
          {"evidence", r.evidence},
          {"action", r.action},
          {"estimated_gain_ns", r.estimated_gain_ns},
          {"estimated_gain_pct", r.estimated_gain_pct}};
}

analyzer::Recommendation recommendationFromJson(JsonReader& in, const json& r, const std::string& path) {
  analyzer::Recommendation out;
  out.rule = in.text(r, "rule", path);
  out.severity = in.named(r, "severity", path, kSeverities, analyzer::severityName);
  out.target = in.text(r, "target", path);
  out.evidence = in.text(r, "evidence", path);
  out.action = in.text(r, "action", path);
  out.estimated_gain_ns = in.integer<std::int64_t>(r, "estimated_gain_ns", path);
  out.estimated_gain_pct = in.number(r, "estimated_gain_pct", path);
  return out;
}

ordered_json performanceToJson(const analyzer::RowPerformance& p) {
  return {{"flops", p.flops},
          {"bytes", p.bytes},
          {"work_known_share", p.work_known_share},
          {"achieved_tflops", orNull(p.achieved_tflops)},
          {"peak_tflops", p.peak_tflops},
          {"bound", analyzer::roofBoundName(p.bound)},
          {"predicted_amp_ns", orNull(p.predicted_amp_ns)}};
}

analyzer::RowPerformance performanceFromJson(JsonReader& in, const json& object, const std::string& at) {
  analyzer::RowPerformance out;
  const json* p = in.member(object, "performance", at);
  if (!p) return out;
  const std::string path = at + ".performance";
  out.flops = in.number(*p, "flops", path);
  out.bytes = in.number(*p, "bytes", path);
  out.work_known_share = in.number(*p, "work_known_share", path);
  out.achieved_tflops = in.optionalNumber(*p, "achieved_tflops", path);
  out.peak_tflops = in.number(*p, "peak_tflops", path);
  out.bound = in.named(*p, "bound", path, kBounds, analyzer::roofBoundName);
  out.predicted_amp_ns = in.optionalInteger<std::int64_t>(*p, "predicted_amp_ns", path);
  return out;
}

ordered_json kernelToJson(const analyzer::KernelLine& k) {
  return {{"name", k.name},
          {"calls", k.calls},
          {"time_ns", k.time_ns},
          {"tensor_core", analyzer::tensorCoreUseName(k.tensor_core)},
          {"precision", analyzer::precisionName(k.precision)},
          {"rule", k.rule},
          {"confidence", analyzer::confidenceName(k.confidence)},
          {"alignment", k.alignment},
          {"performance", performanceToJson(k.performance)}};
}

analyzer::KernelLine kernelFromJson(JsonReader& in, const json& k, const std::string& path) {
  analyzer::KernelLine out;
  out.name = in.text(k, "name", path);
  out.calls = in.integer<std::uint64_t>(k, "calls", path);
  out.time_ns = in.integer<std::int64_t>(k, "time_ns", path);
  out.tensor_core = in.named(k, "tensor_core", path, kTensorCoreUses, analyzer::tensorCoreUseName);
  // Results written before the verdict had a host value said "host": true beside "tensor_core".
  const json* host = in.optionalMember(k, "host", path);
  if (host && host->is_boolean() && host->get<bool>()) out.tensor_core = analyzer::TensorCoreUse::kHost;
  out.precision = in.named(k, "precision", path, kPrecisions, analyzer::precisionName);
  out.rule = in.text(k, "rule", path);
  out.confidence = in.named(k, "confidence", path, kConfidences, analyzer::confidenceName);
  out.alignment = in.integer<int>(k, "alignment", path);
  out.performance = performanceFromJson(in, k, path);
  return out;
}

ordered_json layerToJson(const analyzer::LayerLine& l) {
  ordered_json violations = ordered_json::array();
  for (const analyzer::ShapeViolation& v : l.violations) {
    ordered_json dims = ordered_json::array();
    for (const analyzer::DimensionFinding& d : v.misaligned) {
      dims.push_back({{"dimension", d.dimension}, {"value", d.value}, {"padded", d.padded}});
    }
    violations.push_back({{"misaligned", std::move(dims)}, {"required_multiple", v.required_multiple}});
  }
  return {{"layer", l.layer},
          {"pass", trace::phaseName(l.pass)},
          {"ops", l.ops},
          {"calls", l.calls},
          {"time_ns", l.time_ns},
          {"tensor_core_time_ns", l.tensor_core_time_ns},
          {"eligible", l.eligible},
          {"precision", analyzer::precisionName(l.precision)},
          {"shapes", l.shapes},
          {"violations", std::move(violations)},
          {"state", analyzer::layerStateName(l.state)},
          {"performance", performanceToJson(l.performance)},
          {"what_if_fp32_ns", orNull(l.what_if_fp32_ns)},
          {"what_if_amp_ns", orNull(l.what_if_amp_ns)},
          {"what_if_padding_cost_ns", l.what_if_padding_cost_ns}};
}

analyzer::LayerLine layerFromJson(JsonReader& in, const json& l, const std::string& path) {
  analyzer::LayerLine out;
  out.layer = in.text(l, "layer", path);
  out.pass = in.named(l, "pass", path, kPhases, trace::phaseName);
  out.ops = in.texts(l, "ops", path);
  out.calls = in.integer<std::uint64_t>(l, "calls", path);
  out.time_ns = in.integer<std::int64_t>(l, "time_ns", path);
  out.tensor_core_time_ns = in.integer<std::int64_t>(l, "tensor_core_time_ns", path);
  out.eligible = in.flag(l, "eligible", path);
  out.precision = in.named(l, "precision", path, kPrecisions, analyzer::precisionName);
  out.shapes = in.texts(l, "shapes", path);
  eachOf(in, l, "violations", path, [&](const json& v, const std::string& at) {
    analyzer::ShapeViolation violation;
    eachOf(in, v, "misaligned", at, [&](const json& d, const std::string& dim_at) {
      violation.misaligned.push_back({.dimension = in.text(d, "dimension", dim_at),
                                      .value = in.integer<std::int64_t>(d, "value", dim_at),
                                      .padded = in.integer<std::int64_t>(d, "padded", dim_at)});
    });
    violation.required_multiple = in.integer<int>(v, "required_multiple", at);
    out.violations.push_back(std::move(violation));
  });
  out.state = in.named(l, "state", path, kLayerStates, analyzer::layerStateName);
  out.performance = performanceFromJson(in, l, path);
  out.what_if_fp32_ns = in.optionalNumber(l, "what_if_fp32_ns", path);
  out.what_if_amp_ns = in.optionalNumber(l, "what_if_amp_ns", path);
  out.what_if_padding_cost_ns = in.number(l, "what_if_padding_cost_ns", path);
  return out;
}

ordered_json opToJson(const analyzer::OpLine& o) {
  return {{"op", o.op},
          {"shapes", o.shapes},
          {"arguments", o.arguments},
          {"layer", o.layer},
          {"pass", trace::phaseName(o.pass)},
          {"class", analyzer::opClassName(o.op_class)},
          {"calls", o.calls},
          {"kernels", o.kernels},
          {"time_ns", o.time_ns},
          {"precision", analyzer::precisionName(o.precision)},
          {"flops_per_call", orNull(o.flops_per_call)},
          {"bytes_per_call", orNull(o.bytes_per_call)},
          {"work_basis", analyzer::workBasisName(o.work_basis)},
          {"work_note", o.work_note},
          {"gemm", o.gemm ? ordered_json({{"m", o.gemm->m}, {"n", o.gemm->n}, {"k", o.gemm->k}, {"batch", o.gemm->batch}})
                          : ordered_json(nullptr)},
          {"achieved_tflops", orNull(o.achieved_tflops)},
          {"achieved_gbs", orNull(o.achieved_gbs)},
          {"peak_tflops", o.peak_tflops},
          {"intensity", orNull(o.intensity)},
          {"bound", analyzer::roofBoundName(o.bound)},
          {"rate_note", o.rate_note},
          {"amp", analyzer::ampChangeName(o.amp)},
          {"predicted_amp_ns", orNull(o.predicted_amp_ns)},
          {"amp_speedup", o.amp_speedup},
          {"tf32_speedup", o.tf32_speedup},
          {"amp_note", o.amp_note}};
}

analyzer::OpLine opFromJson(JsonReader& in, const json& o, const std::string& path) {
  analyzer::OpLine out;
  out.op = in.text(o, "op", path);
  out.shapes = in.text(o, "shapes", path);
  out.arguments = in.text(o, "arguments", path);
  out.layer = in.text(o, "layer", path);
  out.pass = in.named(o, "pass", path, kPhases, trace::phaseName);
  out.op_class = in.named(o, "class", path, kOpClasses, analyzer::opClassName);
  out.calls = in.integer<std::uint64_t>(o, "calls", path);
  out.kernels = in.integer<std::uint64_t>(o, "kernels", path);
  out.time_ns = in.integer<std::int64_t>(o, "time_ns", path);
  out.precision = in.named(o, "precision", path, kPrecisions, analyzer::precisionName);
  out.flops_per_call = in.optionalNumber(o, "flops_per_call", path);
  out.bytes_per_call = in.optionalNumber(o, "bytes_per_call", path);
  out.work_basis = in.named(o, "work_basis", path, kWorkBases, analyzer::workBasisName);
  out.work_note = in.text(o, "work_note", path);
  if (const json* gemm = in.member(o, "gemm", path); gemm && !gemm->is_null()) {
    const std::string at = path + ".gemm";
    out.gemm = analyzer::GemmLine{.m = in.integer<std::int64_t>(*gemm, "m", at),
                                  .n = in.integer<std::int64_t>(*gemm, "n", at),
                                  .k = in.integer<std::int64_t>(*gemm, "k", at),
                                  .batch = in.integer<std::int64_t>(*gemm, "batch", at)};
  }
  out.achieved_tflops = in.optionalNumber(o, "achieved_tflops", path);
  out.achieved_gbs = in.optionalNumber(o, "achieved_gbs", path);
  out.peak_tflops = in.number(o, "peak_tflops", path);
  out.intensity = in.optionalNumber(o, "intensity", path);
  out.bound = in.named(o, "bound", path, kBounds, analyzer::roofBoundName);
  out.rate_note = in.text(o, "rate_note", path);
  out.amp = in.named(o, "amp", path, kAmpChanges, analyzer::ampChangeName);
  out.predicted_amp_ns = in.optionalInteger<std::int64_t>(o, "predicted_amp_ns", path);
  out.amp_speedup = in.number(o, "amp_speedup", path);
  out.tf32_speedup = in.number(o, "tf32_speedup", path);
  out.amp_note = in.text(o, "amp_note", path);
  return out;
}

}  // namespace

ordered_json rankFindingsToJson(const analyzer::RankFindings& f) {
  ordered_json recs = ordered_json::array();
  for (const analyzer::Recommendation& r : f.recommendations) recs.push_back(recommendationToJson(r));
  return {{"tensor_core_share", orNull(f.tensor_core_share)},
          {"tensor_core_unknown_share", orNull(f.tensor_core_unknown_share)},
          {"amp_projected_speedup", orNull(f.amp_projected_speedup)},
          {"amp_reachable_speedup", orNull(f.amp_reachable_speedup)},
          {"amp_ceiling", orNull(f.amp_ceiling)},
          {"amp_per_step", f.amp_per_step},
          {"amp_device", f.amp_device},
          {"amp_note", f.amp_note},
          {"tf32_projected_speedup", orNull(f.tf32_projected_speedup)},
          {"tf32_matrix_speedup", orNull(f.tf32_matrix_speedup)},
          {"recommendations", std::move(recs)}};
}

analyzer::RankFindings rankFindingsFromJson(JsonReader& in, const json& f, const std::string& path) {
  analyzer::RankFindings out;
  out.tensor_core_share = in.optionalNumber(f, "tensor_core_share", path);
  out.tensor_core_unknown_share = in.optionalNumber(f, "tensor_core_unknown_share", path);
  out.amp_projected_speedup = in.optionalNumber(f, "amp_projected_speedup", path);
  out.amp_reachable_speedup = in.optionalNumber(f, "amp_reachable_speedup", path);
  out.amp_ceiling = in.optionalNumber(f, "amp_ceiling", path);
  out.amp_per_step = in.flag(f, "amp_per_step", path);
  out.amp_device = in.text(f, "amp_device", path);
  out.amp_note = in.text(f, "amp_note", path);
  out.tf32_projected_speedup = in.optionalNumber(f, "tf32_projected_speedup", path);
  out.tf32_matrix_speedup = in.optionalNumber(f, "tf32_matrix_speedup", path);
  eachOf(in, f, "recommendations", path, [&](const json& r, const std::string& at) {
    out.recommendations.push_back(recommendationFromJson(in, r, at));
  });
  return out;
}

ordered_json rankTablesToJson(const analyzer::RankTables& t) {
  ordered_json kernels = ordered_json::array();
  for (const analyzer::KernelLine& k : t.kernels) kernels.push_back(kernelToJson(k));
  ordered_json layers = ordered_json::array();
  for (const analyzer::LayerLine& l : t.layers) layers.push_back(layerToJson(l));
  ordered_json ops = ordered_json::array();
  for (const analyzer::OpLine& o : t.ops) ops.push_back(opToJson(o));
  return {{"recorded_on_cpu", t.recorded_on_cpu},
          {"layers_are_operators", t.layers_are_operators},
          {"kernels", std::move(kernels)},
          {"layers", std::move(layers)},
          {"ops", std::move(ops)}};
}

analyzer::RankTables rankTablesFromJson(JsonReader& in, const json& t, const std::string& path) {
  analyzer::RankTables out;
  out.recorded_on_cpu = in.flag(t, "recorded_on_cpu", path);
  out.layers_are_operators = in.flag(t, "layers_are_operators", path);
  eachOf(in, t, "kernels", path, [&](const json& k, const std::string& at) { out.kernels.push_back(kernelFromJson(in, k, at)); });
  eachOf(in, t, "layers", path, [&](const json& l, const std::string& at) { out.layers.push_back(layerFromJson(in, l, at)); });
  eachOf(in, t, "ops", path, [&](const json& o, const std::string& at) { out.ops.push_back(opFromJson(in, o, at)); });
  return out;
}

}  // namespace ampscope::reports
