#include "gui/models/layers_model.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "analyzer/kernel_verdicts.h"
#include "analyzer/shape_checks.h"
#include "analyzer/trainer_range_text.h"
#include "gui/models/layer_attribution.h"
#include "reports/report_file.h"
#include "reports/report_rows.h"

namespace ampscope::gui {

namespace {

using analyzer::MathPrecision;
using analyzer::TensorCoreVerdict;

// Ops and shapes beyond these are in the cell's tooltip, not the cell.
constexpr std::size_t kListedInCell = 3;

QString text(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

// A kernel that does an op's matrix math, as the analyzer's shape checks and Amdahl split count
// it: Tensor Core kernels, FP32 GEMMs on CUDA cores, GEMM-like kernels of a family the rules do
// not know, and, on the host, the eligible op's own work.
bool isMatrixKernel(const TensorCoreVerdict& v, bool under_eligible_op) {
  if (v.host) return under_eligible_op;
  return v.tensor_core || v.precision == MathPrecision::kFp32Simt || v.rule_id == "unknown-matrix";
}

template <typename Key>
std::vector<std::pair<Key, std::int64_t>> heaviestFirst(const std::map<Key, std::int64_t>& times) {
  std::vector<std::pair<Key, std::int64_t>> out(times.begin(), times.end());
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

// "a; b; c (+2 more)"; the full list is the tooltip's.
QString joined(const QStringList& items) {
  if (static_cast<std::size_t>(items.size()) <= kListedInCell) return items.join("; ");
  return items.first(static_cast<qsizetype>(kListedInCell)).join("; ") +
         QStringLiteral(" (+%1 more)").arg(items.size() - static_cast<qsizetype>(kListedInCell));
}

MathPrecision dominant(const std::map<MathPrecision, std::int64_t>& times) {
  MathPrecision best = MathPrecision::kUnknown;
  std::int64_t best_ns = -1;
  for (const auto& [precision, ns] : times) {
    if (precision != MathPrecision::kUnknown && ns > best_ns) {
      best = precision;
      best_ns = ns;
    }
  }
  return best;
}

// An eligible op's label and recorded shapes: the key of the analyzer's shape checks.
using CallShape = std::pair<std::string_view, std::string_view>;

struct Accumulated {
  LayersModel::Row row;
  std::unordered_set<trace::Index> calls;
  std::int64_t call_start_ns = std::numeric_limits<std::int64_t>::max();
  std::map<std::string_view, std::int64_t> op_time;
  std::map<CallShape, std::int64_t> call_shape_time;
  std::map<MathPrecision, std::int64_t> matrix_precision_time;
  std::map<MathPrecision, std::int64_t> precision_time;
};

// Per layer, its first call's start: layers in the order the run first ran them, then each
// layer's passes in the order they ran (the order of TraceSummary::layer_passes).
void sortInModelOrder(std::vector<LayersModel::Row>& rows) {
  std::map<QString, std::int64_t> layer_start;
  for (const LayersModel::Row& row : rows) {
    auto [start, fresh] = layer_start.try_emplace(row.layer, row.first_start_ns);
    if (!fresh) start->second = std::min(start->second, row.first_start_ns);
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const LayersModel::Row& a, const LayersModel::Row& b) {
    const std::int64_t sa = layer_start[a.layer];
    const std::int64_t sb = layer_start[b.layer];
    if (sa != sb) return sa < sb;
    if (a.layer != b.layer) return a.layer < b.layer;
    return a.first_start_ns < b.first_start_ns;
  });
}

void finish(Accumulated& a, const std::map<CallShape, const analyzer::ShapeCheck*>& checks, bool on_cpu) {
  LayersModel::Row& row = a.row;
  row.calls = a.calls.size();
  row.first_start_ns = a.call_start_ns;
  QStringList ops;
  for (const auto& [op, ns] : heaviestFirst(a.op_time)) ops << text(op);
  row.op = ops.join("; ");
  MathPrecision precision = dominant(a.matrix_precision_time);
  if (precision == MathPrecision::kUnknown) precision = dominant(a.precision_time);
  if (precision != MathPrecision::kUnknown) row.precision = analyzer::precisionName(precision);
  QStringList shapes;
  QStringList violations;
  for (const auto& [call_shape, ns] : heaviestFirst(a.call_shape_time)) {
    shapes << text(call_shape.second);
    const auto check = checks.find(call_shape);
    if (check == checks.end() || check->second->misaligned.empty()) continue;
    violations << text(reports::violationText(*check->second));
    row.violation_count += static_cast<int>(check->second->misaligned.size());
  }
  row.shapes = shapes.join("; ");
  row.violations = violations.join("; ");
  if (on_cpu) {
    row.state = LayersModel::State::kHost;
  } else if (row.eligible_cuda_core_ns > row.eligible_tensor_core_ns) {
    row.state = LayersModel::State::kEligibleNotTensorCore;
  } else if (row.violation_count > 0) {
    row.state = LayersModel::State::kMisaligned;
  }
}

std::vector<LayersModel::Row> buildRows(const analyzer::RunAnalysis& run, bool& by_operator) {
  const trace::Trace& trace = run.trace;
  LayerAttribution attribution(trace);
  by_operator = attribution.groupsOperators();
  analyzer::KernelVerdicts verdicts(trace);
  std::map<std::pair<std::string_view, trace::Phase>, Accumulated> groups;
  for (const trace::Kernel& kernel : trace.kernels) {
    const KernelOrigin& origin = attribution.of(kernel);
    if (origin.group.empty()) continue;
    const TensorCoreVerdict& v = verdicts.of(kernel);
    const std::int64_t ns = kernel.end_ns - kernel.start_ns;
    Accumulated& a = groups[{origin.group, origin.phase}];
    const trace::Range& call = trace.ranges[static_cast<std::size_t>(origin.call)];
    a.calls.insert(origin.call);
    a.call_start_ns = std::min(a.call_start_ns, call.start_ns);
    ++a.row.kernels;
    a.row.time_ns += ns;
    if (v.tensor_core) a.row.tensor_core_time_ns += ns;
    a.op_time[origin.op] += ns;
    a.precision_time[v.precision] += ns;
    const bool eligible = origin.eligible_op != trace::kNone;
    a.row.eligible = a.row.eligible || eligible;
    if (isMatrixKernel(v, eligible)) {
      a.matrix_precision_time[v.precision] += ns;
      if (eligible && v.tensor_core) a.row.eligible_tensor_core_ns += ns;
      if (eligible && !v.tensor_core && !v.host) a.row.eligible_cuda_core_ns += ns;
    }
    if (origin.shaped_op != trace::kNone) {
      const trace::Range& shaped = trace.ranges[static_cast<std::size_t>(origin.shaped_op)];
      a.call_shape_time[{analyzer::shapeCheckLabel(trace, shaped), trace.str(shaped.shapes)}] += ns;
    }
  }

  // Every call shape, not the summary's top_n: a layer's finding must not depend on --top.
  const std::vector<analyzer::ShapeCheck> shape_checks = analyzer::checkShapes(trace);
  std::map<CallShape, const analyzer::ShapeCheck*> checks;
  for (const analyzer::ShapeCheck& check : shape_checks) {
    checks.emplace(CallShape{check.op, check.shapes}, &check);
  }

  std::vector<LayersModel::Row> rows;
  rows.reserve(groups.size());
  for (auto& [key, a] : groups) {
    a.row.layer = text(key.first);
    a.row.pass = trace::phaseName(key.second);
    finish(a, checks, run.summary.recorded_on_cpu);
    rows.push_back(std::move(a.row));
  }
  sortInModelOrder(rows);
  return rows;
}

}  // namespace

double LayersModel::Row::tensorCoreShare() const {
  return time_ns > 0 ? static_cast<double>(tensor_core_time_ns) / static_cast<double>(time_ns) : 0.0;
}

LayersModel::LayersModel(QObject* parent) : QAbstractTableModel(parent) {}

void LayersModel::setRun(const analyzer::RunAnalysis* run) {
  beginResetModel();
  rows_.clear();
  by_operator_ = false;
  on_cpu_ = run != nullptr && run->summary.recorded_on_cpu;
  if (run) rows_ = buildRows(*run, by_operator_);
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
    case kStateRole: return static_cast<int>(row->state);
    case kLayerRole: return row->layer;
    case Qt::BackgroundRole: return stateBackground(row->state);
    case Qt::ForegroundRole: return stateForeground(row->state);
    case Qt::ToolTipRole:
      if (column == kLayer) return row->layer + QStringLiteral(": ") + stateExplanation(*row);
      if (column == kOp && !row->op.isEmpty()) return row->op;
      if (column == kShapes && !row->shapes.isEmpty()) return row->shapes;
      if (column == kViolations && !row->violations.isEmpty()) return row->violations;
      return stateExplanation(*row);
    case Qt::TextAlignmentRole:
      if (column >= kCalls && column <= kTensorCoreShare) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
      return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    default: return {};
  }
}

QVariant LayersModel::display(const Row& row, Column column) const {
  switch (column) {
    case kLayer: return row.layer;
    case kOp: return joined(row.op.split("; ", Qt::SkipEmptyParts));
    case kPass: return row.pass;
    case kCalls: return QString::number(row.calls);
    case kTime: return text(reports::formatDuration(row.time_ns));
    // A CPU run has no Tensor Core figures: a dash, not a zero that reads as "missed them".
    case kTensorCoreTime: return on_cpu_ ? QStringLiteral("–") : text(reports::formatDuration(row.tensor_core_time_ns));
    case kTensorCoreShare: return on_cpu_ ? QStringLiteral("–") : text(reports::formatPercent(row.tensorCoreShare()));
    case kEligible: return row.eligible ? QStringLiteral("yes") : QStringLiteral("no");
    case kPrecision: return row.precision;
    case kShapes: return joined(row.shapes.split("; ", Qt::SkipEmptyParts));
    case kViolations: return !row.violations.isEmpty() ? row.violations : row.shapes.isEmpty() ? QString() : QStringLiteral("none");
    case kColumnCount: break;
  }
  return {};
}

QVariant LayersModel::sortValue(const Row& row, Column column) const {
  switch (column) {
    case kCalls: return static_cast<qulonglong>(row.calls);
    case kTime: return static_cast<qlonglong>(row.time_ns);
    case kTensorCoreTime: return static_cast<qlonglong>(row.tensor_core_time_ns);
    case kTensorCoreShare: return row.tensorCoreShare();
    case kEligible: return row.eligible ? 1 : 0;
    case kViolations: return row.violation_count;
    case kShapes: return row.shapes;
    default: return display(row, column);
  }
}

QString LayersModel::stateExplanation(const Row& row) const {
  switch (row.state) {
    case State::kHost:
      return QStringLiteral("Recorded on the CPU: its ops ran on the host, so Tensor Core figures need a GPU run");
    case State::kEligibleNotTensorCore:
      return QStringLiteral("Its matrix ops could use Tensor Cores, but %1 of their kernel time ran on CUDA cores "
                            "(%2 on Tensor Cores)")
          .arg(text(reports::formatDuration(row.eligible_cuda_core_ns)),
               text(reports::formatDuration(row.eligible_tensor_core_ns)));
    case State::kMisaligned:
      return QStringLiteral("%1 GEMM dimension%2 off the multiple its precision wants: %3")
          .arg(row.violation_count)
          .arg(row.violation_count == 1 ? "" : "s")
          .arg(row.violations);
    case State::kFine: break;
  }
  return row.eligible ? QStringLiteral("Its matrix ops ran on Tensor Cores with aligned shapes")
                      : QStringLiteral("No Tensor-Core-eligible op: nothing to change here for Tensor Cores");
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
    case kEligible: return QStringLiteral("Eligible");
    case kPrecision: return QStringLiteral("Precision");
    case kShapes: return QStringLiteral("Shapes");
    case kViolations: return QStringLiteral("Off the multiple");
    case kColumnCount: break;
  }
  return {};
}

}  // namespace ampscope::gui
