#include "gui/tabs/recommendations_table_model.h"

#include <QColor>
#include <QFont>

#include "analyzer/job/job_findings.h"
#include "gui/tabs/chart_style.h"

namespace ampscope::gui {

namespace {

// Long texts are cut in the table's cells (the detail pane and the tooltip have them whole).
constexpr qsizetype kCellTextLimit = 160;

QString cellText(const std::string& text) {
  const QString full = toQString(text);
  return full.size() <= kCellTextLimit ? full : full.left(kCellTextLimit - 1) + "…";
}

}  // namespace

RecommendationsTableModel::RecommendationsTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void RecommendationsTableModel::setRecommendations(std::vector<analyzer::Recommendation> recommendations) {
  beginResetModel();
  recommendations_ = std::move(recommendations);
  endResetModel();
}

const analyzer::Recommendation* RecommendationsTableModel::at(int row) const {
  if (row < 0 || static_cast<std::size_t>(row) >= recommendations_.size()) return nullptr;
  return &recommendations_[static_cast<std::size_t>(row)];
}

bool RecommendationsTableModel::namesRanks() const {
  for (const analyzer::Recommendation& r : recommendations_) {
    if (!r.ranks.empty()) return true;
  }
  return false;
}

int RecommendationsTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(recommendations_.size());
}

int RecommendationsTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumnCount; }

QVariant RecommendationsTableModel::data(const QModelIndex& index, int role) const {
  const analyzer::Recommendation* r = index.isValid() ? at(index.row()) : nullptr;
  if (!r) return {};
  const auto column = static_cast<Column>(index.column());
  switch (role) {
    case Qt::DisplayRole:
      switch (column) {
        case kSeverity: return QString(analyzer::severityName(r->severity));
        case kGain: return durationText(r->estimated_gain_ns);
        case kGainShare: return percentText(r->estimated_gain_pct / 100.0);
        case kRule: return toQString(r->rule);
        case kTarget: return cellText(r->target);
        case kRanks: return r->ranks.empty() ? QString() : toQString(analyzer::rankSetText(r->ranks));
        case kEvidence: return cellText(r->evidence);
        case kAction: return cellText(r->action);
        case kColumnCount: break;
      }
      return {};
    case kSortRole:
      switch (column) {
        case kSeverity: return static_cast<int>(r->severity);
        case kGain: return static_cast<qlonglong>(r->estimated_gain_ns);
        case kGainShare: return r->estimated_gain_pct;
        case kRanks: return static_cast<int>(r->ranks.size());
        default: return data(index, Qt::DisplayRole);
      }
    case Qt::ToolTipRole:
      switch (column) {
        case kTarget: return toQString(r->target);
        case kEvidence: return toQString(r->evidence);
        case kAction: return toQString(r->action);
        default: return {};
      }
    case Qt::TextAlignmentRole:
      if (column == kGain || column == kGainShare) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
      return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
      if (column == kSeverity) return severityColor(r->severity);
      return {};
    case Qt::FontRole:
      if (column == kSeverity) {
        QFont bold;
        bold.setBold(true);
        return bold;
      }
      return {};
    default: return {};
  }
}

QVariant RecommendationsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::TextAlignmentRole) {
    return section == kGain || section == kGainShare ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                     : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
  }
  if (role != Qt::DisplayRole) return {};
  switch (static_cast<Column>(section)) {
    case kSeverity: return QStringLiteral("Severity");
    case kGain: return QStringLiteral("Gain / step");
    case kGainShare: return QStringLiteral("% of step");
    case kRule: return QStringLiteral("Rule");
    case kTarget: return QStringLiteral("Target");
    case kRanks: return QStringLiteral("Ranks");
    case kEvidence: return QStringLiteral("Evidence");
    case kAction: return QStringLiteral("Action");
    case kColumnCount: break;
  }
  return {};
}

QString layerOfRecommendation(const analyzer::TraceSummary& summary, const analyzer::Recommendation& recommendation) {
  // The analysis names the layers a finding is about; some rules name a layer as their target.
  std::vector<std::string_view> candidates(recommendation.layers.begin(), recommendation.layers.end());
  candidates.push_back(recommendation.target);
  for (std::string_view candidate : candidates) {
    for (const analyzer::GroupTime& layer : summary.layers) {
      if (!candidate.empty() && layer.name == candidate) return toQString(candidate);
    }
  }
  return {};
}

QString recommendationDetailHtml(const analyzer::Recommendation& r) {
  const QString severity = analyzer::severityName(r.severity);
  return QStringLiteral(
             "<p><span style='background:%1; color:white; font-weight:600; padding:1px 8px;'>&nbsp;%2&nbsp;</span>"
             "&nbsp;&nbsp;<b style='font-family:monospace'>%3</b></p>"
             "<table cellspacing='0' cellpadding='3'>"
             "<tr><td style='color:#52606d'>Target</td><td style='font-family:monospace'>%4</td></tr>"
             "<tr><td style='color:#52606d'>Estimated gain</td><td>%5 per step (%6 of the steady step)</td></tr>"
             "</table>"
             "<h4 style='margin-bottom:2px'>Evidence</h4><p style='margin-top:0'>%7</p>"
             "<h4 style='margin-bottom:2px'>Action</h4><p style='margin-top:0'>%8</p>")
      .arg(severityColor(r.severity).name(), severity, toQString(r.rule).toHtmlEscaped(),
           toQString(r.ranks.empty() ? r.target : r.target + " · " + analyzer::rankSetText(r.ranks)).toHtmlEscaped(),
           durationText(r.estimated_gain_ns),
           percentText(r.estimated_gain_pct / 100.0), toQString(r.evidence).toHtmlEscaped(),
           toQString(r.action).toHtmlEscaped());
}

}  // namespace ampscope::gui
