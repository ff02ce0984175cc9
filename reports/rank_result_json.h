#pragma once
// A rank's compact result as JSON (`rank_result` of `analyze RANK --json`, `rank_results[]` of a
// job document) and back, by walking the one list of its fields and their names
// (analyzer/job/rank_result_fields.h): what is written is read back, value for value. Keys:
// docs/distributed.md.

#include <string>

#include <nlohmann/json.hpp>

#include "analyzer/job/rank_result.h"
#include "trace/result.h"

namespace ampscope::reports {

nlohmann::ordered_json rankResultToJson(const analyzer::RankResult& rank);

// where names the document in errors ("rank3.json: rank_result.steps[2].start_ns: ...").
trace::Result<analyzer::RankResult> rankResultFromJson(const nlohmann::json& value, const std::string& where);

}  // namespace ampscope::reports
