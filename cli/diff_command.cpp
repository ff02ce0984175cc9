#include "cli/diff_command.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <ostream>

#include "analyzer/run_comparison.h"
#include "cli/analyze_command.h"
#include "cli/summary_text.h"

namespace ampscope::cli {

namespace {

// Enough operators to match the two runs' operators by name.
constexpr std::size_t kOperatorsCompared = 200;
constexpr std::size_t kOperatorsShown = 15;

std::string speedupText(double speedup) { return speedup > 0 ? fmt::format("{:.2f}x", speedup) : "-"; }

std::string toText(const analyzer::RunComparison& c, const DiffOptions& options) {
  std::string out;
  out += fmt::format("A  {}\nB  {}\n\n", options.baseline_path, options.candidate_path);
  out += fmt::format("steady step   A {}   B {}   measured speedup {}\n", formatDuration(c.a_step_ns),
                     formatDuration(c.b_step_ns), speedupText(c.measured_speedup));
  for (const analyzer::Projection& p : c.a_projections) {
    out += fmt::format("A predicted   {:<28} {}\n", p.what, speedupText(p.speedup));
  }
  out += fmt::format("\n{:>12} {:>12} {:>8}  {}\n", "A GPU/step", "B GPU/step", "speedup", "operator");
  for (std::size_t i = 0; i < c.operators.size() && i < kOperatorsShown; ++i) {
    const analyzer::OperatorComparison& op = c.operators[i];
    out += fmt::format("{:>12} {:>12} {:>8}  {}\n", formatDuration(op.a_ns_per_step),
                       formatDuration(op.b_ns_per_step), speedupText(op.speedup), op.name.substr(0, 90));
  }
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
  nlohmann::ordered_json operators = nlohmann::ordered_json::array();
  for (const auto& op : c.operators) {
    operators.push_back({{"name", op.name}, {"a_ns_per_step", op.a_ns_per_step},
                         {"b_ns_per_step", op.b_ns_per_step}, {"speedup", op.speedup}});
  }
  doc["operators"] = operators;
  return doc.dump(2) + "\n";
}

}  // namespace

int runDiff(const DiffOptions& options, std::ostream& out, std::ostream& err) {
  int exit_code = kExitOk;
  const auto a = summarizeFile(options.baseline_path, kOperatorsCompared, "", err, exit_code);
  if (!a) return exit_code;
  const auto b = summarizeFile(options.candidate_path, kOperatorsCompared, "", err, exit_code);
  if (!b) return exit_code;
  const analyzer::RunComparison comparison = analyzer::compareRuns(*a, *b);
  out << (options.json ? toJson(comparison) : toText(comparison, options));
  return kExitOk;
}

}  // namespace ampscope::cli
