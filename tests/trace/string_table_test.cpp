#include "trace/string_table.h"

#include <gtest/gtest.h>

namespace ampscope::trace {
namespace {

TEST(StringTableTest, EmptyStringIsIdZero) {
  StringTable strings;
  EXPECT_EQ(strings.intern(""), StringTable::kEmpty);
  EXPECT_EQ(strings.view(StringTable::kEmpty), "");
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

}  // namespace
}  // namespace ampscope::trace
