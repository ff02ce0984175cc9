#include "gui/models/op_performance_model.h"

#include <cmath>
#include <string_view>

#include "reports/report_file.h"

namespace ampscope::gui {

namespace {

constexpr double kUnknownSort = -1.0;  // sorts below every known figure

QString text(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

QString tflopsText(double tflops) { return text(reports::formatTflops(tflops)); }

QString intensityText(double flops_per_byte) { return QString::number(flops_per_byte, 'g', 3); }

QString durationOf(const std::optional<double>& ns) {
  return ns ? text(reports::formatDuration(static_cast<std::int64_t>(std::llround(*ns)))) : QStringLiteral("–");
}

// What AMP does to the op, in the words of a table cell (the analyzer's enum, named here).
QString ampChangeLabel(analyzer::AmpChange change) {
  switch (change) {
    case analyzer::AmpChange::kAlreadyHalf: return QStringLiteral("already half precision");
    case analyzer::AmpChange::kTensorCores: return QStringLiteral("FP16/BF16 Tensor Cores");
    case analyzer::AmpChange::kTensorCoresUnknownWork: return QStringLiteral("Tensor Cores (work unknown)");
    case analyzer::AmpChange::kHalvedBytes: return QStringLiteral("half the bytes");
    case analyzer::AmpChange::kKeptFp32: return QStringLiteral("kept in FP32");
    case analyzer::AmpChange::kCommunication: return QStringLiteral("collective, unchanged");
    case analyzer::AmpChange::kNotProjected: break;
  }
  return QStringLiteral("not projected");
}

// Every figure of the row, a few lines, for the tooltip of its point and of its cells.
QString summaryOf(const OpPerformanceModel::Row& row) {
  const analyzer::OpRow& r = row.analysis;
  QStringList lines;
  QString where = row.pass;
  if (!row.layer.isEmpty()) where = row.layer + ", " + where;
  lines << QStringLiteral("%1 (%2)").arg(row.op, where);
  if (!row.shapes.isEmpty()) lines << "shapes " + row.shapes;
  lines << QStringLiteral("%1 call%2, %3 (%4 per call)%5")
               .arg(r.calls)
               .arg(r.calls == 1 ? "" : "s")
               .arg(text(reports::formatDuration(r.time_ns)), text(reports::formatDuration(r.timePerCall())),
                    r.precision == analyzer::MathPrecision::kUnknown ? QStringLiteral(", precision unknown")
                                                                     : ", " + row.precision);
  if (r.achieved_tflops) {
    QString rate = "achieved " + tflopsText(*r.achieved_tflops);
    if (r.peak_tflops > 0) rate += " of a peak of " + tflopsText(r.peak_tflops);
    if (r.intensity) rate += " at " + intensityText(*r.intensity) + " FLOP/byte";
    if (r.bound != analyzer::RooflineBound::kUnknown) rate += QStringLiteral(": %1-bound").arg(analyzer::roofBoundName(r.bound));
    lines << rate;
  } else {
    lines << "achieved rate unknown" + (r.rate_note.empty() ? QString() : ": " + text(r.rate_note));
  }
  if (r.predicted_amp_ns) {
    lines << QStringLiteral("under AMP (%1): %2, %3")
                 .arg(ampChangeLabel(r.amp), text(reports::formatDuration(*r.predicted_amp_ns)),
                      text(reports::formatSpeedup(r.amp_speedup)));
  } else {
    lines << "under AMP: not projected" + (r.amp_note.empty() ? QString() : " (" + text(r.amp_note) + ")");
  }
  if (r.predicted_amp_ns && !r.amp_note.empty()) lines << text(r.amp_note);
  return lines.join('\n');
}

OpPerformanceModel::Row rowOf(const analyzer::OpRow& op) {
  OpPerformanceModel::Row row;
  row.analysis = op;
  row.op = text(op.op);
  row.layer = text(op.layer);
  row.pass = trace::phaseName(op.pass);
  row.shapes = text(op.shapes);
  row.precision = analyzer::precisionName(op.precision);
  row.summary = summaryOf(row);
  return row;
}

}  // namespace

OpPerformanceModel::OpPerformanceModel(QObject* parent) : QAbstractTableModel(parent) {}

void OpPerformanceModel::setRun(const analyzer::RunAnalysis* run) {
  beginResetModel();
  rows_.clear();
  device_.reset();
  device_reason_.clear();
  note_.clear();
  what_if_device_.clear();
  on_cpu_ = false;
  names_layers_ = false;
  if (run) {
    const analyzer::TraceSummary& summary = run->summary;
    const analyzer::OpPerformance& ops = summary.op_performance;
    on_cpu_ = summary.recorded_on_cpu;
    // A CPU run's host ops have no GPU peak: no device holds its rates.
    if (ops.device.spec && !on_cpu_) device_ = *ops.device.spec;
    device_reason_ = text(ops.device.reason);
    note_ = text(ops.note);
    const analyzer::WhatIfProjection& what_if = summary.what_if;
    if (what_if.device.spec) what_if_device_ = text(what_if.device.spec->name);
    rows_.reserve(ops.rows.size());
    for (std::size_t i = 0; i < ops.rows.size(); ++i) {
      Row row = rowOf(ops.rows[i]);
      const std::int32_t estimate = i < what_if.op_of_row.size() ? what_if.op_of_row[i] : -1;
      if (what_if.device.spec && estimate >= 0 && static_cast<std::size_t>(estimate) < what_if.ops.size()) {
        row.what_if = what_if.ops[static_cast<std::size_t>(estimate)];
      }
      names_layers_ = names_layers_ || !row.layer.isEmpty();
      rows_.push_back(std::move(row));
    }
  }
  endResetModel();
}

const OpPerformanceModel::Row* OpPerformanceModel::at(int row) const {
  if (row < 0 || static_cast<std::size_t>(row) >= rows_.size()) return nullptr;
  return &rows_[static_cast<std::size_t>(row)];
}

int OpPerformanceModel::rooflineRows() const {
  int count = 0;
  for (const Row& row : rows_) count += analyzer::onRoofline(row.analysis) ? 1 : 0;
  return count;
}

int OpPerformanceModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int OpPerformanceModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumnCount; }

QVariant OpPerformanceModel::data(const QModelIndex& index, int role) const {
  const Row* row = index.isValid() && index.column() < kColumnCount ? at(index.row()) : nullptr;
  if (!row) return {};
  const auto column = static_cast<Column>(index.column());
  switch (role) {
    case Qt::DisplayRole: return display(*row, column);
    case kSortRole: return sortValue(*row, column);
    case kLayerRole: return row->layer;
    case Qt::ToolTipRole: return row->summary;
    case Qt::TextAlignmentRole:
      if ((column >= kCalls && column <= kTime) || (column >= kIntensity && column <= kPeak) ||
          (column >= kPredictedAmp && column <= kWhatIfAmp)) {
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
      }
      return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    default: return {};
  }
}

QVariant OpPerformanceModel::display(const Row& row, Column column) const {
  const analyzer::OpRow& r = row.analysis;
  const QString unknown = QStringLiteral("–");
  switch (column) {
    case kOp: return row.op;
    case kLayer: return row.layer;
    case kPass: return row.pass;
    case kShapes: return row.shapes;
    case kCalls: return QString::number(r.calls);
    case kTime: return text(reports::formatDuration(r.time_ns));
    case kPrecision: return row.precision;
    case kIntensity: return r.intensity ? intensityText(*r.intensity) : unknown;
    case kAchieved: return r.achieved_tflops ? tflopsText(*r.achieved_tflops) : unknown;
    case kPeak: return r.peak_tflops > 0 ? tflopsText(r.peak_tflops) : unknown;
    case kBound: return r.bound == analyzer::RooflineBound::kUnknown ? unknown : QString(analyzer::roofBoundName(r.bound));
    case kAmpChange: return ampChangeLabel(r.amp);
    case kPredictedAmp: return r.predicted_amp_ns ? text(reports::formatDuration(*r.predicted_amp_ns)) : unknown;
    case kAmpSpeedup: return r.predicted_amp_ns ? text(reports::formatSpeedup(r.amp_speedup)) : unknown;
    case kWhatIfFp32:
      if (!hasWhatIf()) return QString();
      return row.what_if ? durationOf(row.what_if->fp32_ns) : unknown;
    case kWhatIfAmp:
      if (!hasWhatIf()) return QString();
      return row.what_if ? durationOf(row.what_if->amp_ns) : unknown;
    // Why a rate is unknown matters more than what the prediction rests on.
    case kNote: return text(r.rate_note.empty() ? r.amp_note : r.rate_note);
    case kColumnCount: break;
  }
  return {};
}

QVariant OpPerformanceModel::sortValue(const Row& row, Column column) const {
  const analyzer::OpRow& r = row.analysis;
  switch (column) {
    case kCalls: return static_cast<qulonglong>(r.calls);
    case kTime: return static_cast<qlonglong>(r.time_ns);
    case kIntensity: return r.intensity.value_or(kUnknownSort);
    case kAchieved: return r.achieved_tflops.value_or(kUnknownSort);
    case kPeak: return r.peak_tflops > 0 ? r.peak_tflops : kUnknownSort;
    case kPredictedAmp: return r.predicted_amp_ns ? static_cast<double>(*r.predicted_amp_ns) : kUnknownSort;
    case kAmpSpeedup: return r.predicted_amp_ns ? r.amp_speedup : kUnknownSort;
    case kWhatIfFp32: return row.what_if && row.what_if->fp32_ns ? *row.what_if->fp32_ns : kUnknownSort;
    case kWhatIfAmp: return row.what_if && row.what_if->amp_ns ? *row.what_if->amp_ns : kUnknownSort;
    default: return display(row, column);
  }
}

QVariant OpPerformanceModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= kColumnCount) return {};
  const auto column = static_cast<Column>(section);
  if (role == Qt::ToolTipRole) {
    switch (column) {
      case kTime: return on_cpu_ ? QStringLiteral("Its host ops' time over the whole trace")
                                 : QStringLiteral("Its kernels' time over the whole trace");
      case kIntensity: return QStringLiteral("Arithmetic intensity: FLOPs per byte moved, from its recorded shapes");
      case kAchieved: return QStringLiteral("Its FLOPs over its kernels' time; unknown without shapes, without a "
                                            "device, or where the rate would exceed the peak (a wrong input)");
      case kPeak: return QStringLiteral("The device's dense peak in the precision its kernels ran");
      case kBound: return QStringLiteral("Which roof limits it: compute above the ridge point, memory below");
      case kAmpChange: return QStringLiteral("What AMP does to it, on the recorded device");
      case kPredictedAmp: return QStringLiteral("The model's time for all its calls under AMP on the recorded device");
      case kAmpSpeedup: return QStringLiteral("Its time over the predicted AMP time");
      case kWhatIfFp32:
      case kWhatIfAmp:
        if (!hasWhatIf()) return QStringLiteral("No what-if projection: a CPU run has one, and --gpu NAME asks for one");
        return QStringLiteral("Model estimate per step on the %1: not measured, GPU work only").arg(what_if_device_);
      default: return {};
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (column) {
    case kOp: return QStringLiteral("Op");
    case kLayer: return QStringLiteral("Layer");
    case kPass: return QStringLiteral("Pass");
    case kShapes: return QStringLiteral("Shapes");
    case kCalls: return QStringLiteral("Calls");
    case kTime: return on_cpu_ ? QStringLiteral("Host time") : QStringLiteral("GPU time");
    case kPrecision: return QStringLiteral("Precision");
    case kIntensity: return QStringLiteral("FLOP/byte");
    case kAchieved: return QStringLiteral("Achieved");
    case kPeak: return QStringLiteral("Peak");
    case kBound: return QStringLiteral("Bound");
    case kAmpChange: return QStringLiteral("Under AMP");
    case kPredictedAmp: return QStringLiteral("AMP time (model)");
    case kAmpSpeedup: return QStringLiteral("AMP speedup");
    // Estimates, never measurements: the header says so and names the GPU.
    case kWhatIfFp32:
      return hasWhatIf() ? QStringLiteral("%1 FP32 / step (est.)").arg(what_if_device_) : QStringLiteral("What-if FP32");
    case kWhatIfAmp:
      return hasWhatIf() ? QStringLiteral("%1 AMP / step (est.)").arg(what_if_device_) : QStringLiteral("What-if AMP");
    case kNote: return QStringLiteral("Note");
    case kColumnCount: break;
  }
  return {};
}

}  // namespace ampscope::gui
