#include "cli/diff_command.h"

#include <algorithm>
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <ostream>

#include "analyzer/run_comparison.h"
#include "cli/analyze_command.h"
#include "cli/exit_codes.h"
#include "cli/summary_text.h"
#include "reports/report_file.h"
#include "reports/report_json.h"

namespace ampscope::cli {

namespace {

constexpr std::size_t kOperatorsShown = 15;

using reports::formatDuration;

// A speedup of 0 means one side has no steps or no time: show that as missing.
std::string speedupText(double speedup) { return speedup > 0 ? reports::formatSpeedup(speedup) : "-"; }

void appendComparisons(std::string& out, const char* what, const std::vector<analyzer::OperatorComparison>& rows) {
  if (rows.empty()) return;
  out += fmt::format("\n{:>12} {:>12} {:>8}  {}\n", "A GPU/step", "B GPU/step", "speedup", what);
  for (std::size_t i = 0; i < rows.size() && i < kOperatorsShown; ++i) {
    const analyzer::OperatorComparison& row = rows[i];
    out += fmt::format("{:>12} {:>12} {:>8}  {}\n", formatDuration(row.a_ns_per_step),
                       formatDuration(row.b_ns_per_step), speedupText(row.speedup), row.name.substr(0, 90));
  }
}

std::string toText(const analyzer::RunComparison& c, const DiffOptions& options) {
  std::string out;
  out += fmt::format("A  {}\nB  {}\n\n", options.baseline_path, options.candidate_path);
  out += fmt::format("steady step   A {}   B {}   measured speedup {}\n", formatDuration(c.a_step_ns),
                     formatDuration(c.b_step_ns), speedupText(c.measured_speedup));
  std::size_t width = 0;
  for (const analyzer::Projection& p : c.a_projections) width = std::max(width, p.what.size());
  for (const analyzer::Projection& p : c.a_projections) {
    out += fmt::format("A predicted   {:<{}} {}\n", p.what, width, speedupText(p.speedup));
  }
  appendComparisons(out, "operator", c.operators);
  appendComparisons(out, "layer", c.layers);
  return out;
}

std::string toJson(const analyzer::RunComparison& c) {
  nlohmann::ordered_json doc;
  doc["a_step_ns"] = c.a_step_ns;
  doc["b_step_ns"] = c.b_step_ns;
  doc["measured_speedup"] = c.measured_speedup;
  nlohmann::ordered_json projections = nlohmann::ordered_json::array();
  for (const auto& p : c.a_projections) projections.push_back({{"what", p.what}, {"speedup", p.speedup}});
  doc["a_projections"] = projections;
  const auto rowsToJson = [](const std::vector<analyzer::OperatorComparison>& rows) {
    nlohmann::ordered_json array = nlohmann::ordered_json::array();
    for (const auto& row : rows) {
      array.push_back({{"name", row.name}, {"a_ns_per_step", row.a_ns_per_step},
                       {"b_ns_per_step", row.b_ns_per_step}, {"speedup", row.speedup}});
    }
    return array;
  };
  doc["operators"] = rowsToJson(c.operators);
  doc["layers"] = rowsToJson(c.layers);
  return reports::formatJsonDocument(doc);
}

}  // namespace

int runDiff(const DiffOptions& options, std::ostream& out, std::ostream& err) {
  int exit_code = kExitOk;
  const auto a = analyzeFileForCli(options.baseline_path, "", {options.gpu}, err, exit_code);
  if (!a) return exit_code;
  const auto b = analyzeFileForCli(options.candidate_path, "", {options.gpu}, err, exit_code);
  if (!b) return exit_code;
  const analyzer::RunComparison comparison = analyzer::compareRuns(a->summary, b->summary);
  out << (options.json ? toJson(comparison) : toText(comparison, options));
  return kExitOk;
}

}  // namespace ampscope::cli
