#pragma once
// The analyzer's recommendations as a table: severity, estimated gain per step and as a share of
// the step, rule, target, the ranks a job's finding applies to (empty for one run), evidence and
// action. Display text is formatted with units; kSortRole
// gives the raw value (gain in ns, severity rank) so a proxy sorts numbers as numbers.

#include <string_view>
#include <vector>

#include <QAbstractTableModel>
#include <QString>

#include "analyzer/advice/recommendations.h"

namespace ampscope::gui {

class RecommendationsTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kSeverity, kGain, kGainShare, kRule, kTarget, kRanks, kEvidence, kAction, kColumnCount };
  static constexpr int kSortRole = Qt::UserRole;

  explicit RecommendationsTableModel(QObject* parent = nullptr);

  void setRecommendations(std::vector<analyzer::Recommendation> recommendations);
  // The recommendation of a model row; nullptr outside the table.
  const analyzer::Recommendation* at(int row) const;
  // Whether any recommendation names ranks (a job's): a single run's view hides the column.
  bool namesRanks() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::vector<analyzer::Recommendation> recommendations_;
};

// The layer a recommendation is about when its target names one of the summary's layers: "fc1",
// or "fc1 (aten::linear)" as shape checks write it. Empty for the model, the data loader, a
// kernel, or a trace without layer names.
QString layerOfRecommendation(const analyzer::TraceSummary& summary, const analyzer::Recommendation& recommendation);

// The whole recommendation as rich text for a detail pane: what, where, how much, why and how.
QString recommendationDetailHtml(const analyzer::Recommendation& recommendation);

}  // namespace ampscope::gui
