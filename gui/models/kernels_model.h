#pragma once
// The run's kernels grouped by name, as the analyzer's kernel table (TraceSummary::kernels) has
// them: calls, time, share, the Tensor Core verdict (yes, no, unknown, or host work of a CPU run,
// in the words every view uses: reports/verdict_words.h), beside it the tensor pipe's measured share
// where hardware counters measured the kernel, its precision, the rule that decided and the evidence. setLayerFilter restricts the rows
// to the kernels one layer (and pass) ran, the Layers tab's detail: the model then sums each
// kernel's uses (KernelRow::uses) by that layer and pass, a cut of the table, not a new analysis.
// A TableFilterProxy on kVerdictRole filters by verdict. Display text is formatted with units;
// kSortRole gives raw values so a proxy sorts numbers as numbers.

#include <cstdint>
#include <optional>
#include <vector>

#include <QAbstractTableModel>
#include <QColor>
#include <QString>

#include "analyzer/run_analysis.h"
#include "trace/trace_model.h"

namespace ampscope::gui {

class KernelsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kKernel, kLayer, kCalls, kTime, kShare, kVerdict, kMeasuredActive, kPrecision, kRule, kEvidence, kColumnCount };
  using Verdict = analyzer::TensorCoreUse;

  static constexpr int kSortRole = Qt::UserRole;         // raw value of any column
  static constexpr int kVerdictRole = Qt::UserRole + 1;  // Verdict::Value, as int, any column
  static constexpr int kLayerRole = Qt::UserRole + 2;    // the layer most of its time ran for

  struct Row {
    QString name;
    QString layer;         // the layer (or top-level operator) most of its time ran for; empty: none
    int other_layers = 0;  // how many more layers ran it
    std::uint64_t calls = 0;
    std::int64_t time_ns = 0;
    double share = 0.0;    // of the time of the rows shown
    Verdict verdict = Verdict::kNo;
    QString precision;     // "unknown" when nothing says
    QString rule;          // the rule row that decided; empty when none matched
    QString evidence;
    // The tensor pipe's measured busy share of the kernel's name over all its measured calls
    // (hardware counters), and the time that covers; nullopt: not measured.
    std::optional<double> measured_active;
    std::int64_t measured_ns = 0;
  };

  explicit KernelsModel(QObject* parent = nullptr);

  // Rebuilds from run's kernel table (nullptr: no run); keeps no reference to run. Clears the
  // layer filter.
  void setRun(const analyzer::RunAnalysis* run);
  // Only the kernels layer ran (in pass, when given); an empty layer shows every kernel of the
  // run. Layer names and passes are those of LayersModel's rows.
  void setLayerFilter(const QString& layer, std::optional<trace::Phase> pass = std::nullopt);
  QString layerFilter() const { return layer_filter_; }
  std::optional<trace::Phase> passFilter() const { return pass_filter_; }

  // The row's data; nullptr outside the table.
  const Row* at(int row) const;
  // The first row of the kernel named name; -1 when there is none.
  int rowOfKernel(const QString& name) const;
  // Time of the rows shown.
  std::int64_t totalTimeNs() const { return total_ns_; }
  // The trace names no layers: the Layer column names top-level operators.
  bool groupsOperators() const { return by_operator_; }
  // The run recorded hardware counters (kMeasuredActive is blank throughout without them).
  bool hasCounters() const { return has_counters_; }

  static QColor verdictColor(Verdict verdict);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  // Where a kernel's calls came from (analyzer::KernelUse), with the layer as the table shows it.
  struct Use {
    QString layer;  // empty: no layer
    trace::Phase pass = trace::Phase::kUnknown;
    std::uint64_t calls = 0;
    std::int64_t time_ns = 0;
  };
  // One row of the analyzer's kernel table, its texts ready to show.
  struct Kernel {
    QString name;
    Verdict verdict = Verdict::kNo;
    QString precision;
    QString rule;
    QString evidence;
    std::optional<double> measured_active;
    std::int64_t measured_ns = 0;
    std::uint64_t calls = 0;  // all of the kernel's calls, every layer's
    std::int64_t time_ns = 0;
    std::vector<Use> uses;
    QString heaviest_layer;   // the layer most of its time ran for (the analyzer's); empty: none
    int layers = 0;           // how many layers ran it
  };

  void rebuildRows();
  QVariant display(const Row& row, Column column) const;
  QVariant sortValue(const Row& row, Column column) const;
  QString measuredExplanation(const Row& row) const;

  std::vector<Kernel> kernels_;  // heaviest first, as the analyzer orders them
  QString layer_filter_;
  std::optional<trace::Phase> pass_filter_;
  std::vector<Row> rows_;
  std::int64_t total_ns_ = 0;
  bool by_operator_ = false;
  bool on_cpu_ = false;  // a CPU run: its rows are host ops
  bool has_counters_ = false;
};

}  // namespace ampscope::gui
