#pragma once
// A job's findings from its ranks' own analyses: every rank's recommendations merged by rule and
// target (one finding per fix, such as enable-amp on the model), naming the ranks each applies to,
// with the job's gain. A job steps at its slowest rank's pace, so the job's gain from a fix is not
// the mean of its ranks' gains but how much the slowest step shortens when every rank the finding
// names applies the fix:
//   job gain = max over ranks of busy − max over ranks of (busy − gain),
// busy the step a rank would take alone (its steady step less its wait at collectives,
// RankRow::busy_ns), gain its own estimate per step (0 for a rank the finding does not name,
// at most its busy time). docs/distributed.md.

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/advice/recommendations.h"
#include "analyzer/job/job_analysis.h"
#include "analyzer/job/rank_result.h"

namespace ampscope::analyzer {

// The ranks in words: "rank 3", "ranks 0–7", "ranks 1, 3", "ranks 0–3, 6" (ascending, runs of
// three or more joined by an en dash); "no rank" for none.
std::string rankSetText(std::vector<std::int32_t> ranks);

// The job's gain per step when each rank row's step shortens by gain_ns[i] (same order as rows).
std::int64_t jobGainNs(const std::vector<RankRow>& rows, const std::vector<std::int64_t>& gain_ns);

// The ranks' recommendations merged by (rule, target), largest job gain first; ranks and rows are
// the job's, in the same order. job_step_ns: the job's step, what gains are a share of.
std::vector<Recommendation> mergeRankFindings(const std::vector<RankResult>& ranks, const std::vector<RankRow>& rows,
                                              std::int64_t job_step_ns);

}  // namespace ampscope::analyzer
