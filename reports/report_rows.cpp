#include "reports/report_rows.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "analyzer/gemm_shapes.h"

namespace ampscope::reports {

namespace {

// Joins distinct non-empty values in first-seen order.
void appendDistinct(std::string& list, const std::string& value) {
  if (value.empty()) return;
  if (!list.empty()) {
    // Match whole items only, so "N=8" is not taken as already present in "N=81".
    std::size_t start = 0;
    while (start <= list.size()) {
      const std::size_t end = std::min(list.find("; ", start), list.size());
      if (list.compare(start, end - start, value) == 0 && end - start == value.size()) return;
      start = end + 2;
    }
    list += "; ";
  }
  list += value;
}

std::string dominantPrecision(const analyzer::GroupTime& group) {
  std::map<std::string, std::int64_t> time_by_precision;
  for (const analyzer::KernelTime& kernel : group.top_kernels) {
    time_by_precision[analyzer::precisionName(kernel.verdict.precision)] += kernel.time_ns;
  }
  const auto best = std::max_element(time_by_precision.begin(), time_by_precision.end(),
                                     [](const auto& a, const auto& b) { return a.second < b.second; });
  return best == time_by_precision.end() ? std::string() : best->first;
}

LayerRow rowFromGroup(const analyzer::GroupTime& group, bool is_layer,
                      const std::vector<analyzer::ShapeCheck>& checks) {
  LayerRow row;
  (is_layer ? row.layer : row.op) = group.name;
  row.phase = group.phase;
  row.calls = group.op_calls;
  row.gpu_time_ns = group.gpu_time_ns;
  row.tensor_core_time_ns = group.tensor_core_time_ns;
  row.precision = dominantPrecision(group);
  bool has_eligible_op = false;
  for (const analyzer::ShapeCheck& check : checks) {
    if ((is_layer ? check.layer : check.op) != group.name) continue;
    has_eligible_op = true;
    if (is_layer) appendDistinct(row.op, check.op);
    appendDistinct(row.shapes, check.shapes);
    appendDistinct(row.violations, violationText(check));
  }
  if (is_layer) {
    // A layer's ops are only known through its shape checks: without one we cannot say it is
    // not eligible, only that it is when its kernels ran on Tensor Cores.
    row.eligible = has_eligible_op || group.tensor_core_time_ns > 0 ? "yes" : "";
  } else {
    row.eligible = analyzer::isTensorCoreEligibleOp(group.name) || group.tensor_core_time_ns > 0 ? "yes" : "no";
  }
  return row;
}

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

std::vector<LayerRow> layerRows(const analyzer::TraceSummary& summary) {
  const bool by_layer = !summary.top_layers.empty();
  const std::vector<analyzer::GroupTime>& groups = by_layer ? summary.top_layers : summary.top_operators;
  std::vector<LayerRow> rows;
  rows.reserve(groups.size());
  for (const analyzer::GroupTime& group : groups) rows.push_back(rowFromGroup(group, by_layer, summary.shape_checks));
  std::stable_sort(rows.begin(), rows.end(),
                   [](const LayerRow& a, const LayerRow& b) { return a.gpu_time_ns > b.gpu_time_ns; });
  return rows;
}

std::vector<KernelRow> kernelRows(const analyzer::TraceSummary& summary) {
  std::map<std::string, KernelRow> by_name;
  for (const analyzer::GroupTime& group : summary.top_operators) {
    for (const analyzer::KernelTime& kernel : group.top_kernels) {
      KernelRow& row = by_name[kernel.name];
      row.name = kernel.name;
      row.calls += kernel.calls;
      row.total_ns += kernel.time_ns;
      row.verdict = kernel.verdict;  // decided by name alone, so equal for every occurrence
    }
  }
  std::vector<KernelRow> rows;
  rows.reserve(by_name.size());
  for (auto& [name, row] : by_name) rows.push_back(std::move(row));
  // Ties broken by name (the map order, kept by stable_sort) so the file is deterministic.
  std::stable_sort(rows.begin(), rows.end(),
                   [](const KernelRow& a, const KernelRow& b) { return a.total_ns > b.total_ns; });
  return rows;
}

}  // namespace ampscope::reports
