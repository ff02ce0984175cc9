#pragma once
// A job's per-rank findings and merged recommendations in words, formatted once so that the text,
// JSON, Markdown, HTML and GUI views of a job say the same. Formatting and choosing only: the
// figures are the ranks' own analyses' (analyzer/job/rank_result.h) and the merge's
// (analyzer/job/job_findings.h).

#include <cstddef>
#include <string>
#include <vector>

#include "analyzer/advice/recommendations.h"
#include "analyzer/job/rank_result.h"

namespace ampscope::reports {

// How many of a rank's findings its row in a job's views lists (the rest: rank_results[], --rank N).
inline constexpr std::size_t kTopFindingsPerRank = 3;

// A rank's findings with a gain to claim, largest first, at most n.
std::vector<const analyzer::Recommendation*> topFindings(const analyzer::RankFindings& findings, std::size_t n);

// "model (ranks 0–7)"; the target alone where the recommendation names no ranks or its target
// already is them ("rank 3").
std::string targetWithRanks(const analyzer::Recommendation& recommendation);

// "12.3%"; "n/a" on a CPU run (no Tensor Cores to use).
std::string tensorCoreShareText(const analyzer::RankFindings& findings);
// "1.52x (ceiling 1.80x)", "1.01x over its window (ceiling 1.02x)"; "unknown" without a projection.
std::string ampProjectionText(const analyzer::RankFindings& findings);
// "1.30x"; "-" where TF32 is not relevant (no FP32 matrix math on CUDA cores, or no TF32 on the GPU).
std::string tf32ProjectionText(const analyzer::RankFindings& findings);
// "2.60 GiB (AMP 1.35 GiB)", "2.60 GiB"; "unknown" where the rank recorded no memory events.
std::string memoryPeakText(const analyzer::RankFindings& findings);
// "enable-amp 12.3 ms (40.1%); enable-tf32 ..."; "none" without a finding with a gain.
std::string topFindingsText(const analyzer::RankFindings& findings, std::size_t n = kTopFindingsPerRank);

}  // namespace ampscope::reports
