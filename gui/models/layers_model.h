#pragma once
// The run's layers, one row per layer and pass (forward, backward, ...), in model order: the
// analyzer's layer table (TraceSummary::layer_table) as a Qt table. Each row has the layer's calls,
// GPU time (host time on a CPU run), Tensor Core time and share, whether its ops could use Tensor
// Cores, the precision its matrix kernels ran in, its recorded GEMM shapes and the dimensions that
// break the precision's multiple (the analyzer's shape checks, as text); the per-op model's
// figures summed per row by the analyzer (achieved TFLOP/s, the peak in its precision, the roofline
// bound, the predicted time under AMP on the recorded device), beside the Tensor Core share the
// tensor pipe's measured share where hardware counters measured its kernels, and, when the run has a what-if
// projection (a CPU run, or --gpu naming another GPU), the estimated FP32 and AMP time per step on
// that GPU, marked as estimates. The model computes nothing: it formats what the analysis holds.
//
// Each row has a state for colour coding (the analyzer's LayerState): eligible but mostly off
// Tensor Cores, misaligned shapes, fine, or host (the run was recorded on the CPU, where Tensor
// Core figures do not apply). Display text is formatted with units; kSortRole gives raw values
// so a proxy sorts numbers as numbers.

#include <cstdint>
#include <vector>

#include <QAbstractTableModel>
#include <QColor>
#include <QString>

#include "analyzer/run_analysis.h"
#include "trace/trace_model.h"

namespace ampscope::gui {

class LayersModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    // The figures first, the words after: the model's rates and estimates stay in view beside the
    // time they explain.
    kLayer, kOp, kPass, kCalls, kTime, kTensorCoreTime, kTensorCoreShare, kMeasuredActive, kAchieved, kPeak, kBound,
    kPredictedAmp, kWhatIfFp32, kWhatIfAmp, kEligible, kPrecision, kShapes, kViolations, kColumnCount
  };
  // The analysis's verdict on the row (analyzer/tables/layer_table.h), which picks the row's colours.
  using State = analyzer::LayerState;

  static constexpr int kSortRole = Qt::UserRole;       // raw value of any column
  static constexpr int kStateRole = Qt::UserRole + 1;  // State, as int
  static constexpr int kLayerRole = Qt::UserRole + 2;  // the layer's name, any column

  // The analysis's row (its numbers, pass and state) and its words as the cells show them.
  struct Row {
    analyzer::LayerRow analysis;
    QString layer;       // or the top-level operator, when the trace names no layers
    QString op;          // the ops it ran, heaviest first ("; " between them)
    QString pass;        // "forward", "backward", ... ("unknown" where the trace does not say)
    QString precision;   // of most of its matrix-kernel time; "unknown" when none says
    QString shapes;      // eligible call shapes, heaviest first ("; " between them)
    QString violations;  // "N=33278->33280 (x8)"; "; " between shapes
  };

  explicit LayersModel(QObject* parent = nullptr);

  // Rebuilds the rows from run's summary (nullptr: no run); keeps no reference to run.
  void setRun(const analyzer::RunAnalysis* run);

  // The row's data; nullptr outside the table.
  const Row* at(int row) const;
  // The first row (in model order) of layer; -1 when there is none.
  int rowOfLayer(const QString& layer) const;
  // The trace names no layers: rows are top-level operators (the Layer column names them).
  bool groupsOperators() const { return by_operator_; }
  // The run was recorded on the CPU: times are host time and every row is State::kHost.
  bool recordedOnCpu() const { return on_cpu_; }
  // The run has a what-if projection: the kWhatIf columns hold its estimates on this GPU (the
  // device table's row name); empty when it has none, and those columns are empty.
  bool hasWhatIf() const { return !what_if_device_.isEmpty(); }
  // The run recorded hardware counters: kMeasuredActive holds the tensor pipe's measured share
  // where the row's kernels were measured (blank where not); without counters it is blank throughout.
  bool hasCounters() const { return has_counters_; }
  QString whatIfDevice() const { return what_if_device_; }

  static QString stateName(State state);     // "eligible, not on Tensor Cores", ...
  static QColor stateBackground(State state);
  static QColor stateForeground(State state);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  QVariant display(const Row& row, Column column) const;
  QVariant sortValue(const Row& row, Column column) const;
  QString stateExplanation(const Row& row) const;
  QString whatIfExplanation(const Row& row) const;
  QString measuredExplanation(const Row& row) const;

  std::vector<Row> rows_;
  bool by_operator_ = false;
  bool on_cpu_ = false;
  bool has_counters_ = false;
  QString what_if_device_;
  QString what_if_reason_;
};

}  // namespace ampscope::gui
