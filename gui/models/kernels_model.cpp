#include "gui/models/kernels_model.h"

#include <algorithm>
#include <string_view>

#include "analyzer/core/tensor_core_verdict.h"
#include "reports/counter_words.h"
#include "reports/report_file.h"
#include "reports/verdict_words.h"

namespace ampscope::gui {

namespace {

// Kernel names are C++ signatures hundreds of characters long: the cell shows the start, the
// tooltip and the tab's detail the whole name.
constexpr qsizetype kNameCellLimit = 120;

QString text(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

}  // namespace

KernelsModel::KernelsModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelsModel::setRun(const analyzer::RunAnalysis* run) {
  beginResetModel();
  kernels_.clear();
  layer_filter_.clear();
  pass_filter_.reset();
  by_operator_ = false;
  on_cpu_ = false;
  has_counters_ = false;
  if (run) {
    const analyzer::TraceSummary& summary = run->summary;
    by_operator_ = summary.layer_table.groups_operators;
    on_cpu_ = summary.recorded_on_cpu;
    has_counters_ = summary.counters.recorded();
    kernels_.reserve(summary.kernels.size());
    for (const analyzer::KernelRow& row : summary.kernels) {
      const analyzer::TensorCoreVerdict& v = row.verdict;
      Kernel& kernel = kernels_.emplace_back();
      kernel.name = text(row.name);
      kernel.verdict = v.tensor_core;
      kernel.precision = analyzer::precisionName(v.precision);
      kernel.rule = text(v.rule_id);
      kernel.evidence = text(row.evidence);
      kernel.measured_active = row.measured_tensor_active;
      kernel.measured_ns = row.measured_tensor_ns;
      kernel.calls = row.calls;
      kernel.time_ns = row.time_ns;
      kernel.uses.reserve(row.uses.size());
      for (const analyzer::KernelUse& use : row.uses) kernel.uses.push_back({text(use.group), use.pass, use.calls, use.time_ns});
      kernel.heaviest_layer = text(row.heaviest_group);
      kernel.layers = static_cast<int>(row.groups);
    }
  }
  rebuildRows();
  endResetModel();
}

void KernelsModel::setLayerFilter(const QString& layer, std::optional<trace::Phase> pass) {
  if (layer.isEmpty()) pass.reset();
  if (layer == layer_filter_ && pass == pass_filter_) return;
  beginResetModel();
  layer_filter_ = layer;
  pass_filter_ = pass;
  rebuildRows();
  endResetModel();
}

void KernelsModel::rebuildRows() {
  rows_.clear();
  total_ns_ = 0;
  const bool filtered = !layer_filter_.isEmpty();
  for (const Kernel& kernel : kernels_) {
    Row row;
    if (filtered) {
      // Only the selected layer's (and pass's) calls: the layer column names that layer.
      bool shown = false;
      for (const Use& use : kernel.uses) {
        if (use.layer != layer_filter_ || (pass_filter_ && use.pass != *pass_filter_)) continue;
        shown = true;
        row.calls += use.calls;
        row.time_ns += use.time_ns;
      }
      if (!shown) continue;
      row.layer = layer_filter_;
    } else {
      row.calls = kernel.calls;
      row.time_ns = kernel.time_ns;
      row.layer = kernel.heaviest_layer;
      row.other_layers = std::max(0, kernel.layers - 1);
    }
    row.name = kernel.name;
    row.verdict = kernel.verdict;
    row.precision = kernel.precision;
    row.rule = kernel.rule;
    row.evidence = kernel.evidence;
    row.measured_active = kernel.measured_active;
    row.measured_ns = kernel.measured_ns;
    total_ns_ += row.time_ns;
    rows_.push_back(std::move(row));
  }
  for (Row& row : rows_) {
    row.share = total_ns_ > 0 ? static_cast<double>(row.time_ns) / static_cast<double>(total_ns_) : 0.0;
  }
  // Heaviest first within the filter too, so the unsorted table (and a test) reads in a
  // meaningful order; the analyzer's order breaks ties.
  std::stable_sort(rows_.begin(), rows_.end(), [](const Row& a, const Row& b) { return a.time_ns > b.time_ns; });
}

const KernelsModel::Row* KernelsModel::at(int row) const {
  if (row < 0 || static_cast<std::size_t>(row) >= rows_.size()) return nullptr;
  return &rows_[static_cast<std::size_t>(row)];
}

int KernelsModel::rowOfKernel(const QString& name) const {
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    if (rows_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

QString KernelsModel::measuredExplanation(const Row& row) const {
  if (!has_counters_) return QStringLiteral("The trace recorded no hardware counters");
  if (!row.measured_active) return QStringLiteral("This kernel was not measured by the hardware counters");
  return QStringLiteral("The tensor pipe was busy %1 of the cycles over %2 of this kernel's time (hardware counters, "
                        "all its calls)")
      .arg(text(reports::formatPercent(*row.measured_active)), text(reports::formatDuration(row.measured_ns)));
}

QColor KernelsModel::verdictColor(Verdict verdict) {
  switch (verdict.value()) {
    case Verdict::kYes: return QColor(0x2f8132);
    case Verdict::kUnknown: return QColor(0xb7791f);
    case Verdict::kHost: return QColor(0x52606d);
    case Verdict::kNo: break;
  }
  return QColor(0xb42318);
}

int KernelsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int KernelsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumnCount; }

QVariant KernelsModel::data(const QModelIndex& index, int role) const {
  const Row* row = index.isValid() && index.column() < kColumnCount ? at(index.row()) : nullptr;
  if (!row) return {};
  const auto column = static_cast<Column>(index.column());
  switch (role) {
    case Qt::DisplayRole: return display(*row, column);
    case kSortRole: return sortValue(*row, column);
    case kVerdictRole: return static_cast<int>(row->verdict.value());
    case kLayerRole: return row->layer;
    case Qt::ForegroundRole:
      if (column == kVerdict) return verdictColor(row->verdict);
      return {};
    case Qt::ToolTipRole:
      if (column == kKernel) return row->name;
      if (column == kLayer && !row->layer.isEmpty()) return row->layer;
      if (column == kEvidence || column == kVerdict || column == kRule) return row->evidence;
      if (column == kMeasuredActive) return measuredExplanation(*row);
      return {};
    case Qt::TextAlignmentRole:
      if ((column >= kCalls && column <= kShare) || column == kMeasuredActive) {
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
      }
      return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    default: return {};
  }
}

QVariant KernelsModel::display(const Row& row, Column column) const {
  switch (column) {
    case kKernel: return row.name.size() <= kNameCellLimit ? row.name : row.name.left(kNameCellLimit - 1) + QStringLiteral("…");
    case kLayer:
      return row.other_layers > 0 ? QStringLiteral("%1 (+%2 more)").arg(row.layer).arg(row.other_layers) : row.layer;
    case kCalls: return QString::number(row.calls);
    case kTime: return text(reports::formatDuration(row.time_ns));
    case kShare: return text(reports::formatPercent(row.share));
    case kVerdict: return text(reports::tensorCoreCell(row.verdict));
    // Blank where the kernel was not measured: not measured is not 0%.
    case kMeasuredActive: return text(reports::measuredActiveCell(row.measured_active));
    case kPrecision: return row.precision;
    case kRule: return row.rule;
    case kEvidence: return row.evidence;
    case kColumnCount: break;
  }
  return {};
}

QVariant KernelsModel::sortValue(const Row& row, Column column) const {
  switch (column) {
    case kKernel: return row.name;
    case kLayer: return row.layer;
    case kCalls: return static_cast<qulonglong>(row.calls);
    case kTime: return static_cast<qlonglong>(row.time_ns);
    case kShare: return row.share;
    case kMeasuredActive: return row.measured_active.value_or(-1.0);  // unmeasured below every share
    default: return display(row, column);
  }
}

QVariant KernelsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= kColumnCount) return {};
  const auto column = static_cast<Column>(section);
  if (role == Qt::ToolTipRole) {
    switch (column) {
      case kLayer: return QStringLiteral("The layer most of its time ran for (and how many more ran it)");
      case kShare: return QStringLiteral("Of the kernel time shown: the run's, or the selected layer's");
      case kRule: return QStringLiteral("The row of the Tensor Core rules (docs/tensor_core_rules.md) that decided");
      case kMeasuredActive:
        return QStringLiteral("The tensor pipe's busy share the hardware counters measured over the kernel's measured "
                              "calls (all its calls, whatever layer is selected); blank where it was not measured");
      default: return {};
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (column) {
    case kKernel: return on_cpu_ ? QStringLiteral("Host op") : QStringLiteral("Kernel");
    case kLayer: return by_operator_ ? QStringLiteral("Operator") : QStringLiteral("Layer");
    case kCalls: return QStringLiteral("Calls");
    case kTime: return QStringLiteral("Time");
    case kShare: return QStringLiteral("Share");
    case kVerdict: return QStringLiteral("Tensor Cores");
    case kMeasuredActive: return QString::fromUtf8(reports::kMeasuredActiveHeading);
    case kPrecision: return QStringLiteral("Precision");
    case kRule: return QStringLiteral("Rule");
    case kEvidence: return QStringLiteral("Evidence");
    case kColumnCount: break;
  }
  return {};
}

}  // namespace ampscope::gui
