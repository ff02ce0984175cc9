#pragma once
// A distributed job as JSON: the job document (`analyze` of several ranks, `merge`, the job's
// report.json) and the compact per-rank result that `analyze RANK --json` carries under
// "rank_result" (the map step) and `merge` reads back (the reduce step). Reading a rank result
// back gives the same RankResult exactly (integers and strings only), so that merging results
// equals analyzing the files together. Keys: docs/distributed.md.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/job/job_analysis.h"
#include "analyzer/job/rank_result.h"
#include "reports/rank_result_json.h"
#include "trace/result.h"

namespace ampscope::reports {

// The rank results an `analyze --json` or `merge --json` document holds: its "rank_result", or
// every entry of its "rank_results". Errors name the file and the key.
trace::Result<std::vector<analyzer::RankResult>> rankResultsFromDocument(const std::string& text, const std::string& file);

// collectives[]: name, kind, element, calls, time_ns, calls_with_bytes, bytes, algbw_gbps, busbw_gbps.
nlohmann::ordered_json collectivesJson(const std::vector<analyzer::CollectiveRow>& rows);

// world_size, slowest_rank, ranks[], steps[], collectives[], stragglers, notes, recommendations,
// and rank_results[] (what a later merge reads).
nlohmann::ordered_json jobToJsonDocument(const analyzer::JobAnalysis& job);

}  // namespace ampscope::reports
