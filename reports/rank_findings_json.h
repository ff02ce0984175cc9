#pragma once
// The findings and tables of a rank's compact result as JSON (the "findings" and "tables" keys of
// `rank_result`, docs/distributed.md), and back. Each writer sits beside its reader: a key added to
// one belongs in the other, and job_json_test reads back what was written, value for value.

#include <string>

#include <nlohmann/json.hpp>

#include "analyzer/job/rank_result.h"
#include "reports/json_reader.h"

namespace ampscope::reports {

nlohmann::ordered_json rankFindingsToJson(const analyzer::RankFindings& findings);
analyzer::RankFindings rankFindingsFromJson(JsonReader& in, const nlohmann::json& value, const std::string& path);

nlohmann::ordered_json rankTablesToJson(const analyzer::RankTables& tables);
analyzer::RankTables rankTablesFromJson(JsonReader& in, const nlohmann::json& value, const std::string& path);

}  // namespace ampscope::reports
