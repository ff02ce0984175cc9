#include "reports/report_rows.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ampscope::reports {

namespace {

std::string joined(const std::vector<std::string>& items) { return fmt::format("{}", fmt::join(items, "; ")); }

}  // namespace

std::string violationText(const analyzer::ShapeCheck& check) {
  if (check.misaligned.empty()) return {};
  std::string text;
  for (const analyzer::DimensionFinding& finding : check.misaligned) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{}={}->{}", finding.dimension, finding.value, finding.padded);
  }
  return fmt::format("{} (x{})", text, check.required_multiple);
}

std::vector<LayerCells> layerCells(const analyzer::TraceSummary& summary) {
  const bool operators = summary.layer_table.groups_operators;
  std::vector<LayerCells> out;
  out.reserve(summary.layer_table.rows.size());
  for (const analyzer::LayerRow& row : summary.layer_table.rows) {
    LayerCells cells;
    cells.row = &row;
    cells.layer = operators ? std::string() : row.layer;
    cells.op = operators ? row.layer : joined(row.ops);
    cells.phase = trace::phaseName(row.pass);
    cells.eligible = row.eligible ? "yes" : "no";
    if (row.precision != analyzer::MathPrecision::kUnknown) cells.precision = analyzer::precisionName(row.precision);
    cells.shapes = joined(row.shapes);
    std::vector<std::string> violations;
    for (std::size_t check : row.misaligned_checks) violations.push_back(violationText(summary.shape_checks[check]));
    cells.violations = joined(violations);
    out.push_back(std::move(cells));
  }
  return out;
}

}  // namespace ampscope::reports
