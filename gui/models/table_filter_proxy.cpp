#include "gui/models/table_filter_proxy.h"

#include <utility>

namespace ampscope::gui {

TableFilterProxy::TableFilterProxy(int sort_role, QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(sort_role);
  setSortCaseSensitivity(Qt::CaseInsensitive);
}

void TableFilterProxy::setTextColumns(QList<int> columns) {
  text_columns_ = std::move(columns);
  invalidateRowsFilter();
}

void TableFilterProxy::setTextFilter(const QString& text) {
  if (text == text_) return;
  text_ = text;
  words_ = text.simplified().split(QChar(' '), Qt::SkipEmptyParts);
  invalidateRowsFilter();
}

void TableFilterProxy::setRoleFilter(int role, const QVariant& value, int column) {
  role_ = role;
  role_column_ = column;
  role_value_ = value;
  invalidateRowsFilter();
}

bool TableFilterProxy::filterAcceptsRow(int source_row, const QModelIndex& source_parent) const {
  if (role_value_.isValid()) {
    const QModelIndex cell = sourceModel()->index(source_row, role_column_, source_parent);
    if (cell.data(role_) != role_value_) return false;
  }
  return acceptsText(source_row, source_parent);
}

bool TableFilterProxy::acceptsText(int source_row, const QModelIndex& source_parent) const {
  if (words_.isEmpty()) return true;
  QStringList cells;
  const auto add = [&](int column) {
    cells << sourceModel()->index(source_row, column, source_parent).data(Qt::DisplayRole).toString();
  };
  if (text_columns_.isEmpty()) {
    for (int column = 0; column < sourceModel()->columnCount(source_parent); ++column) add(column);
  } else {
    for (int column : text_columns_) add(column);
  }
  for (const QString& word : words_) {
    bool found = false;
    for (const QString& cell : cells) {
      if (cell.contains(word, Qt::CaseInsensitive)) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

}  // namespace ampscope::gui
