#include "reports/job_json.h"

#include <fmt/format.h>

#include "reports/job_rows.h"
#include "reports/rank_result_json.h"
#include "reports/report_json.h"

namespace ampscope::reports {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

ordered_json orNull(const std::optional<double>& value) { return value ? ordered_json(*value) : ordered_json(nullptr); }

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
          {"memory_peak_allocated_bytes",
           f.memory_peak_allocated_bytes ? ordered_json(*f.memory_peak_allocated_bytes) : ordered_json(nullptr)},
          {"memory_amp_projected_peak_bytes",
           f.memory_amp_projected_peak_bytes ? ordered_json(*f.memory_amp_projected_peak_bytes) : ordered_json(nullptr)},
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
