// TableFilterProxy on a small hand-made table: which columns the text filter reads, how words
// combine, the role filter, and sorting by the sort role rather than the text.

#include <QAbstractItemModelTester>
#include <QStandardItemModel>
#include <QStringList>

#include <gtest/gtest.h>

#include "gui/models/table_filter_proxy.h"

namespace ampscope::gui {
namespace {

constexpr int kSortRole = Qt::UserRole;
constexpr int kKindRole = Qt::UserRole + 1;

// name | pass | time (text "9 ms", sort value 9), kind in kKindRole on column 0.
void addRow(QStandardItemModel& model, const QString& name, const QString& pass, int ms, int kind) {
  auto* name_item = new QStandardItem(name);
  name_item->setData(name, kSortRole);
  name_item->setData(kind, kKindRole);
  auto* pass_item = new QStandardItem(pass);
  pass_item->setData(pass, kSortRole);
  auto* time_item = new QStandardItem(QStringLiteral("%1 ms").arg(ms));
  time_item->setData(ms, kSortRole);
  model.appendRow({name_item, pass_item, time_item});
}

class TableFilterProxyTest : public ::testing::Test {
 protected:
  TableFilterProxyTest() {
    addRow(source_, "Encoder.fc1", "forward", 9, 0);
    addRow(source_, "Encoder.fc1", "backward", 10, 1);
    addRow(source_, "decoder", "forward", 100, 1);
    proxy_.setSourceModel(&source_);
  }

  QStringList column(int c) const {
    QStringList out;
    for (int row = 0; row < proxy_.rowCount(); ++row) out << proxy_.index(row, c).data().toString();
    return out;
  }

  QStandardItemModel source_;
  TableFilterProxy proxy_{kSortRole};
  QAbstractItemModelTester tester_{&proxy_, QAbstractItemModelTester::FailureReportingMode::Fatal};
};

TEST_F(TableFilterProxyTest, TextFilterIgnoresCaseAndReadsOnlyTheChosenColumns) {
  proxy_.setTextFilter("ENCODER");
  EXPECT_EQ(proxy_.rowCount(), 2);
  proxy_.setTextColumns({1});  // the pass column alone
  EXPECT_EQ(proxy_.rowCount(), 0);
  proxy_.setTextFilter("Forward");
  EXPECT_EQ(column(0), (QStringList{"Encoder.fc1", "decoder"}));
  proxy_.setTextColumns({});  // every column again
  proxy_.setTextFilter("100 ms");
  EXPECT_EQ(column(0), QStringList{"decoder"});
}

TEST_F(TableFilterProxyTest, EveryWordMustMatchSomeColumn) {
  proxy_.setTextFilter("  fc1   backward ");
  EXPECT_EQ(column(1), QStringList{"backward"});
  proxy_.setTextFilter("decoder backward");
  EXPECT_EQ(proxy_.rowCount(), 0);
  proxy_.setTextFilter("   ");
  EXPECT_EQ(proxy_.rowCount(), 3);
}

TEST_F(TableFilterProxyTest, RoleFilterMatchesExactlyAndCombinesWithText) {
  proxy_.setRoleFilter(kKindRole, 1);
  EXPECT_EQ(column(0), (QStringList{"Encoder.fc1", "decoder"}));
  proxy_.setTextFilter("encoder");
  EXPECT_EQ(column(1), QStringList{"backward"});
  EXPECT_EQ(proxy_.roleFilter().toInt(), 1);
  proxy_.clearRoleFilter();
  EXPECT_FALSE(proxy_.roleFilter().isValid());
  EXPECT_EQ(proxy_.rowCount(), 2);
}

TEST_F(TableFilterProxyTest, SortsByTheSortRoleNotTheText) {
  proxy_.sort(2, Qt::AscendingOrder);
  EXPECT_EQ(column(2), (QStringList{"9 ms", "10 ms", "100 ms"}));  // as text: "10 ms" < "100 ms" < "9 ms"
  proxy_.sort(2, Qt::DescendingOrder);
  EXPECT_EQ(column(2), (QStringList{"100 ms", "10 ms", "9 ms"}));
}

}  // namespace
}  // namespace ampscope::gui
