#pragma once
// The run's kernels grouped by name: calls, time, share, the Tensor Core verdict (on Tensor
// Cores, not, or host work of a CPU run), its precision, the rule that decided and the evidence.
// setLayerFilter restricts the rows to the kernels one layer (and pass) ran, the Layers tab's
// detail; a TableFilterProxy on kVerdictRole filters by verdict. Display text is formatted with
// units; kSortRole gives raw values so a proxy sorts numbers as numbers.

#include <cstdint>
#include <string>
#include <vector>

#include <QAbstractTableModel>
#include <QColor>
#include <QString>

#include "analyzer/run_analysis.h"

namespace ampscope::gui {

class KernelsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kKernel, kLayer, kCalls, kTime, kShare, kVerdict, kPrecision, kRule, kEvidence, kColumnCount };
  enum class Verdict { kTensorCore, kNotTensorCore, kHost };

  static constexpr int kSortRole = Qt::UserRole;         // raw value of any column
  static constexpr int kVerdictRole = Qt::UserRole + 1;  // Verdict, as int, any column
  static constexpr int kLayerRole = Qt::UserRole + 2;    // the layer most of its time ran for

  struct Row {
    QString name;
    QString layer;         // the layer (or top-level operator) most of its time ran for; empty: none
    int other_layers = 0;  // how many more layers ran it
    std::uint64_t calls = 0;
    std::int64_t time_ns = 0;
    double share = 0.0;    // of the time of the rows shown
    Verdict verdict = Verdict::kNotTensorCore;
    QString precision;     // empty when the name does not say
    QString rule;          // the rule row that decided; empty when none matched
    QString evidence;
  };

  explicit KernelsModel(QObject* parent = nullptr);

  // Rebuilds from run's trace (nullptr: no run); keeps no reference to run. Clears the layer filter.
  void setRun(const analyzer::RunAnalysis* run);
  // Only the kernels layer ran (in pass, when given: "forward", "backward", ...); an empty layer
  // shows every kernel of the run. Layer names are those of LayersModel's rows.
  void setLayerFilter(const QString& layer, const QString& pass = {});
  QString layerFilter() const { return layer_filter_; }
  QString passFilter() const { return pass_filter_; }

  // The row's data; nullptr outside the table.
  const Row* at(int row) const;
  // The first row of the kernel named name; -1 when there is none.
  int rowOfKernel(const QString& name) const;
  // Time of the rows shown.
  std::int64_t totalTimeNs() const { return total_ns_; }
  // The trace names no layers: the Layer column names top-level operators.
  bool groupsOperators() const { return by_operator_; }

  static QString verdictName(Verdict verdict);  // "Tensor Cores", "not on Tensor Cores", "host"
  static QColor verdictColor(Verdict verdict);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  // Kernel time summed per (kernel name, layer, pass): what any filter's rows are made from.
  struct Entry {
    std::size_t kernel = 0;  // into kernels_
    std::size_t layer = 0;   // into layers_
    trace::Phase phase = trace::Phase::kUnknown;
    std::uint64_t calls = 0;
    std::int64_t time_ns = 0;
  };
  struct KernelName {
    QString name;
    Verdict verdict = Verdict::kNotTensorCore;
    QString precision;
    QString rule;
    QString evidence;
  };

  void rebuildRows();
  QVariant display(const Row& row, Column column) const;
  QVariant sortValue(const Row& row, Column column) const;

  std::vector<KernelName> kernels_;
  std::vector<QString> layers_;  // layers_[0] is "": kernels of no layer
  std::vector<Entry> entries_;
  QString layer_filter_;
  QString pass_filter_;
  std::vector<Row> rows_;
  std::int64_t total_ns_ = 0;
  bool by_operator_ = false;
};

}  // namespace ampscope::gui
