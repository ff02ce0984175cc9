#include "cli/diff_command.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <ostream>

#include "analyzer/advice/run_comparison.h"
#include "cli/analyze_command.h"
#include "cli/exit_codes.h"
#include "reports/report_file.h"
#include "reports/report_json.h"
#include "reports/view_limits.h"

namespace ampscope::cli {

namespace {

// An op's name and shapes are cut to this many characters so that the table stays one line a row.
constexpr std::size_t kNameWidth = 100;

using analyzer::OperatorComparison;
using analyzer::RunComparison;
using reports::formatDuration;
using nlohmann::ordered_json;

// A speedup of 0 means one side has no steps or no time: show that as missing.
std::string speedupText(double speedup) { return speedup > 0 ? reports::formatSpeedup(speedup) : "-"; }
std::string speedupText(const std::optional<double>& speedup) { return speedup ? speedupText(*speedup) : "-"; }

std::string stepText(std::int64_t ns) { return ns > 0 ? formatDuration(ns) : "- (no steps)"; }

// "+0.058 (predicted 6.0% above measured)"
std::string errorText(double log_ratio) {
  const double fraction = analyzer::predictionErrorFraction(log_ratio);
  return fmt::format("{:+.3f} (predicted {:.1f}% {} measured)", log_ratio, 100.0 * std::abs(fraction),
                     fraction >= 0 ? "above" : "below");
}

std::string opLabel(const OperatorComparison& row) {
  std::string label = row.layer.empty() ? row.name : row.layer + " " + row.name;
  if (!row.shapes.empty()) label += " " + row.shapes;
  if (!row.b_shapes.empty()) label += " -> " + row.b_shapes;
  if (row.pairing == analyzer::OpPairing::kOnlyA) label += "  (only A)";
  if (row.pairing == analyzer::OpPairing::kOnlyB) label += "  (only B)";
  return label.size() > kNameWidth ? label.substr(0, kNameWidth - 3) + "..." : label;
}

bool perStep(const RunComparison& c) { return c.measured_basis == analyzer::MeasuredBasis::kSteps; }

void appendOperators(std::string& out, const RunComparison& c, std::size_t top) {
  if (c.operators.empty()) return;
  const analyzer::OperatorPairingCounts& p = c.pairing;
  out += fmt::format("\nop call shapes: {} paired by name and shapes, {} by padded shapes, {} only in A, {} only in B "
                     "({} of A's op time paired)\n",
                     p.by_name_and_shapes, p.by_padded_shapes, p.only_a, p.only_b, reports::formatPercent(p.a_time_paired));
  if (perStep(c)) {
    out += fmt::format("{:>12} {:>12} {:>10} {:>10}  operator (top {} by A's time)\n", "A GPU/step", "B GPU/step", "measured",
                       "predicted", std::min(top, c.operators.size()));
    for (const OperatorComparison& row : reports::firstN(c.operators, top)) {
      out += fmt::format("{:>12} {:>12} {:>10} {:>10}  {}\n", formatDuration(row.a_ns_per_step), formatDuration(row.b_ns_per_step),
                         speedupText(row.speedup), speedupText(row.predicted_speedup), opLabel(row));
    }
    return;
  }
  // No steps: each op over the whole trace, with its calls; the measured speedup is per call.
  out += fmt::format("{:>12} {:>12} {:>8} {:>8} {:>10} {:>10}  operator (top {} by A's time)\n", "A GPU", "B GPU", "A calls",
                     "B calls", "per call", "predicted", std::min(top, c.operators.size()));
  for (const OperatorComparison& row : reports::firstN(c.operators, top)) {
    out += fmt::format("{:>12} {:>12} {:>8} {:>8} {:>10} {:>10}  {}\n", formatDuration(row.a_trace_ns),
                       formatDuration(row.b_trace_ns), row.a_calls, row.b_calls, speedupText(row.speedup),
                       speedupText(row.predicted_speedup), opLabel(row));
  }
}

void appendLayers(std::string& out, const RunComparison& c, std::size_t top) {
  if (c.layers.empty()) return;
  const bool steps = perStep(c);
  out += fmt::format("\n{:>12} {:>12} {:>9}  layer\n", steps ? "A GPU/step" : "A GPU", steps ? "B GPU/step" : "B GPU",
                     "measured");
  for (const OperatorComparison& row : reports::firstN(c.layers, top)) {
    out += fmt::format("{:>12} {:>12} {:>9}  {}\n", formatDuration(steps ? row.a_ns_per_step : row.a_trace_ns),
                       formatDuration(steps ? row.b_ns_per_step : row.b_trace_ns), speedupText(row.speedup),
                       row.name.substr(0, kNameWidth));
  }
}

// The measured and predicted figures: per steady step, or of the traces' GPU work.
void appendSpeedups(std::string& out, const RunComparison& c) {
  out += fmt::format("basis         {} ({})\n", analyzer::measuredBasisLabel(c.measured_basis), c.basis_reason);
  const std::string error = c.prediction_error ? errorText(*c.prediction_error) : std::string("- (a speedup is missing)");
  if (perStep(c)) {
    out += fmt::format("steady step   A {}   B {}\n", stepText(c.a_step_ns), stepText(c.b_step_ns));
    out += fmt::format("speedup       measured {}   predicted {}   ({})\n", speedupText(c.measured_speedup),
                       speedupText(c.predicted_speedup), c.predicted_from);
    out += fmt::format("error         ln(predicted / measured) {}\n", error);
    return;
  }
  const analyzer::GpuWorkComparison& w = c.gpu_work;
  out += fmt::format("GPU work      A busy {}, kernels {}   B busy {}, kernels {}\n", formatDuration(w.a_busy_ns),
                     formatDuration(w.a_kernel_ns), formatDuration(w.b_busy_ns), formatDuration(w.b_kernel_ns));
  out += fmt::format("same work     {}\n", w.work_note);
  out += fmt::format("speedup       measured {} of the GPU busy time (kernel time {})   predicted {}   ({})\n",
                     speedupText(c.measured_speedup), speedupText(w.kernel_speedup), speedupText(c.predicted_speedup),
                     c.predicted_from);
  out += fmt::format("error         the GPU work's ln(predicted / measured) {}\n", error);
}

// The peaks measured in both runs and A's projection of B's, where there is one.
void appendMemory(std::string& out, const analyzer::MemoryComparison& m) {
  if (!m.measured) {
    out += fmt::format("memory        - ({})\n", m.note);
    return;
  }
  const auto bytes = [](const std::optional<std::int64_t>& b) { return b ? reports::formatBytes(*b) : std::string("-"); };
  const auto error = [](const std::optional<double>& e) { return e ? errorText(*e) : std::string("-"); };
  out += fmt::format("memory peak   A {}   B {}   ({})\n", reports::formatBytes(m.a_peak_allocated_bytes),
                     reports::formatBytes(m.b_peak_allocated_bytes), m.note);
  if (m.predicted_b_peak_bytes) {
    out += fmt::format("memory        predicted for B: autocast {}, ln(predicted / measured) {}; master weights {}, {}\n",
                       bytes(m.predicted_b_peak_bytes), error(m.prediction_error),
                       bytes(m.master_weights_predicted_b_peak_bytes), error(m.master_weights_prediction_error));
  }
}

std::string toText(const RunComparison& c, const DiffOptions& options) {
  std::string out;
  out += fmt::format("A  {}\nB  {}\n\n", options.baseline_path, options.candidate_path);
  out += fmt::format("change        {}: {}\n", analyzer::runChangeLabel(c.change.kind), c.change.reason);
  appendSpeedups(out, c);
  std::size_t width = 0;
  for (const analyzer::Projection& p : c.a_projections) width = std::max(width, p.what.size());
  out += "\n";
  for (const analyzer::Projection& p : c.a_projections) {
    out += fmt::format("A predicted   {:<{}} {}\n", p.what, width, speedupText(p.speedup));
  }
  appendMemory(out, c.memory);
  appendOperators(out, c, options.top);
  appendLayers(out, c, options.top);
  return out;
}

ordered_json orNull(const std::optional<double>& value) { return value ? ordered_json(*value) : ordered_json(nullptr); }
ordered_json speedupOrNull(double speedup) { return speedup > 0 ? ordered_json(speedup) : ordered_json(nullptr); }
// Per-step times exist on the steps basis only.
ordered_json perStepOrNull(const RunComparison& c, std::int64_t ns) { return perStep(c) ? ordered_json(ns) : ordered_json(nullptr); }

ordered_json gpuWorkJson(const analyzer::GpuWorkComparison& w) {
  return {{"a_busy_ns", w.a_busy_ns},
          {"b_busy_ns", w.b_busy_ns},
          {"a_kernel_ns", w.a_kernel_ns},
          {"b_kernel_ns", w.b_kernel_ns},
          {"a_paired_calls", w.a_paired_calls},
          {"b_paired_calls", w.b_paired_calls},
          {"work_ratio", w.work_ratio},
          {"min_call_ratio", w.min_call_ratio},
          {"max_call_ratio", w.max_call_ratio},
          {"work_note", w.work_note},
          {"busy_speedup", speedupOrNull(w.busy_speedup)},
          {"kernel_speedup", speedupOrNull(w.kernel_speedup)}};
}

ordered_json memoryJson(const analyzer::MemoryComparison& m) {
  const auto bytesOrNull = [&](std::int64_t bytes) { return m.measured ? ordered_json(bytes) : ordered_json(nullptr); };
  return {{"measured", m.measured},
          {"a_peak_allocated_bytes", bytesOrNull(m.a_peak_allocated_bytes)},
          {"b_peak_allocated_bytes", bytesOrNull(m.b_peak_allocated_bytes)},
          {"predicted_b_peak_bytes", m.predicted_b_peak_bytes ? ordered_json(*m.predicted_b_peak_bytes) : ordered_json(nullptr)},
          {"prediction_error", orNull(m.prediction_error)},
          {"master_weights_predicted_b_peak_bytes",
           m.master_weights_predicted_b_peak_bytes ? ordered_json(*m.master_weights_predicted_b_peak_bytes) : ordered_json(nullptr)},
          {"master_weights_prediction_error", orNull(m.master_weights_prediction_error)},
          {"note", m.note}};
}

// B's recorded shapes: A's unless padding changed them; none where only A ran the op.
ordered_json bShapes(const OperatorComparison& row) {
  if (row.pairing == analyzer::OpPairing::kOnlyA) return nullptr;
  return row.b_shapes.empty() ? row.shapes : row.b_shapes;
}

std::string toJson(const RunComparison& c) {
  ordered_json doc;
  doc["change"] = {{"kind", analyzer::runChangeName(c.change.kind)},
                   {"label", analyzer::runChangeLabel(c.change.kind)},
                   {"reason", c.change.reason}};
  doc["measured_basis"] = analyzer::measuredBasisName(c.measured_basis);
  doc["basis_reason"] = c.basis_reason;
  doc["a_step_ns"] = c.a_step_ns;
  doc["b_step_ns"] = c.b_step_ns;
  doc["gpu_work"] = gpuWorkJson(c.gpu_work);
  doc["measured_speedup"] = speedupOrNull(c.measured_speedup);
  doc["predicted_speedup"] = orNull(c.predicted_speedup);
  doc["predicted_from"] = c.predicted_from;
  doc["prediction_error"] = orNull(c.prediction_error);
  doc["memory"] = memoryJson(c.memory);
  ordered_json projections = ordered_json::array();
  for (const auto& p : c.a_projections) projections.push_back({{"what", p.what}, {"speedup", p.speedup}});
  doc["a_projections"] = projections;
  doc["operator_pairing"] = {{"by_name_and_shapes", c.pairing.by_name_and_shapes},
                             {"by_padded_shapes", c.pairing.by_padded_shapes},
                             {"only_a", c.pairing.only_a},
                             {"only_b", c.pairing.only_b},
                             {"a_time_paired", c.pairing.a_time_paired}};
  ordered_json operators = ordered_json::array();
  for (const OperatorComparison& row : c.operators) {
    operators.push_back({{"name", row.name},
                         {"shapes", row.shapes},
                         {"b_shapes", bShapes(row)},
                         {"layer", row.layer},
                         {"pass", trace::phaseName(row.pass)},
                         {"pairing", analyzer::opPairingName(row.pairing)},
                         {"a_ns_per_step", perStepOrNull(c, row.a_ns_per_step)},
                         {"b_ns_per_step", perStepOrNull(c, row.b_ns_per_step)},
                         {"a_trace_ns", row.a_trace_ns},
                         {"b_trace_ns", row.b_trace_ns},
                         {"a_calls", row.a_calls},
                         {"b_calls", row.b_calls},
                         {"measured_speedup", speedupOrNull(row.speedup)},
                         {"predicted_speedup", orNull(row.predicted_speedup)}});
  }
  doc["operators"] = operators;
  ordered_json layers = ordered_json::array();
  for (const OperatorComparison& row : c.layers) {
    layers.push_back({{"name", row.name},
                      {"a_ns_per_step", perStepOrNull(c, row.a_ns_per_step)},
                      {"b_ns_per_step", perStepOrNull(c, row.b_ns_per_step)},
                      {"a_trace_ns", row.a_trace_ns},
                      {"b_trace_ns", row.b_trace_ns},
                      {"speedup", speedupOrNull(row.speedup)}});
  }
  doc["layers"] = layers;
  return reports::formatJsonDocument(doc);
}

}  // namespace

int runDiff(const DiffOptions& options, std::ostream& out, std::ostream& err) {
  int exit_code = kExitOk;
  const auto a = analyzeFileForCli(options.baseline_path, "", {.gpu = options.gpu, .threads = 0, .window = {}}, err, exit_code);
  if (!a) return exit_code;
  const auto b = analyzeFileForCli(options.candidate_path, "", {.gpu = options.gpu, .threads = 0, .window = {}}, err, exit_code);
  if (!b) return exit_code;
  const RunComparison comparison = analyzer::compareRuns(a->summary, b->summary);
  out << (options.json ? toJson(comparison) : toText(comparison, options));
  return kExitOk;
}

}  // namespace ampscope::cli
