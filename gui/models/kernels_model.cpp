#include "gui/models/kernels_model.h"

#include <algorithm>
#include <map>
#include <regex>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "analyzer/kernel_verdicts.h"
#include "gui/models/layer_attribution.h"
#include "reports/report_file.h"

namespace ampscope::gui {

namespace {

using analyzer::TensorCoreVerdict;

// Kernel names are C++ signatures hundreds of characters long: the cell shows the start, the
// tooltip and the tab's detail the whole name.
constexpr qsizetype kNameCellLimit = 120;

QString text(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

KernelsModel::Verdict verdictOf(const TensorCoreVerdict& v) {
  if (v.host) return KernelsModel::Verdict::kHost;
  return v.tensor_core ? KernelsModel::Verdict::kTensorCore : KernelsModel::Verdict::kNotTensorCore;
}

const analyzer::TensorCoreRule* ruleNamed(const std::string& id) {
  for (const analyzer::TensorCoreRule& rule : analyzer::TensorCoreRules::builtin().rules()) {
    if (rule.id == id) return &rule;
  }
  return nullptr;
}

// Why the verdict is what it is, in words: the rule row's pattern and note, how sure it is, and
// the operand alignment the name carries (align1/align2 kernels are the cost of odd shapes).
QString evidenceOf(const TensorCoreVerdict& v) {
  if (v.host) return QStringLiteral("ran on the host CPU (the trainer's CPU backend): no Tensor Cores to use");
  QString out;
  const analyzer::TensorCoreRule* rule = v.rule_id.empty() ? nullptr : ruleNamed(v.rule_id);
  // A row that matches even an empty name is the rules' fallback: no family was recognised.
  if (rule && !std::regex_search("", rule->regex)) {
    out = QStringLiteral("%1 confidence: the name matches %2").arg(analyzer::confidenceName(v.confidence), text(rule->pattern));
  } else {
    out = QStringLiteral("%1 confidence: no kernel family recognised in the name").arg(analyzer::confidenceName(v.confidence));
  }
  if (rule && !rule->note.empty()) out += QStringLiteral(" (%1)").arg(text(rule->note));
  if (v.alignment > 0) out += QStringLiteral("; operands aligned to %1 element%2").arg(v.alignment).arg(v.alignment == 1 ? "" : "s");
  return out;
}

}  // namespace

KernelsModel::KernelsModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelsModel::setRun(const analyzer::RunAnalysis* run) {
  beginResetModel();
  kernels_.clear();
  layers_.assign(1, QString());
  entries_.clear();
  layer_filter_.clear();
  pass_filter_.clear();
  by_operator_ = false;
  if (run) {
    const trace::Trace& trace = run->trace;
    LayerAttribution attribution(trace);
    by_operator_ = attribution.groupsOperators();
    analyzer::KernelVerdicts verdicts(trace);
    // A name on a GPU and on the host gets two verdicts, so it is keyed with where it ran.
    std::unordered_map<std::uint64_t, std::size_t> kernel_index;
    std::map<std::string_view, std::size_t> layer_index;
    std::map<std::tuple<std::size_t, std::size_t, trace::Phase>, std::size_t> entry_index;
    for (const trace::Kernel& kernel : trace.kernels) {
      const std::uint64_t key = (static_cast<std::uint64_t>(kernel.name) << 1) | (verdicts.onHost(kernel) ? 1U : 0U);
      auto [k, new_kernel] = kernel_index.try_emplace(key, kernels_.size());
      if (new_kernel) {
        const TensorCoreVerdict& v = verdicts.of(kernel);
        KernelName name;
        name.name = text(trace.str(kernel.name));
        name.verdict = verdictOf(v);
        if (v.precision != analyzer::MathPrecision::kUnknown) name.precision = analyzer::precisionName(v.precision);
        name.rule = v.host ? QStringLiteral("host") : text(v.rule_id);
        name.evidence = evidenceOf(v);
        kernels_.push_back(std::move(name));
      }
      const KernelOrigin& origin = attribution.of(kernel);
      std::size_t layer = 0;
      if (!origin.group.empty()) {
        auto [l, new_layer] = layer_index.try_emplace(origin.group, layers_.size());
        if (new_layer) layers_.push_back(text(origin.group));
        layer = l->second;
      }
      auto [e, new_entry] = entry_index.try_emplace({k->second, layer, origin.phase}, entries_.size());
      if (new_entry) entries_.push_back({k->second, layer, origin.phase, 0, 0});
      Entry& entry = entries_[e->second];
      ++entry.calls;
      entry.time_ns += kernel.end_ns - kernel.start_ns;
    }
  }
  rebuildRows();
  endResetModel();
}

void KernelsModel::setLayerFilter(const QString& layer, const QString& pass) {
  if (layer == layer_filter_ && pass == pass_filter_) return;
  beginResetModel();
  layer_filter_ = layer;
  pass_filter_ = layer.isEmpty() ? QString() : pass;
  rebuildRows();
  endResetModel();
}

void KernelsModel::rebuildRows() {
  rows_.clear();
  total_ns_ = 0;
  std::vector<std::int64_t> kernel_row(kernels_.size(), -1);
  // Per row, its time by layer, to name the layer most of it ran for.
  std::vector<std::map<std::size_t, std::int64_t>> layer_time;
  for (const Entry& entry : entries_) {
    if (!layer_filter_.isEmpty()) {
      if (layers_[entry.layer] != layer_filter_) continue;
      if (!pass_filter_.isEmpty() && pass_filter_ != QLatin1String(trace::phaseName(entry.phase))) continue;
    }
    std::int64_t& index = kernel_row[entry.kernel];
    if (index < 0) {
      index = static_cast<std::int64_t>(rows_.size());
      const KernelName& k = kernels_[entry.kernel];
      Row row;
      row.name = k.name;
      row.verdict = k.verdict;
      row.precision = k.precision;
      row.rule = k.rule;
      row.evidence = k.evidence;
      rows_.push_back(std::move(row));
      layer_time.emplace_back();
    }
    Row& row = rows_[static_cast<std::size_t>(index)];
    row.calls += entry.calls;
    row.time_ns += entry.time_ns;
    total_ns_ += entry.time_ns;
    if (entry.layer != 0) layer_time[static_cast<std::size_t>(index)][entry.layer] += entry.time_ns;
  }
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    Row& row = rows_[i];
    row.share = total_ns_ > 0 ? static_cast<double>(row.time_ns) / static_cast<double>(total_ns_) : 0.0;
    const auto& times = layer_time[i];
    const auto heaviest =
        std::max_element(times.begin(), times.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    if (heaviest == times.end()) continue;
    row.layer = layers_[heaviest->first];
    row.other_layers = static_cast<int>(times.size()) - 1;
  }
  // Heaviest first, so the unsorted table (and a test) reads in a meaningful order.
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

QString KernelsModel::verdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kTensorCore: return QStringLiteral("Tensor Cores");
    case Verdict::kHost: return QStringLiteral("host");
    case Verdict::kNotTensorCore: break;
  }
  return QStringLiteral("not on Tensor Cores");
}

QColor KernelsModel::verdictColor(Verdict verdict) {
  switch (verdict) {
    case Verdict::kTensorCore: return QColor(0x2f8132);
    case Verdict::kHost: return QColor(0x52606d);
    case Verdict::kNotTensorCore: break;
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
    case kVerdictRole: return static_cast<int>(row->verdict);
    case kLayerRole: return row->layer;
    case Qt::ForegroundRole:
      if (column == kVerdict) return verdictColor(row->verdict);
      return {};
    case Qt::ToolTipRole:
      if (column == kKernel) return row->name;
      if (column == kLayer && !row->layer.isEmpty()) return row->layer;
      if (column == kEvidence || column == kVerdict || column == kRule) return row->evidence;
      return {};
    case Qt::TextAlignmentRole:
      if (column >= kCalls && column <= kShare) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
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
    case kVerdict: return verdictName(row.verdict);
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
      default: return {};
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (column) {
    case kKernel: return QStringLiteral("Kernel");
    case kLayer: return by_operator_ ? QStringLiteral("Operator") : QStringLiteral("Layer");
    case kCalls: return QStringLiteral("Calls");
    case kTime: return QStringLiteral("Time");
    case kShare: return QStringLiteral("Share");
    case kVerdict: return QStringLiteral("Verdict");
    case kPrecision: return QStringLiteral("Precision");
    case kRule: return QStringLiteral("Rule");
    case kEvidence: return QStringLiteral("Evidence");
    case kColumnCount: break;
  }
  return {};
}

}  // namespace ampscope::gui
