#include "reports/job_report.h"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "reports/csv_reports.h"
#include "reports/csv_writer.h"
#include "reports/html_report.h"
#include "reports/job_json.h"
#include "reports/job_rows.h"
#include "reports/report_file.h"
#include "reports/report_json.h"
#include "reports/svg_charts.h"
#include "reports/view_limits.h"

namespace ampscope::reports {

namespace {

std::string esc(std::string_view text) { return escapeHtml(text); }

double msOf(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

std::string rankLabel(const analyzer::JobAnalysis& job, const analyzer::RankRow& r) {
  if (job.slowest_rank && *job.slowest_rank == r.rank) return fmt::format("rank {} (slowest)", r.rank);
  return r.straggler ? fmt::format("rank {} (straggler)", r.rank) : fmt::format("rank {}", r.rank);
}

std::string rankChart(const analyzer::JobAnalysis& job) {
  std::vector<StackedRow> rows;
  double longest = 0.0;
  for (const analyzer::RankRow& r : job.ranks) {
    StackedRow row{.label = rankLabel(job, r), .parts = {}, .value_text = formatDuration(r.steady_step_ns),
                   .marked = r.straggler || (job.slowest_rank && *job.slowest_rank == r.rank)};
    const std::pair<const char*, std::int64_t> parts[] = {{"compute", r.compute_ns},
                                                          {"exposed communication", r.exposed_communication_ns},
                                                          {"data", r.data_ns},
                                                          {"idle", r.idle_ns}};
    double total = 0.0;
    for (std::size_t i = 0; i < std::size(parts); ++i) {
      row.parts.push_back({.label = parts[i].first, .value = msOf(parts[i].second),
                           .value_text = formatDuration(parts[i].second), .color = {}});
      total += msOf(parts[i].second);
    }
    longest = std::max(longest, total);
    rows.push_back(std::move(row));
  }
  return stackedRowsChart(rows, longest);
}

std::string ranksTable(const analyzer::JobAnalysis& job) {
  std::string html = R"(<table><tr><th>Rank</th><th>Source</th><th>Device</th><th class="n">Step</th>)"
                     R"(<th class="n">Compute</th><th class="n">Exposed comm.</th><th class="n">Wait</th>)"
                     R"(<th class="n">Data</th><th class="n">Idle</th><th class="n">Busy</th><th class="n">Late</th><th>Clock</th></tr>)";
  for (const analyzer::RankRow& r : job.ranks) {
    html += fmt::format(
        R"(<tr><td class="nowrap">{}</td><td class="mono">{}</td><td>{}</td><td class="n">{}</td><td class="n">{}</td>)"
        R"(<td class="n">{}</td><td class="n">{}</td><td class="n">{}</td><td class="n">{}</td><td class="n">{}</td><td class="n">{}</td><td>{}</td></tr>)",
        r.straggler ? fmt::format("<b>{}</b>", esc(rankLabel(job, r))) : esc(rankLabel(job, r)), esc(r.source),
        esc(r.device), formatDuration(r.steady_step_ns), formatDuration(r.compute_ns),
        formatDuration(r.exposed_communication_ns), r.wait_ns ? formatDuration(*r.wait_ns) : "unknown",
        formatDuration(r.data_ns), formatDuration(r.idle_ns), formatDuration(r.busy_ns),
        r.late_ns ? formatDuration(*r.late_ns) : "unknown", esc(analyzer::clockAlignmentName(r.alignment)));
  }
  return html + "</table>";
}

// What each rank's own analysis found: its Tensor Core share, AMP and TF32 projections, its memory
// peak, and its largest findings (the merged ones are the recommendations above).
std::string findingsTable(const analyzer::JobAnalysis& job) {
  std::string html = R"(<table><tr><th>Rank</th><th class="n">Tensor Cores</th><th>AMP projected (ceiling)</th>)"
                     R"(<th class="n">TF32</th><th class="n">Memory peak</th><th>Largest findings (gain per its step)</th></tr>)";
  for (std::size_t i = 0; i < job.ranks.size() && i < job.rank_results.size(); ++i) {
    const analyzer::RankFindings& f = job.rank_results[i].findings;
    const std::string amp = f.amp_projected_speedup
                                ? esc(ampProjectionText(f))
                                : fmt::format(R"(unknown <span class="muted">{}</span>)", esc(f.amp_note));
    html += fmt::format(R"(<tr><td class="nowrap">{}</td><td class="n">{}</td><td>{}</td><td class="n">{}</td>)"
                        R"(<td class="n">{}</td><td class="mono">{}</td></tr>)",
                        esc(rankLabel(job, job.ranks[i])), esc(tensorCoreShareText(f)), amp,
                        esc(tf32ProjectionText(f)), esc(memoryPeakText(f)), esc(topFindingsText(f)));
  }
  return html + "</table>";
}

std::string collectivesTable(const analyzer::JobAnalysis& job, std::size_t top) {
  if (job.collectives.empty()) return R"(<p class="muted">No collective kernel in these traces.</p>)";
  std::string html = R"(<table><tr><th>Collective</th><th>Kind</th><th class="n">Calls</th><th class="n">Time</th>)"
                     R"(<th class="n">Bytes</th><th class="n">algbw</th><th class="n">busbw</th></tr>)";
  const auto rate = [](const std::optional<double>& gbps) {
    return gbps ? fmt::format("{:.2f} GB/s", *gbps) : std::string("-");
  };
  for (const analyzer::CollectiveRow& row : firstN(job.collectives, top)) {
    html += fmt::format(R"(<tr><td class="mono">{}</td><td>{}</td><td class="n">{}</td><td class="n">{}</td>)"
                        R"(<td class="n">{}</td><td class="n">{}</td><td class="n">{}</td></tr>)",
                        esc(row.name), analyzer::collectiveKindName(row.kind), row.calls, formatDuration(row.time_ns),
                        row.calls_with_bytes > 0 ? std::to_string(row.bytes) : std::string("-"), rate(row.algbw_gbps),
                        rate(row.busbw_gbps));
  }
  return html + "</table>";
}

std::string waitsTable(const analyzer::JobAnalysis& job, std::size_t top) {
  if (job.collective_waits.empty()) return R"(<p class="muted">No collective could be matched across ranks.</p>)";
  std::string html = R"(<table><tr><th class="n">Wait / step</th><th>Kind</th><th>Group</th><th class="n">Ranks</th>)"
                     R"(<th class="n">Calls</th><th>Last to arrive</th></tr>)";
  for (const analyzer::CollectiveWait& w : firstN(job.collective_waits, top)) {
    html += fmt::format(R"(<tr><td class="n">{}</td><td>{}</td><td>{}</td><td class="n">{}</td><td class="n">{}</td>)"
                        R"(<td>rank {} ({} of {})</td></tr>)",
                        formatDuration(w.wait_ns), analyzer::collectiveKindName(w.kind),
                        w.group.empty() ? std::string("-") : esc(w.group), w.ranks, w.calls, w.last_rank,
                        w.last_rank_calls, w.calls);
  }
  return html + "</table>";
}

}  // namespace

std::string ranksCsv(const analyzer::JobAnalysis& job) {
  CsvWriter csv({"rank", "origin", "source", "device", "clock_alignment", "clock_offset_ns", "steps", "steady_steps",
                 "steady_step_ns", "compute_ns", "communication_ns", "exposed_communication_ns", "wait_ns", "data_ns",
                 "idle_ns", "busy_ns", "late_ns", "straggler", "slowest", "tensor_core_share",
                 "amp_projected_speedup", "amp_ceiling", "tf32_projected_speedup", "memory_peak_allocated_bytes",
                 "memory_amp_projected_peak_bytes"});
  const auto number = [](const std::optional<double>& value) { return value ? fmt::format("{:.4f}", *value) : std::string(); };
  for (std::size_t i = 0; i < job.ranks.size(); ++i) {
    const analyzer::RankRow& r = job.ranks[i];
    csv.add(static_cast<std::int64_t>(r.rank)).add(analyzer::rankOriginName(r.origin)).add(r.source).add(r.device);
    csv.add(analyzer::clockAlignmentName(r.alignment)).add(r.clock_offset_ns);
    csv.add(static_cast<std::uint64_t>(r.steps)).add(static_cast<std::uint64_t>(r.steady_steps));
    csv.add(r.steady_step_ns).add(r.compute_ns).add(r.communication_ns).add(r.exposed_communication_ns);
    csv.add(r.wait_ns ? std::to_string(*r.wait_ns) : std::string());  // empty: unknown
    csv.add(r.data_ns).add(r.idle_ns).add(r.busy_ns);
    csv.add(r.late_ns ? std::to_string(*r.late_ns) : std::string());  // empty: unknown
    csv.addBool(r.straggler);
    csv.addBool(job.slowest_rank && *job.slowest_rank == r.rank);
    // The rank's own analysis; empty: unknown (no projection, a CPU run) or, for TF32, not relevant.
    const analyzer::RankFindings* f = i < job.rank_results.size() ? &job.rank_results[i].findings : nullptr;
    csv.add(f ? number(f->tensor_core_share) : std::string()).add(f ? number(f->amp_projected_speedup) : std::string());
    csv.add(f ? number(f->amp_ceiling) : std::string()).add(f ? number(f->tf32_projected_speedup) : std::string());
    const auto bytes = [](const std::optional<std::int64_t>& value) { return value ? std::to_string(*value) : std::string(); };
    csv.add(f ? bytes(f->memory_peak_allocated_bytes) : std::string());
    csv.add(f ? bytes(f->memory_amp_projected_peak_bytes) : std::string());
    csv.endRow();
  }
  return csv.text();
}

std::string jobHtmlReport(const analyzer::JobAnalysis& job, std::size_t top) {
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                     "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
                     "<title>ampscope job report</title><style>";
  html += htmlStyleSheet();
  html += "</style></head><body><main>";
  html += fmt::format(R"(<h1>ampscope job report</h1><div class="sub">{} rank(s) of world size {} · {} step number(s) )"
                      R"(run by every rank · imbalance {:.2f}x</div>)",
                      job.ranks.size(), job.world_size, job.steps.size(), job.imbalance);
  if (job.slowest_rank) {
    html += fmt::format(R"(<section><h2>Slowest rank: {}</h2><p>{}</p></section>)", *job.slowest_rank,
                        esc(job.slowest_why));
  }
  html += htmlRecommendationsSection(job.recommendations);
  html += "<section><h2>Steady step per rank</h2>" + rankChart(job) +
          R"(<p class="note">Per steady step. Wait (time a rank's collectives waited for ranks that arrived later) )"
          R"(is part of its communication (overlapped or exposed); busy = step - wait, the step a rank would take alone; )"
          R"(late = how long it held the collectives up, arriving last ahead of the next-latest rank.</p>)" +
          ranksTable(job) + "</section>";
  html += "<section><h2>What each rank's own analysis found</h2>" + findingsTable(job) +
          R"(<p class="note">Tensor Core share of each rank's kernel time; AMP and TF32 projected speedups of its )"
          R"(step (Amdahl, docs/amdahl.md); its largest findings with their gain per its own step. The )"
          R"(recommendations above merge them across ranks, with the job's gain. One rank's complete report: )"
          R"(<code>report TRACES --rank N</code>.</p></section>)";
  html += "<section><h2>Collectives over all ranks</h2>" + collectivesTable(job, top) +
          "<h3>Waits for the last rank to arrive</h3>" + waitsTable(job, top) + "</section>";
  if (!job.notes.empty()) {
    html += "<section><h2>Notes</h2><ul>";
    for (const std::string& note : job.notes) html += "<li>" + esc(note) + "</li>";
    html += "</ul></section>";
  }
  html += "</main></body></html>\n";
  return html;
}

trace::Status writeJobReport(const analyzer::JobAnalysis& job, const std::filesystem::path& dir, std::size_t top) {
  if (trace::Status created = createReportDirectory(dir); !created) return created;
  const std::function<trace::Status()> writes[] = {
      [&] { return writeReportFile(dir, "report.html", jobHtmlReport(job, top)); },
      [&] { return writeReportFile(dir, "report.json", formatJsonDocument(jobToJsonDocument(job))); },
      [&] { return writeReportFile(dir, "report.md", jobMarkdownReport(job, top)); },
      [&] { return writeReportFile(dir, "ranks.csv", ranksCsv(job)); },
      [&] { return writeReportFile(dir, "collectives.csv", collectivesCsv(job.collectives)); },
      [&] { return writeReportFile(dir, "recommendations.csv", jobRecommendationsCsv(job.recommendations)); },
      [&] { return writeReportFile(dir, "kernels.csv", kernelsCsv(job.rank_results)); },
      [&] { return writeReportFile(dir, "layers.csv", layersCsv(job.rank_results)); },
      [&] { return writeReportFile(dir, "ops.csv", opsCsv(job.rank_results)); },
  };
  for (const auto& write : writes) {
    if (trace::Status status = write(); !status) return status;
  }
  return {};
}

}  // namespace ampscope::reports
