// Tests of analyzer/normalise/range_values_reader.h: a range's recorded argument values and dtypes
// (Kineto's "Concrete Inputs" and "Input type" form) read into the values the analysis uses.

#include "analyzer/normalise/range_values_reader.h"

#include <gtest/gtest.h>

namespace ampscope::analyzer::import {
namespace {

using Ints = std::vector<std::int64_t>;

TEST(RangeValuesReaderTest, Conv2dArgumentsReadAsIntegerListsAndIntegers) {
  const trace::RangeArguments a = readRangeArguments(R"(["","","","[2, 2]","[3, 3]","[1, 1]","1"])");
  ASSERT_EQ(a.values.size(), 7u);
  // Tensors (input, weight, an absent bias) are empty: no integers, no flag.
  for (int i : {0, 1, 2}) {
    EXPECT_EQ(a.at(i).text, "");
    EXPECT_FALSE(a.at(i).integers) << i;
    EXPECT_FALSE(a.at(i).flag) << i;
    EXPECT_FALSE(a.at(i).list) << i;
  }
  EXPECT_EQ(a.at(3).integers, Ints({2, 2}));
  EXPECT_TRUE(a.at(3).list);
  EXPECT_FALSE(a.at(3).integer());  // a list of one value is no integer
  EXPECT_EQ(a.at(4).integers, Ints({3, 3}));
  EXPECT_EQ(a.at(6).integer(), 1);
  EXPECT_EQ(a.at(6).flag, true);  // "1" is also a true flag
  // Past the end: an empty value, as for an argument the call did not record.
  EXPECT_FALSE(a.at(7).integers);
  EXPECT_FALSE(a.at(-1).integers);
}

TEST(RangeValuesReaderTest, FlagsAndFlagListsAreToldFromIntegerLists) {
  const trace::RangeArguments a =
      readRangeArguments(R"(["True","false","[True, False, True]","[1, 0]","[]","[2]","-100"])");
  ASSERT_EQ(a.values.size(), 7u);
  EXPECT_EQ(a.at(0).flag, true);
  EXPECT_EQ(a.at(1).flag, false);
  EXPECT_FALSE(a.at(0).integers);
  ASSERT_TRUE(a.at(2).flags);
  EXPECT_EQ(*a.at(2).flags, (std::vector<bool>{true, false, true}));
  // An integer list of ones and zeros (a dilation, a padding) is no list of flags.
  EXPECT_TRUE(a.at(3).list);
  EXPECT_FALSE(a.at(3).flags);
  EXPECT_EQ(a.at(3).integers, Ints({1, 0}));
  EXPECT_EQ(a.at(4).integers, Ints{});  // an empty list: integers, none of them
  EXPECT_TRUE(a.at(4).flags && a.at(4).flags->empty());
  EXPECT_EQ(a.at(5).integers, Ints({2}));
  EXPECT_FALSE(a.at(5).integer());
  EXPECT_EQ(a.at(6).integer(), -100);
}

TEST(RangeValuesReaderTest, WordsKeepTheirTextAndNumbersThatAreNotIntegersReadAsNone) {
  const trace::RangeArguments a = readRangeArguments(R"(["same"," 'valid' ","0.0","mean","[2, 2"])");
  ASSERT_EQ(a.values.size(), 5u);
  EXPECT_EQ(a.at(0).word(), "same");
  EXPECT_EQ(a.at(1).word(), "'valid'");
  EXPECT_EQ(a.at(1).text, " 'valid' ");  // the text stays as recorded
  EXPECT_FALSE(a.at(2).integers);         // 0.0 is no integer
  EXPECT_FALSE(a.at(2).flag);
  EXPECT_FALSE(a.at(3).integers);
  EXPECT_FALSE(a.at(4).integers);  // an unclosed list
}

TEST(RangeValuesReaderTest, TextThatIsNoArrayReadsAsNoArguments) {
  EXPECT_TRUE(readRangeArguments("").values.empty());
  EXPECT_TRUE(readRangeArguments("[]").values.empty());
  EXPECT_TRUE(readRangeArguments("{\"a\": 1}").values.empty());
  EXPECT_TRUE(readRangeArguments("2").values.empty());
}

TEST(RangeValuesReaderTest, TextArrayKeepsNonStringElementsAsTheirText) {
  EXPECT_EQ(parseTextArray(R"(["a", 2, [1, 2], "b\"c"])"), (std::vector<std::string>{"a", "2", "[1, 2]", "b\"c"}));
  EXPECT_TRUE(parseTextArray("not an array").empty());
}

TEST(RangeValuesReaderTest, DtypesReadAsNamesWithTheirElementSizes) {
  const trace::RangeDtypes d = readRangeDtypes(R"(["float","c10::Half","Scalar","c10::BFloat16",""])");
  EXPECT_EQ(d.names, (std::vector<std::string>{"float", "c10::Half", "Scalar", "c10::BFloat16", ""}));
  EXPECT_EQ(d.element_bytes, (std::vector<std::uint8_t>{4, 2, 0, 2, 0}));
  EXPECT_EQ(d.elementBytes(1), 2);
  EXPECT_EQ(d.elementBytes(2), 0);  // a scalar argument: no tensor element
  EXPECT_EQ(d.elementBytes(9), 0);  // not recorded
  EXPECT_TRUE(readRangeDtypes("").names.empty());
}

TEST(RangeValuesReaderTest, DtypeNamesOfEveryRecorder) {
  EXPECT_EQ(dtypeBytes("float"), 4);
  EXPECT_EQ(dtypeBytes("c10::Half"), 2);
  EXPECT_EQ(dtypeBytes("c10::BFloat16"), 2);
  EXPECT_EQ(dtypeBytes("float16"), 2);
  EXPECT_EQ(dtypeBytes("bfloat16"), 2);
  EXPECT_EQ(dtypeBytes("torch.float32"), 4);
  EXPECT_EQ(dtypeBytes("double"), 8);
  EXPECT_EQ(dtypeBytes("long int"), 8);
  EXPECT_EQ(dtypeBytes("int"), 4);
  EXPECT_EQ(dtypeBytes("bool"), 1);
  EXPECT_EQ(dtypeBytes("c10::Float8_e4m3fn"), 1);
  EXPECT_EQ(dtypeBytes("c10::complex<float>"), 8);
  EXPECT_EQ(dtypeBytes("Scalar"), 0);
  EXPECT_EQ(dtypeBytes("GenericList"), 0);
  EXPECT_EQ(dtypeBytes(""), 0);
}

}  // namespace
}  // namespace ampscope::analyzer::import
