#include "reports/job_json.h"

#include <limits>

#include <fmt/format.h>

#include "reports/enum_values.h"
#include "reports/job_rows.h"
#include "reports/json_reader.h"
#include "reports/rank_findings_json.h"
#include "reports/report_json.h"

namespace ampscope::reports {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

ordered_json orNull(const std::optional<double>& value) { return value ? ordered_json(*value) : ordered_json(nullptr); }

using enum_values::kCollectiveKinds;
using enum_values::kOrigins;
using enum_values::kPrecisions;
using Reader = JsonReader;

// Timestamps beyond 2^62 ns (the year 2116 from the epoch) are corrupt: refused, so that the
// differences the job takes between ranks cannot overflow.
void checkTime(Reader& in, std::int64_t ns, const std::string& path) {
  constexpr std::int64_t kLimit = std::int64_t{1} << 62;
  if (in.ok() && (ns > kLimit || ns < -kLimit)) in.fail(path, fmt::format("is {}, beyond 2^62 ns", ns));
}

// A rank's findings as its ranks[] row shows them: its Tensor Core share, AMP and TF32 projections
// and its largest findings.
ordered_json rankFindingsRowJson(const analyzer::RankFindings& f) {
  ordered_json top = ordered_json::array();
  for (const analyzer::Recommendation* r : topFindings(f, kTopFindingsPerRank)) {
    top.push_back({{"rule", r->rule}, {"severity", analyzer::severityName(r->severity)}, {"target", r->target},
                   {"action", r->action}, {"estimated_gain_ns", r->estimated_gain_ns},
                   {"estimated_gain_pct", r->estimated_gain_pct}});
  }
  return {{"tensor_core_share", orNull(f.tensor_core_share)},
          {"amp_projected_speedup", orNull(f.amp_projected_speedup)},
          {"amp_reachable_speedup", orNull(f.amp_reachable_speedup)},
          {"amp_ceiling", orNull(f.amp_ceiling)},
          {"amp_per_step", f.amp_per_step},
          {"amp_note", f.amp_note},
          {"tf32_projected_speedup", orNull(f.tf32_projected_speedup)},
          {"top_findings", std::move(top)}};
}

}  // namespace

ordered_json collectivesJson(const std::vector<analyzer::CollectiveRow>& rows) {
  ordered_json out = ordered_json::array();
  for (const analyzer::CollectiveRow& row : rows) {
    out.push_back({{"name", row.name},
                   {"kind", analyzer::collectiveKindName(row.kind)},
                   {"element", analyzer::precisionName(row.element)},
                   {"group_size", row.group_size > 0 ? ordered_json(row.group_size) : ordered_json(nullptr)},
                   {"calls", row.calls},
                   {"time_ns", row.time_ns},
                   {"calls_with_bytes", row.calls_with_bytes},
                   {"bytes", row.calls_with_bytes > 0 ? ordered_json(row.bytes) : ordered_json(nullptr)},
                   {"algbw_gbps", orNull(row.algbw_gbps)},
                   {"busbw_gbps", orNull(row.busbw_gbps)}});
  }
  return out;
}

ordered_json rankResultToJson(const analyzer::RankResult& rank) {
  ordered_json steps = ordered_json::array();
  for (const analyzer::StepSplit& s : rank.steps) {
    steps.push_back({{"number", s.number}, {"start_ns", s.start_ns}, {"end_ns", s.end_ns}, {"warmup", s.warmup},
                     {"whole_window", s.whole_window}, {"compute_ns", s.compute_ns}, {"communication_ns", s.communication_ns},
                     {"exposed_communication_ns", s.exposed_communication_ns}, {"data_ns", s.data_ns},
                     {"idle_ns", s.idle_ns}});
  }
  ordered_json collectives = ordered_json::array();
  for (const analyzer::CollectiveRow& c : rank.collectives) {
    collectives.push_back({{"name", c.name}, {"kind", analyzer::collectiveKindName(c.kind)},
                           {"element", analyzer::precisionName(c.element)}, {"group_size", c.group_size},
                           {"calls", c.calls},
                           {"time_ns", c.time_ns}, {"calls_with_bytes", c.calls_with_bytes}, {"bytes", c.bytes},
                           {"time_with_bytes_ns", c.time_with_bytes_ns}});
  }
  // Calls as [kind, start_ns, end_ns], with the process group's name fourth where recorded: a job
  // holds one per collective kernel.
  ordered_json calls = ordered_json::array();
  for (const analyzer::CollectiveCall& c : rank.calls) {
    ordered_json call = ordered_json::array({analyzer::collectiveKindName(c.kind), c.start_ns, c.end_ns});
    if (!c.group.empty()) call.push_back(c.group);
    calls.push_back(std::move(call));
  }
  return {{"rank", rank.rank},
          {"origin", analyzer::rankOriginName(rank.origin)},
          {"recorded_world_size", rank.recorded_world_size},
          {"backend", rank.backend},
          {"source", rank.source},
          {"file", rank.file},
          {"pid", rank.pid},
          {"device", rank.device},
          {"clock", rank.clock},
          {"steps_source", rank.steps_source},
          {"steps", std::move(steps)},
          {"collectives", std::move(collectives)},
          {"calls", std::move(calls)},
          {"findings", rankFindingsToJson(rank.findings)},
          {"tables", rankTablesToJson(rank.tables)}};
}

trace::Result<analyzer::RankResult> rankResultFromJson(const json& value, const std::string& where) {
  Reader in(where);
  analyzer::RankResult out;
  const std::string at = "rank_result";
  out.rank = in.integer<std::int32_t>(value, "rank", at);
  out.origin = in.named(value, "origin", at, kOrigins, analyzer::rankOriginName);
  out.recorded_world_size = in.integer<std::int32_t>(value, "recorded_world_size", at);
  out.backend = in.text(value, "backend", at);
  out.source = in.text(value, "source", at);
  out.file = in.text(value, "file", at);
  out.pid = in.integer<std::int64_t>(value, "pid", at);
  out.device = in.text(value, "device", at);
  out.clock = in.text(value, "clock", at);
  out.steps_source = in.text(value, "steps_source", at);
  if (const json* steps = in.array(value, "steps", at)) {
    for (std::size_t i = 0; i < steps->size() && in.ok(); ++i) {
      const json& s = (*steps)[i];
      const std::string path = fmt::format("{}.steps[{}]", at, i);
      analyzer::StepSplit step;
      step.number = in.integer<std::int64_t>(s, "number", path);
      step.start_ns = in.integer<std::int64_t>(s, "start_ns", path);
      step.end_ns = in.integer<std::int64_t>(s, "end_ns", path);
      step.warmup = in.flag(s, "warmup", path);
      step.whole_window = in.flag(s, "whole_window", path);
      step.compute_ns = in.integer<std::int64_t>(s, "compute_ns", path);
      step.communication_ns = in.integer<std::int64_t>(s, "communication_ns", path);
      step.exposed_communication_ns = in.integer<std::int64_t>(s, "exposed_communication_ns", path);
      step.data_ns = in.integer<std::int64_t>(s, "data_ns", path);
      step.idle_ns = in.integer<std::int64_t>(s, "idle_ns", path);
      if (in.ok() && step.end_ns < step.start_ns) in.fail(path, "ends before it starts");
      checkTime(in, step.start_ns, path + ".start_ns");
      checkTime(in, step.end_ns, path + ".end_ns");
      out.steps.push_back(step);
    }
  }
  if (const json* collectives = in.array(value, "collectives", at)) {
    for (std::size_t i = 0; i < collectives->size() && in.ok(); ++i) {
      const json& c = (*collectives)[i];
      const std::string path = fmt::format("{}.collectives[{}]", at, i);
      analyzer::CollectiveRow row;
      row.name = in.text(c, "name", path);
      row.kind = in.named(c, "kind", path, kCollectiveKinds, analyzer::collectiveKindName);
      row.element = in.named(c, "element", path, kPrecisions, analyzer::precisionName);
      row.group_size = in.integer<std::int32_t>(c, "group_size", path);
      row.calls = in.integer<std::uint64_t>(c, "calls", path);
      row.time_ns = in.integer<std::int64_t>(c, "time_ns", path);
      row.calls_with_bytes = in.integer<std::uint64_t>(c, "calls_with_bytes", path);
      row.bytes = in.integer<std::uint64_t>(c, "bytes", path);
      row.time_with_bytes_ns = in.integer<std::int64_t>(c, "time_with_bytes_ns", path);
      out.collectives.push_back(std::move(row));
    }
  }
  if (const json* calls = in.array(value, "calls", at)) {
    for (std::size_t i = 0; i < calls->size() && in.ok(); ++i) {
      const json& c = (*calls)[i];
      const std::string path = fmt::format("{}.calls[{}]", at, i);
      if (!c.is_array() || c.size() < 3 || c.size() > 4 || !c[0].is_string() || !c[1].is_number_integer() ||
          !c[2].is_number_integer() || (c.size() == 4 && !c[3].is_string())) {
        in.fail(path, "is not [kind, start_ns, end_ns] or [kind, start_ns, end_ns, group]");
        break;
      }
      const json call = {{"kind", c[0]}, {"start_ns", c[1]}, {"end_ns", c[2]}};
      analyzer::CollectiveCall out_call;
      out_call.kind = in.named(call, "kind", path, kCollectiveKinds, analyzer::collectiveKindName);
      out_call.start_ns = in.integer<std::int64_t>(call, "start_ns", path);
      out_call.end_ns = in.integer<std::int64_t>(call, "end_ns", path);
      if (c.size() == 4) out_call.group = c[3].get<std::string>();
      if (in.ok() && out_call.end_ns < out_call.start_ns) in.fail(path, "ends before it starts");
      checkTime(in, out_call.start_ns, path + ".start_ns");
      checkTime(in, out_call.end_ns, path + ".end_ns");
      out.calls.push_back(out_call);
    }
  }
  // Results written before ranks carried their findings and tables are read without them: the
  // job shows their steps and waits, and no findings for those ranks.
  if (const json* findings = in.optionalMember(value, "findings", at)) {
    out.findings = rankFindingsFromJson(in, *findings, at + ".findings");
  }
  if (const json* tables = in.optionalMember(value, "tables", at)) {
    out.tables = rankTablesFromJson(in, *tables, at + ".tables");
  }
  if (!in.ok()) return trace::Error{in.error()};
  return out;
}

trace::Result<std::vector<analyzer::RankResult>> rankResultsFromDocument(const std::string& text,
                                                                         const std::string& file) {
  json document;
  try {
    document = json::parse(text);
  } catch (const json::parse_error& e) {
    return trace::Error{fmt::format("{}: not JSON (byte {}): expected the output of `ampscope analyze --json` or "
                                    "`ampscope merge --json`", file, e.byte)};
  }
  std::vector<analyzer::RankResult> out;
  if (document.is_object() && document.contains("rank_result")) {
    auto rank = rankResultFromJson(document["rank_result"], file);
    if (!rank) return rank.error();
    out.push_back(std::move(rank).value());
    return out;
  }
  if (document.is_object() && document.contains("rank_results") && document["rank_results"].is_array()) {
    const json& ranks = document["rank_results"];
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      auto rank = rankResultFromJson(ranks[i], fmt::format("{}: rank_results[{}]", file, i));
      if (!rank) return rank.error();
      out.push_back(std::move(rank).value());
    }
    return out;
  }
  return trace::Error{fmt::format("{}: holds no \"rank_result\" or \"rank_results\": expected the output of "
                                  "`ampscope analyze --json` or `ampscope merge --json`", file)};
}

ordered_json jobToJsonDocument(const analyzer::JobAnalysis& job) {
  ordered_json ranks = ordered_json::array();
  for (std::size_t i = 0; i < job.ranks.size(); ++i) {
    const analyzer::RankRow& r = job.ranks[i];
    ranks.push_back({{"rank", r.rank},
                     {"origin", analyzer::rankOriginName(r.origin)},
                     {"source", r.source},
                     {"device", r.device},
                     {"clock_alignment", analyzer::clockAlignmentName(r.alignment)},
                     {"clock_offset_ns", r.clock_offset_ns},
                     {"steps", r.steps},
                     {"steady_steps", r.steady_steps},
                     {"steady_step_ns", r.steady_step_ns},
                     {"compute_ns", r.compute_ns},
                     {"communication_ns", r.communication_ns},
                     {"exposed_communication_ns", r.exposed_communication_ns},
                     {"wait_ns", r.wait_ns ? ordered_json(*r.wait_ns) : ordered_json(nullptr)},
                     {"data_ns", r.data_ns},
                     {"idle_ns", r.idle_ns},
                     {"busy_ns", r.busy_ns},
                     {"late_ns", r.late_ns ? ordered_json(*r.late_ns) : ordered_json(nullptr)},
                     {"straggler", r.straggler}});
    // What the rank's own analysis found (its full account: rank_results[i].findings).
    if (i < job.rank_results.size()) ranks.back().update(rankFindingsRowJson(job.rank_results[i].findings));
  }
  ordered_json steps = ordered_json::array();
  for (const analyzer::JobStep& s : job.steps) {
    steps.push_back({{"number", s.number}, {"start_ns", s.start_ns}, {"end_ns", s.end_ns},
                     {"duration_ns", s.end_ns - s.start_ns}, {"longest_rank", s.longest_rank}});
  }
  ordered_json recs = ordered_json::array();
  for (const analyzer::Recommendation& r : job.recommendations) {
    recs.push_back(recommendationJson(r));
    recs.back()["ranks"] = r.ranks;
  }
  ordered_json results = ordered_json::array();
  for (const analyzer::RankResult& r : job.rank_results) results.push_back(rankResultToJson(r));
  ordered_json doc;
  doc["format"] = "job";
  doc["world_size"] = job.world_size;
  doc["ranks_given"] = job.ranks.size();
  doc["slowest_rank"] = job.slowest_rank ? ordered_json(*job.slowest_rank) : ordered_json(nullptr);
  doc["slowest_reason"] = job.slowest_rank ? ordered_json(analyzer::slowReasonName(job.slowest_reason)) : ordered_json(nullptr);
  doc["slowest_basis"] = job.slowest_rank ? ordered_json(analyzer::slowestBasisName(job.slowest_basis)) : ordered_json(nullptr);
  doc["slowest_why"] = job.slowest_why;
  doc["imbalance"] = job.imbalance;
  doc["stragglers"] = job.stragglers;
  doc["ranks"] = std::move(ranks);
  doc["steps"] = std::move(steps);
  doc["collectives"] = collectivesJson(job.collectives);
  ordered_json waits = ordered_json::array();
  for (const analyzer::CollectiveWait& w : job.collective_waits) {
    waits.push_back({{"kind", analyzer::collectiveKindName(w.kind)}, {"group", w.group}, {"ranks", w.ranks},
                     {"calls", w.calls}, {"wait_ns", w.wait_ns}, {"last_rank", w.last_rank},
                     {"last_rank_calls", w.last_rank_calls}});
  }
  doc["collective_waits"] = std::move(waits);
  doc["notes"] = job.notes;
  doc["recommendations"] = std::move(recs);
  doc["rank_results"] = std::move(results);
  return doc;
}

}  // namespace ampscope::reports
