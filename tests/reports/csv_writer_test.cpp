#include "reports/csv_writer.h"

#include <gtest/gtest.h>

#include "tests/reports/csv_reader.h"

namespace ampscope::reports {
namespace {

TEST(CsvWriterTest, QuotesOnlyFieldsThatNeedIt) {
  EXPECT_EQ(CsvWriter::quote("plain_kernel"), "plain_kernel");
  EXPECT_EQ(CsvWriter::quote("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvWriter::quote("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvWriter::quote("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(CsvWriter::quote("cr\rhere"), "\"cr\rhere\"");
  EXPECT_EQ(CsvWriter::quote(""), "");
}

TEST(CsvWriterTest, AwkwardKernelNamesSurviveARoundTripThroughAnIndependentReader) {
  const std::vector<std::string> names = {
      "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align1>(Params, int)",
      "name with \"quotes\", and commas",
      "multi\nline\r\nname",
      "",
      "trailing comma,",
  };
  CsvWriter csv({"name", "calls", "share"});
  for (std::size_t i = 0; i < names.size(); ++i) {
    ASSERT_TRUE(csv.add(names[i]).add(static_cast<std::uint64_t>(i)).add(0.5).endRow());
  }
  const auto table = test::parseCsv(csv.text());
  ASSERT_TRUE(table.has_value()) << csv.text();
  ASSERT_EQ(table->size(), names.size() + 1);
  EXPECT_EQ((*table)[0], (std::vector<std::string>{"name", "calls", "share"}));
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ((*table)[i + 1], (std::vector<std::string>{names[i], std::to_string(i), "0.5000"}));
  }
}

TEST(CsvWriterTest, EndsLinesWithLfAndCountsDataRowsOnly) {
  CsvWriter csv({"a", "b"});
  ASSERT_TRUE(csv.add("1").add("2").endRow());
  EXPECT_EQ(csv.text(), "a,b\n1,2\n");
  EXPECT_EQ(csv.rows(), 1U);
}

TEST(CsvWriterTest, RefusesARowWithTheWrongNumberOfFields) {
  CsvWriter csv({"a", "b"});
  EXPECT_FALSE(csv.add("only one").endRow());
  EXPECT_FALSE(csv.add("1").add("2").add("3").endRow());
  EXPECT_EQ(csv.text(), "a,b\n");
  EXPECT_TRUE(csv.add("1").add("2").endRow());  // the dropped rows left nothing behind
  EXPECT_EQ(csv.text(), "a,b\n1,2\n");
}

TEST(CsvReaderTest, RejectsMalformedQuoting) {
  EXPECT_FALSE(test::parseCsv("a,\"unclosed\n").has_value());
  EXPECT_FALSE(test::parseCsv("a,b\"c\n").has_value());
  EXPECT_FALSE(test::parseCsv("\"x\"y,z\n").has_value());
}

}  // namespace
}  // namespace ampscope::reports
