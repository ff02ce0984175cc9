#include "gui/models/layers_model.h"

#include <cmath>
#include <optional>
#include <string_view>

#include "analyzer/core/tensor_core_verdict.h"
#include "reports/counter_words.h"
#include "reports/report_file.h"
#include "reports/report_rows.h"

namespace ampscope::gui {

namespace {

// Ops and shapes beyond these are in the cell's tooltip, not the cell.
constexpr std::size_t kListedInCell = 3;

QString text(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

const QString kUnknown = QStringLiteral("–");
constexpr double kUnknownSort = -1.0;  // sorts below every known figure

QString durationOf(const std::optional<double>& ns) {
  return ns ? text(reports::formatDuration(static_cast<std::int64_t>(std::llround(*ns)))) : QString();
}

QString joinedAll(const std::vector<std::string>& items) {
  QStringList out;
  for (const std::string& item : items) out << text(item);
  return out.join("; ");
}

// "a; b; c (+2 more)"; the full list is the tooltip's.
QString joined(const QStringList& items) {
  if (static_cast<std::size_t>(items.size()) <= kListedInCell) return items.join("; ");
  return items.first(static_cast<qsizetype>(kListedInCell)).join("; ") +
         QStringLiteral(" (+%1 more)").arg(items.size() - static_cast<qsizetype>(kListedInCell));
}

// The analyzer's row as the table shows it: names and lists as text, the shape checks it points
// at as their findings ("N=33278->33280 (x8)").
LayersModel::Row rowOf(const analyzer::LayerRow& layer, const std::vector<analyzer::ShapeCheck>& shape_checks) {
  LayersModel::Row row;
  row.layer = text(layer.layer);
  row.analysis = layer;
  row.op = joinedAll(layer.ops);
  row.pass = trace::phaseName(layer.pass);
  row.precision = analyzer::precisionName(layer.precision);
  row.shapes = joinedAll(layer.shapes);
  QStringList violations;
  for (const std::size_t check : layer.misaligned_checks) {
    if (check < shape_checks.size()) violations << text(reports::violationText(shape_checks[check]));
  }
  row.violations = violations.join("; ");
  return row;
}

}  // namespace

LayersModel::LayersModel(QObject* parent) : QAbstractTableModel(parent) {}

void LayersModel::setRun(const analyzer::RunAnalysis* run) {
  beginResetModel();
  rows_.clear();
  by_operator_ = false;
  on_cpu_ = false;
  has_counters_ = false;
  what_if_device_.clear();
  what_if_reason_.clear();
  if (run) {
    const analyzer::TraceSummary& summary = run->summary;
    by_operator_ = summary.layer_table.groups_operators;
    on_cpu_ = summary.recorded_on_cpu;
    has_counters_ = summary.counters.recorded();
    if (const analyzer::DeviceSpec* target = summary.what_if.device.spec.get()) {
      what_if_device_ = text(target->name);
      what_if_reason_ = text(summary.what_if.device.reason);
    }
    rows_.reserve(summary.layer_table.rows.size());
    for (const analyzer::LayerRow& layer : summary.layer_table.rows) rows_.push_back(rowOf(layer, summary.shape_checks));
  }
  endResetModel();
}

const LayersModel::Row* LayersModel::at(int row) const {
  if (row < 0 || static_cast<std::size_t>(row) >= rows_.size()) return nullptr;
  return &rows_[static_cast<std::size_t>(row)];
}

int LayersModel::rowOfLayer(const QString& layer) const {
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    if (rows_[i].layer == layer) return static_cast<int>(i);
  }
  return -1;
}

QString LayersModel::stateName(State state) {
  switch (state) {
    case State::kEligibleNotTensorCore: return QStringLiteral("eligible, not on Tensor Cores");
    case State::kMisaligned: return QStringLiteral("shapes off the multiple");
    case State::kHost: return QStringLiteral("host (CPU run)");
    case State::kFine: break;
  }
  return QStringLiteral("fine");
}

// Soft backgrounds with dark text of the same hue: readable in a dense table, and the hues of
// report.html's badges (red: act, amber: worth a look, green: fine, grey: not applicable).
QColor LayersModel::stateBackground(State state) {
  switch (state) {
    case State::kEligibleNotTensorCore: return QColor(0xfde4e2);
    case State::kMisaligned: return QColor(0xfff0cc);
    case State::kHost: return QColor(0xeef0f3);
    case State::kFine: break;
  }
  return QColor(0xe9f5ea);
}

QColor LayersModel::stateForeground(State state) {
  switch (state) {
    case State::kEligibleNotTensorCore: return QColor(0x9b1c1c);
    case State::kMisaligned: return QColor(0x7a4b00);
    case State::kHost: return QColor(0x3e4c59);
    case State::kFine: break;
  }
  return QColor(0x1e5a23);
}

int LayersModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int LayersModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumnCount; }

QVariant LayersModel::data(const QModelIndex& index, int role) const {
  const Row* row = index.isValid() && index.column() < kColumnCount ? at(index.row()) : nullptr;
  if (!row) return {};
  const auto column = static_cast<Column>(index.column());
  switch (role) {
    case Qt::DisplayRole: return display(*row, column);
    case kSortRole: return sortValue(*row, column);
    case kStateRole: return static_cast<int>(row->analysis.state);
    case kLayerRole: return row->layer;
    case Qt::BackgroundRole: return stateBackground(row->analysis.state);
    case Qt::ForegroundRole: return stateForeground(row->analysis.state);
    case Qt::ToolTipRole:
      if (column == kLayer) return row->layer + QStringLiteral(": ") + stateExplanation(*row);
      if (column == kOp && !row->op.isEmpty()) return row->op;
      if (column == kShapes && !row->shapes.isEmpty()) return row->shapes;
      if (column == kViolations && !row->violations.isEmpty()) return row->violations;
      if ((column == kWhatIfFp32 || column == kWhatIfAmp) && hasWhatIf()) return whatIfExplanation(*row);
      if (column == kMeasuredActive) return measuredExplanation(*row);
      return stateExplanation(*row);
    case Qt::TextAlignmentRole:
      if (column >= kCalls && column <= kWhatIfAmp && column != kBound) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
      return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    default: return {};
  }
}

QVariant LayersModel::display(const Row& row, Column column) const {
  switch (column) {
    case kLayer: return row.layer;
    case kOp: return joined(row.op.split("; ", Qt::SkipEmptyParts));
    case kPass: return row.pass;
    case kCalls: return QString::number(row.analysis.calls);
    case kTime: return text(reports::formatDuration(row.analysis.time_ns));
    // A CPU run has no Tensor Core figures: a dash, not a zero that reads as "missed them".
    case kTensorCoreTime: return on_cpu_ ? QStringLiteral("–") : text(reports::formatDuration(row.analysis.tensor_core_time_ns));
    case kTensorCoreShare: return on_cpu_ ? QStringLiteral("–") : text(reports::formatPercent(row.analysis.tensorCoreShare()));
    // Blank where none of its kernels was measured: not measured is not 0%.
    case kMeasuredActive: return text(reports::measuredActiveCell(row.analysis.measured_tensor_active));
    case kEligible: return row.analysis.eligible ? QStringLiteral("yes") : QStringLiteral("no");
    case kPrecision: return row.precision;
    case kShapes: return joined(row.shapes.split("; ", Qt::SkipEmptyParts));
    case kViolations: return !row.violations.isEmpty() ? row.violations : row.shapes.isEmpty() ? QString() : QStringLiteral("none");
    // The per-op model's figures: unknown stays a dash (no shapes, no device, a CPU run).
    case kAchieved: {
      const std::optional<double>& achieved = row.analysis.performance.achieved_tflops;
      return achieved ? text(reports::formatTflops(*achieved)) : kUnknown;
    }
    case kPeak: {
      const double peak = row.analysis.performance.peak_tflops;
      return peak > 0 ? text(reports::formatTflops(peak)) : kUnknown;
    }
    case kBound: {
      const analyzer::RooflineBound bound = row.analysis.performance.bound;
      return bound == analyzer::RooflineBound::kUnknown ? kUnknown : QString(analyzer::roofBoundName(bound));
    }
    case kPredictedAmp: {
      const std::optional<std::int64_t>& predicted = row.analysis.performance.predicted_amp_ns;
      return predicted ? text(reports::formatDuration(*predicted)) : kUnknown;
    }
    case kWhatIfFp32: return hasWhatIf() ? durationOf(row.analysis.what_if_fp32_ns) : QString();
    case kWhatIfAmp: return hasWhatIf() ? durationOf(row.analysis.what_if_amp_ns) : QString();
    case kColumnCount: break;
  }
  return {};
}

QVariant LayersModel::sortValue(const Row& row, Column column) const {
  switch (column) {
    case kCalls: return static_cast<qulonglong>(row.analysis.calls);
    case kTime: return static_cast<qlonglong>(row.analysis.time_ns);
    case kTensorCoreTime: return static_cast<qlonglong>(row.analysis.tensor_core_time_ns);
    case kTensorCoreShare: return row.analysis.tensorCoreShare();
    case kMeasuredActive: return row.analysis.measured_tensor_active.value_or(kUnknownSort);
    case kEligible: return row.analysis.eligible ? 1 : 0;
    case kViolations: return row.analysis.violation_count;
    case kShapes: return row.shapes;
    case kAchieved: return row.analysis.performance.achieved_tflops.value_or(kUnknownSort);
    case kPeak: return row.analysis.performance.peak_tflops > 0 ? row.analysis.performance.peak_tflops : kUnknownSort;
    case kPredictedAmp: {
      const std::optional<std::int64_t>& predicted = row.analysis.performance.predicted_amp_ns;
      return predicted ? static_cast<double>(*predicted) : kUnknownSort;
    }
    case kWhatIfFp32: return row.analysis.what_if_fp32_ns.value_or(kUnknownSort);
    case kWhatIfAmp: return row.analysis.what_if_amp_ns.value_or(kUnknownSort);
    default: return display(row, column);
  }
}

QString LayersModel::stateExplanation(const Row& row) const {
  switch (row.analysis.state) {
    case State::kHost:
      return QStringLiteral("Recorded on the CPU: its ops ran on the host, so Tensor Core figures need a GPU run");
    case State::kEligibleNotTensorCore:
      return QStringLiteral("Its matrix ops could use Tensor Cores, but %1 of their kernel time ran on CUDA cores "
                            "(%2 on Tensor Cores)")
          .arg(text(reports::formatDuration(row.analysis.eligible_cuda_core_ns)),
               text(reports::formatDuration(row.analysis.eligible_tensor_core_ns)));
    case State::kMisaligned:
      return QStringLiteral("%1 GEMM dimension%2 off the multiple its precision wants: %3")
          .arg(row.analysis.violation_count)
          .arg(row.analysis.violation_count == 1 ? "" : "s")
          .arg(row.violations);
    case State::kFine: break;
  }
  return row.analysis.eligible ? QStringLiteral("Its matrix ops ran on Tensor Cores with aligned shapes")
                      : QStringLiteral("No Tensor-Core-eligible op: nothing to change here for Tensor Cores");
}

QString LayersModel::measuredExplanation(const Row& row) const {
  if (!has_counters_) return QStringLiteral("The trace recorded no hardware counters");
  const std::optional<double>& active = row.analysis.measured_tensor_active;
  if (!active) return QStringLiteral("None of its kernels was measured by the hardware counters");
  return QStringLiteral("The tensor pipe was busy %1 of the cycles over %2 of its %3 kernel time (hardware counters)")
      .arg(text(reports::formatPercent(*active)), text(reports::formatDuration(row.analysis.measured_tensor_ns)),
           text(reports::formatDuration(row.analysis.time_ns)));
}

QString LayersModel::whatIfExplanation(const Row& row) const {
  if (!row.analysis.what_if_fp32_ns && !row.analysis.what_if_amp_ns) {
    return QStringLiteral("No estimate on the %1: the work of its ops is not known").arg(what_if_device_);
  }
  QString out = QStringLiteral("Model estimate per step on the %1 (%2), GPU work only: FP32 %3, AMP %4")
                    .arg(what_if_device_, what_if_reason_,
                         row.analysis.what_if_fp32_ns ? durationOf(row.analysis.what_if_fp32_ns) : kUnknown,
                         row.analysis.what_if_amp_ns ? durationOf(row.analysis.what_if_amp_ns) : kUnknown);
  if (row.analysis.what_if_padding_cost_ns > 0) {
    out += QStringLiteral("; its dimensions off the multiple of 8 cost %1 of the AMP time")
               .arg(durationOf(row.analysis.what_if_padding_cost_ns));
  }
  return out;
}

QVariant LayersModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= kColumnCount) return {};
  const auto column = static_cast<Column>(section);
  if (role == Qt::ToolTipRole) {
    switch (column) {
      case kCalls: return QStringLiteral("Calls of the layer in this pass that ran kernels");
      case kEligible: return QStringLiteral("Some of its ops could run on Tensor Cores (matmul, linear, conv, bmm, attention)");
      case kPrecision: return QStringLiteral("The math precision of most of its matrix-kernel time");
      case kViolations: return QStringLiteral("GEMM dimensions that are not a multiple of what the precision wants "
                                              "(8 for FP16/BF16, 4 for TF32, 16 for INT8/FP8), with the padded size");
      case kAchieved: return QStringLiteral("Its ops' FLOPs over their time, where their shapes give the FLOPs "
                                            "(the per-op model; unknown without shapes or a device)");
      case kPeak: return QStringLiteral("The recorded device's dense peak in the precision its math ran");
      case kBound: return QStringLiteral("Which roof of the roofline limits it: compute or memory");
      case kMeasuredActive:
        return QStringLiteral("The tensor pipe's busy share measured by the hardware counters over its measured kernel "
                              "time; blank where none of its kernels was measured");
      case kPredictedAmp: return QStringLiteral("The per-op model's time for all its calls under AMP on the recorded "
                                                "device (compare with the time column)");
      case kWhatIfFp32:
      case kWhatIfAmp:
        if (!hasWhatIf()) return QStringLiteral("No what-if projection: a CPU run has one, and --gpu NAME asks for one");
        return QStringLiteral("Model estimate per step on the %1 (%2): not measured, GPU work only (no host time, "
                              "data loading or launch gaps)")
            .arg(what_if_device_, what_if_reason_);
      default: return {};
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (column) {
    case kLayer: return by_operator_ ? QStringLiteral("Operator") : QStringLiteral("Layer");
    case kOp: return QStringLiteral("Op");
    case kPass: return QStringLiteral("Pass");
    case kCalls: return QStringLiteral("Calls");
    case kTime: return on_cpu_ ? QStringLiteral("Host time") : QStringLiteral("GPU time");
    case kTensorCoreTime: return QStringLiteral("Tensor Core time");
    case kTensorCoreShare: return QStringLiteral("Tensor Core share");
    case kMeasuredActive: return QString::fromUtf8(reports::kMeasuredActiveHeading);
    case kEligible: return QStringLiteral("Eligible");
    case kPrecision: return QStringLiteral("Precision");
    case kShapes: return QStringLiteral("Shapes");
    case kViolations: return QStringLiteral("Off the multiple");
    case kAchieved: return QStringLiteral("Achieved");
    case kPeak: return QStringLiteral("Peak");
    case kBound: return QStringLiteral("Bound");
    case kPredictedAmp: return QStringLiteral("AMP time (model)");
    // Estimates, never measurements: the header says so and names the GPU.
    case kWhatIfFp32:
      return hasWhatIf() ? QStringLiteral("%1 FP32 / step (est.)").arg(what_if_device_) : QStringLiteral("What-if FP32");
    case kWhatIfAmp:
      return hasWhatIf() ? QStringLiteral("%1 AMP / step (est.)").arg(what_if_device_) : QStringLiteral("What-if AMP");
    case kColumnCount: break;
  }
  return {};
}

}  // namespace ampscope::gui
