#pragma once
// The fields of a rank's compact result (rank_result.h) and the names it is written under, listed
// once: the writer and the reader (reports/rank_result_json.cpp) both walk these lists, so that a
// field is read back exactly when it is written, and a field added here is carried both ways.
//
// forEachField(value, field) calls field(name, member) for each member a result carries, in the
// order it is written, or field(name, member, kAddedLater) for one that results written by an
// earlier version lack. It takes a value or a const value alike (read or write). A member not
// listed is not carried: a collective's bandwidths (the job computes them with its world size), a
// recommendation's op and layer lists (the rank's tables hold those rows) and its ranks (a job's).

#include <concepts>
#include <type_traits>

#include "analyzer/job/rank_result.h"

namespace ampscope::analyzer {

// The member may be absent from what an earlier version wrote: read where present.
inline constexpr bool kAddedLater = true;

// T is U or const U.
template <typename T, typename U>
concept FieldsOf = std::same_as<std::remove_const_t<T>, U>;

template <FieldsOf<StepSplit> T, typename Field>
void forEachField(T& s, Field&& field) {
  field("number", s.number);
  field("start_ns", s.start_ns);
  field("end_ns", s.end_ns);
  field("warmup", s.warmup);
  field("whole_window", s.whole_window);
  field("compute_ns", s.compute_ns);
  field("communication_ns", s.communication_ns);
  field("exposed_communication_ns", s.exposed_communication_ns);
  field("data_ns", s.data_ns);
  field("idle_ns", s.idle_ns);
}

template <FieldsOf<CollectiveRow> T, typename Field>
void forEachField(T& c, Field&& field) {
  field("name", c.name);
  field("kind", c.kind);
  field("element", c.element);
  field("group_size", c.group_size);
  field("calls", c.calls);
  field("time_ns", c.time_ns);
  field("calls_with_bytes", c.calls_with_bytes);
  field("bytes", c.bytes);
  field("time_with_bytes_ns", c.time_with_bytes_ns);
}

template <FieldsOf<CollectiveCall> T, typename Field>
void forEachField(T& c, Field&& field) {
  field("kind", c.kind);
  field("start_ns", c.start_ns);
  field("end_ns", c.end_ns);
  field("group", c.group);
}

template <FieldsOf<Recommendation> T, typename Field>
void forEachField(T& r, Field&& field) {
  field("rule", r.rule);
  field("severity", r.severity);
  field("target", r.target);
  field("evidence", r.evidence);
  field("action", r.action);
  field("estimated_gain_ns", r.estimated_gain_ns);
  field("estimated_gain_pct", r.estimated_gain_pct);
}

template <FieldsOf<RankFindings> T, typename Field>
void forEachField(T& f, Field&& field) {
  field("tensor_core_share", f.tensor_core_share);
  field("tensor_core_unknown_share", f.tensor_core_unknown_share);
  field("amp_projected_speedup", f.amp_projected_speedup);
  field("amp_reachable_speedup", f.amp_reachable_speedup);
  field("amp_ceiling", f.amp_ceiling);
  field("amp_per_step", f.amp_per_step);
  field("amp_device", f.amp_device);
  field("amp_note", f.amp_note);
  field("tf32_projected_speedup", f.tf32_projected_speedup);
  field("tf32_matrix_speedup", f.tf32_matrix_speedup);
  field("memory_peak_allocated_bytes", f.memory_peak_allocated_bytes, kAddedLater);
  field("memory_amp_projected_peak_bytes", f.memory_amp_projected_peak_bytes, kAddedLater);
  field("recommendations", f.recommendations);
}

template <FieldsOf<RowPerformance> T, typename Field>
void forEachField(T& p, Field&& field) {
  field("flops", p.flops);
  field("bytes", p.bytes);
  field("work_known_share", p.work_known_share);
  field("achieved_tflops", p.achieved_tflops);
  field("peak_tflops", p.peak_tflops);
  field("bound", p.bound);
  field("predicted_amp_ns", p.predicted_amp_ns);
}

template <FieldsOf<KernelLine> T, typename Field>
void forEachField(T& k, Field&& field) {
  field("name", k.name);
  field("calls", k.calls);
  field("time_ns", k.time_ns);
  field("tensor_core", k.tensor_core);
  field("precision", k.precision);
  field("rule", k.rule);
  field("confidence", k.confidence);
  field("alignment", k.alignment);
  field("performance", k.performance);
  field("measured_tensor_active", k.measured_tensor_active, kAddedLater);
  field("measured_tensor_ns", k.measured_tensor_ns, kAddedLater);
}

template <FieldsOf<DimensionFinding> T, typename Field>
void forEachField(T& d, Field&& field) {
  field("dimension", d.dimension);
  field("value", d.value);
  field("padded", d.padded);
}

template <FieldsOf<ShapeViolation> T, typename Field>
void forEachField(T& v, Field&& field) {
  field("misaligned", v.misaligned);
  field("required_multiple", v.required_multiple);
}

template <FieldsOf<LayerLine> T, typename Field>
void forEachField(T& l, Field&& field) {
  field("layer", l.layer);
  field("pass", l.pass);
  field("ops", l.ops);
  field("calls", l.calls);
  field("time_ns", l.time_ns);
  field("tensor_core_time_ns", l.tensor_core_time_ns);
  field("eligible", l.eligible);
  field("precision", l.precision);
  field("shapes", l.shapes);
  field("violations", l.violations);
  field("state", l.state);
  field("performance", l.performance);
  field("what_if_fp32_ns", l.what_if_fp32_ns);
  field("what_if_amp_ns", l.what_if_amp_ns);
  field("what_if_padding_cost_ns", l.what_if_padding_cost_ns);
  field("measured_tensor_active", l.measured_tensor_active, kAddedLater);
  field("measured_tensor_ns", l.measured_tensor_ns, kAddedLater);
}

template <FieldsOf<GemmLine> T, typename Field>
void forEachField(T& g, Field&& field) {
  field("m", g.m);
  field("n", g.n);
  field("k", g.k);
  field("batch", g.batch);
}

template <FieldsOf<OpLine> T, typename Field>
void forEachField(T& o, Field&& field) {
  field("op", o.op);
  field("shapes", o.shapes);
  field("arguments", o.arguments);
  field("layer", o.layer);
  field("pass", o.pass);
  field("class", o.op_class);
  field("calls", o.calls);
  field("kernels", o.kernels);
  field("time_ns", o.time_ns);
  field("precision", o.precision);
  field("flops_per_call", o.flops_per_call);
  field("bytes_per_call", o.bytes_per_call);
  field("work_basis", o.work_basis);
  field("work_note", o.work_note);
  field("gemm", o.gemm);
  field("achieved_tflops", o.achieved_tflops);
  field("achieved_gbs", o.achieved_gbs);
  field("peak_tflops", o.peak_tflops);
  field("intensity", o.intensity);
  field("bound", o.bound);
  field("rate_note", o.rate_note);
  field("amp", o.amp);
  field("predicted_amp_ns", o.predicted_amp_ns);
  field("amp_speedup", o.amp_speedup);
  field("tf32_speedup", o.tf32_speedup);
  field("amp_note", o.amp_note);
}

template <FieldsOf<RankTables> T, typename Field>
void forEachField(T& t, Field&& field) {
  field("recorded_on_cpu", t.recorded_on_cpu);
  field("layers_are_operators", t.layers_are_operators);
  field("kernels", t.kernels);
  field("layers", t.layers);
  field("ops", t.ops);
}

template <FieldsOf<RankResult> T, typename Field>
void forEachField(T& r, Field&& field) {
  field("rank", r.rank);
  field("origin", r.origin);
  field("recorded_world_size", r.recorded_world_size);
  field("backend", r.backend);
  field("source", r.source);
  field("file", r.file);
  field("pid", r.pid);
  field("device", r.device);
  field("clock", r.clock);
  field("steps_source", r.steps_source);
  field("steps", r.steps);
  field("collectives", r.collectives);
  field("calls", r.calls);
  field("findings", r.findings, kAddedLater);
  field("tables", r.tables, kAddedLater);
}

}  // namespace ampscope::analyzer
