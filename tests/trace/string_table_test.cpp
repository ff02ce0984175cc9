#include "trace/string_table.h"

#include <memory>
#include <string>

#include <gtest/gtest.h>

namespace ampscope::trace {
namespace {

TEST(StringTableTest, ANewTableHoldsTheEmptyStringBeforeAnythingIsInterned) {
  const StringTable strings;
  EXPECT_EQ(strings.size(), 1u);
  EXPECT_EQ(strings.view(StringTable::kEmpty), "");
  StringId id = 7;
  ASSERT_TRUE(strings.find("", id));
  EXPECT_EQ(id, StringTable::kEmpty);
  EXPECT_FALSE(strings.find("kernel", id));
  EXPECT_EQ(StringTable(strings).size(), 1u);  // a copy of it too
}

TEST(StringTableTest, EmptyStringIsIdZero) {
  StringTable strings;
  EXPECT_EQ(strings.intern(""), StringTable::kEmpty);
  EXPECT_EQ(strings.view(StringTable::kEmpty), "");
  // Not a null view: SQLite would store a null one as NULL, not as ''.
  EXPECT_NE(strings.view(StringTable::kEmpty).data(), nullptr);
  EXPECT_NE(StringTable(strings).view(StringTable::kEmpty).data(), nullptr);
}

TEST(StringTableTest, InternsEachDistinctStringOnce) {
  StringTable strings;
  const StringId a = strings.intern("volta_sgemm_128x64_nn");
  const StringId b = strings.intern("aten::addmm");
  EXPECT_NE(a, b);
  EXPECT_EQ(strings.intern(std::string("volta_sgemm_") + "128x64_nn"), a);
  EXPECT_EQ(strings.view(b), "aten::addmm");
  EXPECT_EQ(strings.size(), 3u);
}

TEST(StringTableTest, CopyKeepsIdsAndLookupsWorking) {
  StringTable original;
  const StringId id = original.intern("kernel");
  StringTable copy = original;
  original.intern("only in the original");
  StringId found = 0;
  ASSERT_TRUE(copy.find("kernel", found));
  EXPECT_EQ(found, id);
  EXPECT_FALSE(copy.find("only in the original", found));
  EXPECT_EQ(copy.intern("new"), 2u);
}

TEST(StringTableTest, ViewsStayValidWhileTheTableGrows) {
  StringTable strings;
  const std::string_view first = strings.view(strings.intern("first"));
  for (int i = 0; i < 10000; ++i) strings.intern("name " + std::to_string(i));
  EXPECT_EQ(first, "first");
}

TEST(StringTableTest, AMillionDistinctStringsKeepTheirIdsAndAreFoundAgain) {
  // emit_nvtx writes an op id into each range's text: millions of distinct strings, so the index
  // grows many times over.
  StringTable strings;
  constexpr int kCount = 1'000'000;
  for (int i = 0; i < kCount; ++i) {
    ASSERT_EQ(strings.intern("aten::view, op_id = " + std::to_string(i)), static_cast<StringId>(i + 1));
  }
  EXPECT_EQ(strings.size(), static_cast<std::size_t>(kCount + 1));
  for (int i = 0; i < kCount; i += 9973) {
    StringId found = 0;
    ASSERT_TRUE(strings.find("aten::view, op_id = " + std::to_string(i), found));
    EXPECT_EQ(found, static_cast<StringId>(i + 1));
    EXPECT_EQ(strings.view(found), "aten::view, op_id = " + std::to_string(i));
  }
  StringId absent = 0;
  EXPECT_FALSE(strings.find("aten::view, op_id = " + std::to_string(kCount), absent));
  // Far below the ~160 bytes a string of this length costs as a std::string in an unordered_map.
  EXPECT_LT(strings.memoryBytes(), static_cast<std::size_t>(kCount) * 80);
}

TEST(StringTableTest, StringsLongerThanABlockAndEmptyOnesAreKept) {
  StringTable strings;
  const std::string long_text(10'000'000, 'x');
  const StringId id = strings.intern(long_text);
  const StringId after = strings.intern("short");
  EXPECT_EQ(strings.view(id), long_text);
  EXPECT_EQ(strings.view(after), "short");
  EXPECT_EQ(strings.intern(""), StringTable::kEmpty);
  EXPECT_EQ(strings.intern(long_text), id);
}

TEST(StringTableTest, AMovedTableKeepsItsViewsAndTheMovedFromOneStartsAgain) {
  StringTable original;
  const StringId id = original.intern("volta_sgemm_128x64_nn");
  const std::string_view view = original.view(id);
  StringTable moved = std::move(original);
  EXPECT_EQ(view, "volta_sgemm_128x64_nn");  // the characters did not move
  EXPECT_EQ(moved.view(id).data(), view.data());
  EXPECT_EQ(moved.intern("volta_sgemm_128x64_nn"), id);
  // NOLINTBEGIN(bugprone-use-after-move): a moved-from table is an empty one
  EXPECT_EQ(original.size(), 1u);
  EXPECT_EQ(original.view(StringTable::kEmpty), "");
  EXPECT_EQ(original.intern("again"), 1u);
  // NOLINTEND(bugprone-use-after-move)
  StringTable assigned;
  assigned.intern("to be replaced");
  assigned = std::move(moved);
  EXPECT_EQ(assigned.view(id), "volta_sgemm_128x64_nn");
  StringId found = 0;
  EXPECT_FALSE(assigned.find("to be replaced", found));
}

TEST(StringTableTest, ACopyOfAGrownTableOwnsItsCharacters) {
  auto original = std::make_unique<StringTable>();
  for (int i = 0; i < 5000; ++i) original->intern("kernel " + std::to_string(i));
  StringTable copy;
  copy = *original;
  original.reset();  // the copy's views must not point into the original's blocks
  for (int i = 0; i < 5000; i += 37) {
    StringId found = 0;
    ASSERT_TRUE(copy.find("kernel " + std::to_string(i), found));
    EXPECT_EQ(copy.view(found), "kernel " + std::to_string(i));
  }
  EXPECT_EQ(copy.intern("kernel 4999"), 5000u);
  EXPECT_EQ(copy.intern("kernel 5000"), 5001u);
}

}  // namespace
}  // namespace ampscope::trace
