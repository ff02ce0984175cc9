#pragma once
// A tab of the main window: one view of an analyzed run. The window hands every tab the run it
// loaded; tabs never read files. A tab that lets the user pick a layer says so through
// layerSelected, and the window shows that layer in the Layers tab.

#include <memory>

#include <QString>
#include <QWidget>

#include "analyzer/job/job_analysis.h"
#include "analyzer/run_analysis.h"

namespace ampscope::gui {

using RunPtr = std::shared_ptr<const analyzer::RunAnalysis>;
// A distributed job's analysis: the Ranks tab shows it; the other tabs show one rank's run.
using JobPtr = std::shared_ptr<const analyzer::JobAnalysis>;

class RunView : public QWidget {
  Q_OBJECT

 public:
  using QWidget::QWidget;
  // Shows run (nullptr: no run loaded). Called on the GUI thread.
  virtual void showRun(RunPtr run) = 0;

 signals:
  void layerSelected(const QString& layer);
};

}  // namespace ampscope::gui
