#include "reports/report_rows.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reports/report_file.h"

namespace ampscope::reports {

namespace {

std::string joined(const std::vector<std::string>& items) { return fmt::format("{}", fmt::join(items, "; ")); }

}  // namespace

std::string countCell(double value) {
  return std::isfinite(value) && value > 0 ? fmt::format("{:.0f}", value) : std::string();
}

std::string countCell(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? fmt::format("{:.0f}", *value) : std::string();
}

std::string countCell(const std::optional<std::int64_t>& value) {
  return value ? fmt::format("{}", *value) : std::string();
}

std::string rateCell(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? fmt::format("{:.4f}", *value) : std::string();
}

std::string unknownTimeText(const analyzer::TensorCoreTime& time) {
  if (time.unknown_time_ns <= 0) return {};
  return fmt::format("; {} ({}) unknown", formatDuration(time.unknown_time_ns), formatPercent(time.unknown_fraction));
}

std::vector<std::string> performanceCells(const analyzer::RowPerformance& p) {
  return {countCell(p.flops),
          countCell(p.bytes),
          rateCell(p.achieved_tflops),
          p.peak_tflops > 0 ? rateCell(p.peak_tflops) : std::string(),
          analyzer::roofBoundName(p.bound),
          countCell(p.predicted_amp_ns)};
}

std::string dimensionsText(const std::vector<analyzer::DimensionFinding>& findings) {
  std::string text;
  for (const analyzer::DimensionFinding& finding : findings) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{}={}->{}", finding.dimension, finding.value, finding.padded);
  }
  return text;
}

std::optional<std::vector<std::string>> leadingDimensionNames(const analyzer::GemmDims& dims) {
  if (!dims.leading || dims.convolution) return std::nullopt;
  std::vector<std::string> names;
  if (dims.leading->m) names.emplace_back("M");
  if (dims.leading->n) names.emplace_back("N");
  if (dims.leading->k) names.emplace_back("K");
  return names;
}

std::string leadingDimensionsText(const analyzer::GemmDims& dims) {
  const auto names = leadingDimensionNames(dims);
  if (!names) return {};
  std::string text = "; leading";
  for (std::size_t i = 0; i < names->size(); ++i) text += (i == 0 ? " " : ", ") + (*names)[i];
  return text;
}

std::string violationText(const analyzer::ShapeViolation& violation) {
  if (violation.misaligned.empty()) return {};
  return fmt::format("{} (x{})", dimensionsText(violation.misaligned), violation.required_multiple);
}

std::string violationText(const analyzer::ShapeCheck& check) {
  return violationText(analyzer::ShapeViolation{.misaligned = check.misaligned, .required_multiple = check.required_multiple});
}

DeviceWords deviceWords(const analyzer::TraceSummary& summary) {
  DeviceWords words;
  if (summary.recorded_on_cpu) {
    words.row = "CPU run (no GPU)";
    words.why = "recorded on the CPU";
    if (const analyzer::DeviceSpec* target = summary.what_if.device.spec.get()) {
      words.why += fmt::format("; what-if on {}: {}", target->name, summary.what_if.device.reason);
    }
    return words;
  }
  if (const analyzer::DeviceSpec* spec = summary.device.spec.get()) {
    // A derived spec is no row of the table: the label says so, the reason what it rests on.
    words.row = summary.device.basis == analyzer::DeviceBasis::kDerived ? spec->name + " (derived peaks)" : spec->name;
    words.why = summary.device.reason;
    words.known = true;
    return words;
  }
  if (summary.device.basis == analyzer::DeviceBasis::kAmdGpu) {
    // --gpu names NVIDIA rows: no help for an AMD GPU's own figures.
    words.row = "AMD GPU (no row)";
    words.why = summary.device.reason;
    return words;
  }
  words.row = "unknown";
  words.why = kDeviceUnknownText;
  return words;
}

std::string amdahlScope(const analyzer::AmdahlProjection& amdahl) {
  if (amdahl.per_step) return "per step";
  return fmt::format("over the trace's {} window (no steps found)", formatDuration(amdahl.window_ns));
}

std::string performanceScope(const analyzer::OpPerformance& ops) {
  if (ops.per_step) return "per step";
  return fmt::format("over the trace's {} window (no steps found)", formatDuration(ops.window_ns));
}

std::string utilisationPeak(const analyzer::OpPerformance& ops) {
  return fmt::format("the {} Tensor Core peak", analyzer::precisionName(ops.utilisation_precision));
}

WhatIfRows whatIfRows(const analyzer::TraceSummary& summary, std::size_t top) {
  WhatIfRows view;
  std::vector<const analyzer::LayerRow*> estimated;
  for (const analyzer::LayerRow& row : summary.layer_table.rows) {
    if (row.what_if_fp32_ns || row.what_if_amp_ns) estimated.push_back(&row);
    if (!row.what_if_misaligned.empty()) view.misaligned.push_back(&row);
  }
  std::vector<const analyzer::LayerRow*> heaviest = estimated;
  std::stable_sort(heaviest.begin(), heaviest.end(), [](const analyzer::LayerRow* a, const analyzer::LayerRow* b) {
    return a->what_if_fp32_ns.value_or(0.0) > b->what_if_fp32_ns.value_or(0.0);
  });
  if (heaviest.size() > top) heaviest.resize(top);
  for (const analyzer::LayerRow* row : estimated) {
    if (std::find(heaviest.begin(), heaviest.end(), row) != heaviest.end()) view.rows.push_back(row);
  }
  const char* what = summary.layer_table.groups_operators ? "operator" : "layer";
  view.scope = view.rows.size() == estimated.size()
                   ? fmt::format("each {} and pass with known work", what)
                   : fmt::format("the {} heaviest {} × pass rows (of {} with known work)", view.rows.size(), what,
                                 estimated.size());
  return view;
}

LayerCells layerCellsOf(const analyzer::LayerLine& line, bool operators) {
  LayerCells cells;
  cells.layer = operators ? std::string() : line.layer;
  cells.op = operators ? line.layer : joined(line.ops);
  cells.phase = trace::phaseName(line.pass);
  cells.eligible = line.eligible ? "yes" : "no";
  cells.precision = analyzer::precisionName(line.precision);
  cells.shapes = joined(line.shapes);
  std::vector<std::string> violations;
  for (const analyzer::ShapeViolation& violation : line.violations) violations.push_back(violationText(violation));
  cells.violations = joined(violations);
  return cells;
}

std::vector<LayerCells> layerCells(const analyzer::TraceSummary& summary) {
  const std::vector<analyzer::LayerLine> lines = analyzer::layerLines(summary);
  std::vector<LayerCells> out;
  out.reserve(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out.push_back(layerCellsOf(lines[i], summary.layer_table.groups_operators));
    out.back().row = &summary.layer_table.rows[i];
  }
  return out;
}

}  // namespace ampscope::reports
