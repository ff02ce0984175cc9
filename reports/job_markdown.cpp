// report.md of a job: what report.html says, as Markdown tables.

#include <fmt/format.h>

#include "reports/job_report.h"
#include "reports/job_rows.h"
#include "reports/markdown_report.h"
#include "reports/report_file.h"
#include "reports/view_limits.h"

namespace ampscope::reports {

namespace {

std::string cell(std::string_view text) { return markdownCell(text); }

std::string orUnknown(const std::optional<std::int64_t>& ns) { return ns ? formatDuration(*ns) : "unknown"; }

void appendRanks(std::string& md, const analyzer::JobAnalysis& job) {
  md += "## Ranks, per steady step\n\nBusy = step - wait for late ranks at collectives; late = how long the rank held "
        "the collectives up, arriving last.\n\n"
        "| Rank | Step | Compute | Exposed comm. | Wait | Data | Idle | Busy | Late | Clock | Device | Source |\n"
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|\n";
  for (const analyzer::RankRow& r : job.ranks) {
    md += fmt::format("| {}{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", r.rank,
                      r.straggler ? " (straggler)" : "", formatDuration(r.steady_step_ns), formatDuration(r.compute_ns),
                      formatDuration(r.exposed_communication_ns), orUnknown(r.wait_ns), formatDuration(r.data_ns),
                      formatDuration(r.idle_ns), formatDuration(r.busy_ns), orUnknown(r.late_ns),
                      analyzer::clockAlignmentName(r.alignment), cell(r.device), cell(r.source));
  }
  md += "\n";
}

void appendFindings(std::string& md, const analyzer::JobAnalysis& job) {
  md += "## What each rank's own analysis found\n\nTensor Core share of its kernel time; AMP and TF32 projected "
        "speedups of its step; its memory peak (and under AMP, projected); its largest findings, gain per its own step (merged across ranks in the "
        "recommendations above).\n\n"
        "| Rank | Tensor Cores | AMP projected (ceiling) | TF32 | Memory peak | Largest findings |\n"
        "|---:|---:|---|---:|---:|---|\n";
  std::string unknown;
  for (std::size_t i = 0; i < job.ranks.size() && i < job.rank_results.size(); ++i) {
    const analyzer::RankFindings& f = job.rank_results[i].findings;
    md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", job.ranks[i].rank, tensorCoreShareText(f),
                      cell(ampProjectionText(f)), tf32ProjectionText(f), memoryPeakText(f), cell(topFindingsText(f)));
    if (!f.amp_projected_speedup) unknown += fmt::format("- rank {}: AMP unknown: {}\n", job.ranks[i].rank, f.amp_note);
  }
  md += "\n" + unknown + (unknown.empty() ? "" : "\n");
}

void appendCollectives(std::string& md, const analyzer::JobAnalysis& job, std::size_t top) {
  if (job.collectives.empty()) return;
  md += "## Collectives over all ranks\n\n| Collective | Kind | Calls | Time | algbw | busbw |\n"
        "|---|---|---:|---:|---:|---:|\n";
  const auto rate = [](const std::optional<double>& gbps) {
    return gbps ? fmt::format("{:.2f} GB/s", *gbps) : std::string("-");
  };
  for (const analyzer::CollectiveRow& row : firstN(job.collectives, top)) {
    md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", cell(row.name), analyzer::collectiveKindName(row.kind),
                      row.calls, formatDuration(row.time_ns), rate(row.algbw_gbps), rate(row.busbw_gbps));
  }
  md += "\n";
}

}  // namespace

std::string jobMarkdownReport(const analyzer::JobAnalysis& job, std::size_t top) {
  std::string md = fmt::format("# ampscope job report\n\n{} rank(s) of world size {} · {} step number(s) run by every "
                               "rank · imbalance {:.2f}x\n\n",
                               job.ranks.size(), job.world_size, job.steps.size(), job.imbalance);
  if (job.slowest_rank) md += fmt::format("**Slowest rank: {}.** {}\n\n", *job.slowest_rank, cell(job.slowest_why));
  md += markdownRecommendations(job.recommendations);
  appendRanks(md, job);
  appendFindings(md, job);
  appendCollectives(md, job, top);
  if (!job.notes.empty()) {
    md += "## Notes\n\n";
    for (const std::string& note : job.notes) md += "- " + note + "\n";
    md += "\n";
  }
  md += "One rank's complete report: `ampscope report TRACES --rank N --out DIR`.\n";
  return md;
}

}  // namespace ampscope::reports
