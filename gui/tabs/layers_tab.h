#pragma once
// The run's layers by pass, coloured by what needs attention (eligible but off Tensor Cores,
// shapes off the multiple, fine, or host work of a CPU run), with a filter and a legend. Below
// the table, the selected layer: its kernels in that pass and the recommendations about it.
// Other tabs show a layer here through selectLayer (the window connects their layerSelected).

#include <QString>

#include "gui/run_view.h"

class QLabel;
class QLineEdit;
class QTableView;
class QTextBrowser;

namespace ampscope::gui {

class KernelsModel;
class LayersModel;
class TableFilterProxy;

class LayersTab : public RunView {
  Q_OBJECT

 public:
  explicit LayersTab(QWidget* parent = nullptr);
  void showRun(RunPtr run) override;

  // The layer of the current row; empty when none is selected.
  QString selectedLayer() const;

 public slots:
  // Selects the layer's first row (clearing a filter that hides it) and scrolls to it; false
  // when the run has no such layer.
  bool selectLayer(const QString& layer);

 private:
  void showSelected();
  QString recommendationsHtml(const QString& layer) const;

  RunPtr run_;
  LayersModel* model_ = nullptr;
  TableFilterProxy* proxy_ = nullptr;
  KernelsModel* kernels_ = nullptr;
  TableFilterProxy* kernels_proxy_ = nullptr;
  QLabel* heading_ = nullptr;
  QLabel* note_ = nullptr;
  QLineEdit* filter_ = nullptr;
  QTableView* table_ = nullptr;
  QLabel* detail_heading_ = nullptr;
  QTableView* kernel_table_ = nullptr;
  QTextBrowser* recommendations_ = nullptr;
};

}  // namespace ampscope::gui
