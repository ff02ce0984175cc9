#pragma once
// The per-op performance model of a run (TraceSummary::op_performance) as a Qt table: one row per
// op call shape, heaviest first, with its calls and time, the precision its kernels ran in, its
// arithmetic intensity, the rate it achieved against the device's peak in that precision, its
// roofline bound, and what AMP should make of it (how, the predicted time and speedup). The
// model copies the analyzer's rows and formats them; an unknown figure stays unknown ("–", and
// the analyzer's note says why), never a zero. When the run has a what-if projection (a CPU run,
// or --gpu naming another GPU), each row also has its estimated FP32 and AMP time per step on that
// GPU, marked as estimates. The Roofline tab draws the rows that have both an intensity and an
// achieved rate.
//
// kSortRole gives raw values (unknown: -1, below every known figure) so a proxy sorts numbers as
// numbers.

#include <optional>
#include <vector>

#include <QAbstractTableModel>
#include <QString>

#include "analyzer/core/device_table.h"
#include "analyzer/model/op_performance.h"
#include "analyzer/model/roofline.h"
#include "analyzer/model/what_if_device.h"
#include "analyzer/run_analysis.h"

namespace ampscope::gui {

class OpPerformanceModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    kOp, kLayer, kPass, kShapes, kCalls, kTime, kPrecision, kIntensity, kAchieved, kPeak, kBound, kAmpChange,
    kPredictedAmp, kAmpSpeedup, kWhatIfFp32, kWhatIfAmp, kNote, kColumnCount
  };

  static constexpr int kSortRole = Qt::UserRole;       // raw value of any column
  static constexpr int kLayerRole = Qt::UserRole + 1;  // the row's layer ("" when the trace names none)

  // The analysis's row and its words as the cells show them.
  struct Row {
    analyzer::OpRow analysis;
    QString op;
    QString layer;
    QString pass;       // "forward", "backward", ... ("unknown" where the trace does not say)
    QString shapes;     // recorded input shapes; empty when not recorded
    QString precision;  // of most of its kernel time; "unknown" when no kernel says
    QString summary;    // every figure of the row in a few lines: the tooltip of its roofline point
    std::optional<analyzer::WhatIfOp> what_if;  // its estimates on the what-if GPU; none when unknown
  };

  explicit OpPerformanceModel(QObject* parent = nullptr);

  // Rebuilds the rows from run's summary (nullptr: no run); keeps no reference to run.
  void setRun(const analyzer::RunAnalysis* run);

  const Row* at(int row) const;  // nullptr outside the table

  // How many rows have a place on the roofline (analyzer::onRoofline: an arithmetic intensity and
  // an achieved rate, which the analyzer leaves unknown when the work, the device or a physical
  // rate is missing).
  int rooflineRows() const;

  // The device the rates are measured against (nullopt: unknown, or the run was on the CPU) and
  // why it is that row (the analyzer's words).
  const std::optional<analyzer::DeviceSpec>& device() const { return device_; }
  QString deviceReason() const { return device_reason_; }
  // Why rates or projections are missing, when they are (the analyzer's note); empty otherwise.
  QString note() const { return note_; }
  bool recordedOnCpu() const { return on_cpu_; }
  // The run has a what-if projection on this GPU (the device table's row); empty when it has none.
  bool hasWhatIf() const { return !what_if_device_.isEmpty(); }
  QString whatIfDevice() const { return what_if_device_; }
  // Some row names its layer (a trace without layer names leaves the column empty).
  bool namesLayers() const { return names_layers_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  QVariant display(const Row& row, Column column) const;
  QVariant sortValue(const Row& row, Column column) const;

  std::vector<Row> rows_;
  std::optional<analyzer::DeviceSpec> device_;
  QString device_reason_;
  QString note_;
  QString what_if_device_;
  bool on_cpu_ = false;
  bool names_layers_ = false;
};

}  // namespace ampscope::gui
