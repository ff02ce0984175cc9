#include "reports/job_rows.h"

#include <fmt/format.h>

#include "analyzer/job/job_findings.h"
#include "reports/report_file.h"

namespace ampscope::reports {

std::vector<const analyzer::Recommendation*> topFindings(const analyzer::RankFindings& findings, std::size_t n) {
  std::vector<const analyzer::Recommendation*> out;
  // Kept largest gain first by the rank's analysis; notes (no gain) come last and are left out.
  for (const analyzer::Recommendation& r : findings.recommendations) {
    if (out.size() == n) break;
    if (!analyzer::isNote(r)) out.push_back(&r);
  }
  return out;
}

std::string targetWithRanks(const analyzer::Recommendation& recommendation) {
  if (recommendation.ranks.empty()) return recommendation.target;
  const std::string ranks = analyzer::rankSetText(recommendation.ranks);
  return recommendation.target == ranks ? ranks : fmt::format("{} ({})", recommendation.target, ranks);
}

std::string tensorCoreShareText(const analyzer::RankFindings& findings) {
  return findings.tensor_core_share ? formatPercent(*findings.tensor_core_share) : std::string("n/a");
}

std::string ampProjectionText(const analyzer::RankFindings& findings) {
  if (!findings.amp_projected_speedup) return "unknown";
  return fmt::format("{}{}{}", formatSpeedup(*findings.amp_projected_speedup),
                     findings.amp_per_step ? "" : " over its window",
                     findings.amp_ceiling ? fmt::format(" (ceiling {})", formatSpeedup(*findings.amp_ceiling)) : "");
}

std::string tf32ProjectionText(const analyzer::RankFindings& findings) {
  return findings.tf32_projected_speedup ? formatSpeedup(*findings.tf32_projected_speedup) : std::string("-");
}

std::string memoryPeakText(const analyzer::RankFindings& findings) {
  if (!findings.memory_peak_allocated_bytes) return "unknown";
  const std::string peak = formatBytes(*findings.memory_peak_allocated_bytes);
  return findings.memory_amp_projected_peak_bytes
             ? fmt::format("{} (AMP {})", peak, formatBytes(*findings.memory_amp_projected_peak_bytes))
             : peak;
}

std::string topFindingsText(const analyzer::RankFindings& findings, std::size_t n) {
  std::string text;
  for (const analyzer::Recommendation* r : topFindings(findings, n)) {
    if (!text.empty()) text += "; ";
    text += fmt::format("{} {} ({:.1f}%)", r->rule, formatDuration(r->estimated_gain_ns), r->estimated_gain_pct);
  }
  return text.empty() ? "none" : text;
}

}  // namespace ampscope::reports
