#pragma once
// Sorting and filtering for the tables of the tabs: a text filter, case-insensitive, over chosen
// columns (every word must appear in one of them, so "fc1 backward" narrows to that pass), and an
// optional exact match on one role (the Kernels tab's verdict), applied together. Sorting uses
// the source model's sort role, which gives raw values, so times sort as numbers, not as text.

#include <QList>
#include <QSortFilterProxyModel>
#include <QString>
#include <QStringList>
#include <QVariant>

namespace ampscope::gui {

class TableFilterProxy : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  // sort_role: the source model's role with raw values (Qt::UserRole in this folder's models).
  explicit TableFilterProxy(int sort_role = Qt::UserRole, QObject* parent = nullptr);

  // The source columns the text filter reads (their Qt::DisplayRole); empty: every column.
  void setTextColumns(QList<int> columns);
  // Rows whose text columns hold every whitespace-separated word of text, ignoring case; empty
  // text keeps every row.
  void setTextFilter(const QString& text);
  QString textFilter() const { return text_; }

  // Keeps the rows whose source data(row, column, role) equals value; an invalid value (or
  // clearRoleFilter) keeps every row.
  void setRoleFilter(int role, const QVariant& value, int column = 0);
  void clearRoleFilter() { setRoleFilter(role_, QVariant(), role_column_); }
  QVariant roleFilter() const { return role_value_; }

 protected:
  bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;

 private:
  bool acceptsText(int source_row, const QModelIndex& source_parent) const;

  QList<int> text_columns_;
  QString text_;
  QStringList words_;
  int role_ = Qt::UserRole;
  int role_column_ = 0;
  QVariant role_value_;
};

}  // namespace ampscope::gui
