#pragma once
// Every kernel of the run grouped by name: calls, time, share, the Tensor Core verdict with its
// precision, rule and evidence. Filtered by verdict (all, or Tensor Cores yes, no, unknown,
// host) and by text; the selected kernel's full name and evidence below the table. Choosing a
// kernel whose layer is known (double-click, Enter, Show layer) shows that layer (layerSelected).

#include "gui/run_view.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace ampscope::gui {

class KernelsModel;
class TableFilterProxy;

class KernelsTab : public RunView {
  Q_OBJECT

 public:
  explicit KernelsTab(QWidget* parent = nullptr);
  void showRun(RunPtr run) override;

  // The layer that ran most of the current kernel's time; empty when none is selected or known.
  QString selectedLayer() const;

 public slots:
  // Emits layerSelected for the current kernel's layer, when it has one (double-click, Enter and
  // the Show layer button call it).
  void showSelectedLayer();

 private:
  void applyVerdictFilter();
  void showSelected();

  RunPtr run_;
  KernelsModel* model_ = nullptr;
  TableFilterProxy* proxy_ = nullptr;
  QLabel* heading_ = nullptr;
  QComboBox* verdict_ = nullptr;
  QLineEdit* filter_ = nullptr;
  QTableView* table_ = nullptr;
  QLabel* detail_ = nullptr;
  QPushButton* show_layer_ = nullptr;
};

}  // namespace ampscope::gui
