#include "cli/job_text.h"

#include <fmt/format.h>

#include "cli/summary_text.h"
#include "reports/job_rows.h"
#include "reports/report_file.h"
#include "reports/view_limits.h"

namespace ampscope::cli {

using reports::formatDuration;

std::string jobToText(const analyzer::JobAnalysis& job, std::size_t top) {
  std::string out = fmt::format("job         {} rank(s) given of world size {}; {}\n", job.ranks.size(),
                                job.world_size,
                                job.steps.empty() ? std::string("no step number run by every rank")
                                                  : fmt::format("{} step number(s) run by every rank", job.steps.size()));
  if (job.slowest_rank) {
    out += fmt::format("slowest     rank {} (by {}; held by {}): {}\n", *job.slowest_rank,
                       analyzer::slowestBasisName(job.slowest_basis), analyzer::slowReasonName(job.slowest_reason),
                       job.slowest_why);
  }
  out += fmt::format("imbalance   {:.2f}x (busiest rank over the mean){}\n", job.imbalance,
                     job.stragglers.empty() ? std::string()
                                            : fmt::format("; stragglers: {}", fmt::join(job.stragglers, ", ")));
  out += "\nRanks, per steady step (busy = step - wait for late ranks at collectives; late = how long it held collectives up, arriving last)\n";
  out += fmt::format("  {:>4} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}  {:<14} {:<24} {}\n",
                     "rank", "step", "compute", "exposed", "wait", "data", "idle", "busy", "late", "comm", "clock",
                     "device", "source");
  for (const analyzer::RankRow& r : job.ranks) {
    out += fmt::format("  {:>4} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}  {:<14} {:<24} {}{}\n",
                       r.rank, formatDuration(r.steady_step_ns), formatDuration(r.compute_ns),
                       formatDuration(r.exposed_communication_ns), r.wait_ns ? formatDuration(*r.wait_ns) : "unknown",
                       formatDuration(r.data_ns), formatDuration(r.idle_ns), formatDuration(r.busy_ns),
                       r.late_ns ? formatDuration(*r.late_ns) : "unknown",
                       formatDuration(r.communication_ns), analyzer::clockAlignmentName(r.alignment), r.device, r.source,
                       r.straggler ? "  <- straggler" : "");
  }
  out += "\nRanks' own findings (Tensor Core share of kernel time; AMP and TF32 projected speedups; largest "
         "findings, gain per the rank's step)\n";
  out += fmt::format("  {:>4} {:>8}  {:<38} {:>6}  {}\n", "rank", "TC", "AMP (ceiling)", "TF32", "findings");
  for (std::size_t i = 0; i < job.ranks.size() && i < job.rank_results.size(); ++i) {
    const analyzer::RankFindings& f = job.rank_results[i].findings;
    out += fmt::format("  {:>4} {:>8}  {:<38} {:>6}  {}\n", job.ranks[i].rank, reports::tensorCoreShareText(f),
                       reports::ampProjectionText(f), reports::tf32ProjectionText(f), reports::topFindingsText(f));
    if (!f.amp_projected_speedup && !f.amp_note.empty()) out += fmt::format("{:>16}AMP unknown: {}\n", "", f.amp_note);
  }
  if (!job.collectives.empty()) {
    out += "\nCollectives over all ranks\n";
    for (const analyzer::CollectiveRow& row : reports::firstN(job.collectives, top)) {
      out += fmt::format("  {:>11}  x{:<5} {:<14} {}{}\n", formatDuration(row.time_ns), row.calls,
                         analyzer::collectiveKindName(row.kind), row.name,
                         row.busbw_gbps ? fmt::format("  algbw {:.2f} GB/s, busbw {:.2f} GB/s", *row.algbw_gbps, *row.busbw_gbps)
                                        : std::string());
    }
  }
  if (!job.collective_waits.empty()) {
    out += "\nWaits at collectives, per steady step (summed over the ranks that waited)\n";
    for (const analyzer::CollectiveWait& w : reports::firstN(job.collective_waits, top)) {
      out += fmt::format("  {:>11}  {:<14} {:<10} {} ranks, {} calls; last to arrive: rank {} ({} of {})\n",
                         formatDuration(w.wait_ns), analyzer::collectiveKindName(w.kind),
                         w.group.empty() ? std::string("-") : "group " + w.group, w.ranks, w.calls, w.last_rank,
                         w.last_rank_calls, w.calls);
    }
  }
  for (const std::string& note : job.notes) out += fmt::format("note        {}\n", note);
  out += recommendationsToText(job.recommendations);
  out += "\nOne rank's full analysis: add --rank N.\n";
  return out;
}

}  // namespace ampscope::cli
