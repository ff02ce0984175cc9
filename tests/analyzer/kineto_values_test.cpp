#include "analyzer/import/kineto_values.h"

#include <gtest/gtest.h>

namespace ampscope::analyzer::import {
namespace {

TEST(KinetoValuesTest, MicrosecondsWithThreeDecimalsBecomeExactNanoseconds) {
  std::int64_t ns = 0;
  ASSERT_TRUE(microsecondsToNs("1420179707342.621", ns));
  EXPECT_EQ(ns, 1420179707342621);
  ASSERT_TRUE(microsecondsToNs("1623142623460111", ns));
  EXPECT_EQ(ns, 1623142623460111000);
  ASSERT_TRUE(microsecondsToNs("1.5", ns));
  EXPECT_EQ(ns, 1500);
  ASSERT_TRUE(microsecondsToNs("0.0005", ns));  // rounds half up below a nanosecond
  EXPECT_EQ(ns, 1);
  ASSERT_TRUE(microsecondsToNs("-2.25 ", ns));
  EXPECT_EQ(ns, -2250);
  ASSERT_TRUE(microsecondsToNs("7.1239\n", ns));  // a fourth decimal of 9 rounds up
  EXPECT_EQ(ns, 7124);
  ASSERT_TRUE(microsecondsToNs("1234567890123456", ns));  // 16 digits: the longest summed here
  EXPECT_EQ(ns, 1234567890123456000);
}

TEST(KinetoValuesTest, ExponentNotationGoesThroughDouble) {
  std::int64_t ns = 0;
  ASSERT_TRUE(microsecondsToNs("1.5e3", ns));
  EXPECT_EQ(ns, 1500000);
}

TEST(KinetoValuesTest, NonNumbersAreRejected) {
  std::int64_t ns = 0;
  EXPECT_FALSE(microsecondsToNs("\"12\"", ns));
  EXPECT_FALSE(microsecondsToNs("null", ns));
  EXPECT_FALSE(microsecondsToNs("", ns));
  EXPECT_FALSE(microsecondsToNs("12.", ns));
  EXPECT_FALSE(microsecondsToNs("1e300", ns));
}

// Found by the kineto fuzz harness: the digits of a long number were summed past 64 bits before
// the length was checked.
TEST(KinetoValuesTest, NumbersOfManyDigitsAreDecidedWithoutOverflow) {
  std::int64_t ns = 0;
  EXPECT_FALSE(microsecondsToNs("90000000000000000000000", ns));  // past 64-bit nanoseconds
  EXPECT_FALSE(microsecondsToNs("99999999999999999999999999999999.5", ns));
  ASSERT_TRUE(microsecondsToNs("00000000000000000000001.5", ns));  // many digits, a small value
  EXPECT_EQ(ns, 1500);
}

TEST(KinetoValuesTest, CategoriesOfEverySchemaYearMapToTheSameKinds) {
  EXPECT_EQ(categoryOf("Kernel"), EventCategory::kKernel);
  EXPECT_EQ(categoryOf("kernel"), EventCategory::kKernel);
  EXPECT_EQ(categoryOf("Runtime"), EventCategory::kRuntime);
  EXPECT_EQ(categoryOf("cuda_runtime"), EventCategory::kRuntime);
  EXPECT_EQ(categoryOf("cuda_driver"), EventCategory::kDriver);
  EXPECT_EQ(categoryOf("Operator"), EventCategory::kOperator);
  EXPECT_EQ(categoryOf("cpu_op"), EventCategory::kOperator);
  EXPECT_EQ(categoryOf("Memcpy"), EventCategory::kMemcpy);
  EXPECT_EQ(categoryOf("gpu_memset"), EventCategory::kMemset);
  EXPECT_EQ(categoryOf("user_annotation"), EventCategory::kAnnotation);
  EXPECT_EQ(categoryOf("Trace"), EventCategory::kIgnored);
  EXPECT_EQ(categoryOf("something_new"), EventCategory::kUnknown);
}

TEST(KinetoValuesTest, LabelsGiveTheirNumberOrADistinctNegativeId) {
  EXPECT_EQ(idFromLabel("25738"), 25738);
  EXPECT_EQ(idFromLabel("stream 7"), 7);
  const std::int64_t spans = idFromLabel("Spans");
  const std::int64_t profiler = idFromLabel("PyTorch Profiler");
  EXPECT_LT(spans, 0);
  EXPECT_LT(profiler, 0);
  EXPECT_NE(spans, profiler);
  EXPECT_EQ(idFromLabel("Spans"), spans);
  // Out of the way of real ids, whatever the text.
  for (const char* label : {"", "a", "python", "GPU 0 (memory)", "Spans", "thread x"}) {
    EXPECT_LE(idFromLabel(label), -(std::int64_t{1} << 20)) << label;
    EXPECT_GE(idFromLabel(label), -(std::int64_t{1} << 31)) << label;
  }
}

TEST(KinetoValuesTest, CompactJsonDropsWhitespaceOutsideStrings) {
  std::string scratch;
  EXPECT_EQ(compactJson("[[32, 3, 224, 224], [], [1]]", scratch), "[[32,3,224,224],[],[1]]");
  EXPECT_EQ(compactJson("[\"c10::Half\", \"a b\"]", scratch), "[\"c10::Half\",\"a b\"]");
  EXPECT_EQ(compactJson("[\"q\\\" x\"]", scratch), "[\"q\\\" x\"]");
  EXPECT_EQ(compactJson("[ ]", scratch), "[]");  // a shorter text after longer ones
  EXPECT_EQ(compactJson("[\n\t[1,\r\n 2]]", scratch), "[[1,2]]");  // every JSON whitespace byte
}

TEST(KinetoValuesTest, MemcpyNamesGiveDirectionAndMemoryKinds) {
  trace::MemoryOp op;
  describeMemoryOp("Memcpy HtoD (Pageable -> Device)", op);
  EXPECT_EQ(op.direction, trace::CopyDirection::kHostToDevice);
  EXPECT_EQ(op.src_kind, trace::MemoryKind::kPageable);
  EXPECT_EQ(op.dst_kind, trace::MemoryKind::kDevice);
  trace::MemoryOp pinned;
  describeMemoryOp("Memcpy DtoH (Device -> Pinned)", pinned);
  EXPECT_EQ(pinned.direction, trace::CopyDirection::kDeviceToHost);
  EXPECT_EQ(pinned.dst_kind, trace::MemoryKind::kPinned);
  trace::MemoryOp memset;
  describeMemoryOp("Memset (Device)", memset);
  EXPECT_EQ(memset.dst_kind, trace::MemoryKind::kDevice);
  EXPECT_EQ(memset.direction, trace::CopyDirection::kUnknown);
}

TEST(KinetoValuesTest, BaseTimeMustBeANonNegativeInteger) {
  trace::Trace out;
  TopLevelInfo info;
  EXPECT_TRUE(readTopLevel("t.json", {{"baseTimeNanoseconds", "1751410836000000000"}}, out, info).ok());
  EXPECT_EQ(info.base_time_ns, 1751410836000000000);
  TopLevelInfo bad;
  auto status = readTopLevel("t.json", {{"baseTimeNanoseconds", "\"soon\""}}, out, bad);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("baseTimeNanoseconds"), std::string::npos);
}

TEST(KinetoValuesTest, DevicePropertiesWithoutNameAreAnError) {
  trace::Trace out;
  TopLevelInfo info;
  auto status = readTopLevel("t.json", {{"deviceProperties", "[{\"id\": 0}]"}}, out, info);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("deviceProperties[0]"), std::string::npos);
}

}  // namespace
}  // namespace ampscope::analyzer::import
