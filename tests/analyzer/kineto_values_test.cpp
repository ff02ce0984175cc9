#include "analyzer/import/kineto/kineto_values.h"

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
  EXPECT_EQ(categoryOf("cuda_profiler_range"), EventCategory::kProfilerRange);
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

TEST(KinetoValuesTest, BaseTimeIsANonNegativeIntegerOrCountedAndLeftOut) {
  trace::Trace out;
  TopLevelInfo info;
  EXPECT_TRUE(readTopLevel("t.json", {{"baseTimeNanoseconds", "1751410836000000000"}}, out, info).ok());
  EXPECT_EQ(info.base_time_ns, 1751410836000000000);
  TopLevelInfo quoted;
  EXPECT_TRUE(readTopLevel("t.json", {{"baseTimeNanoseconds", "\"1751410836000000000\""}}, out, quoted).ok());
  EXPECT_EQ(quoted.base_time_ns, 1751410836000000000);
  TopLevelInfo bad;
  ASSERT_TRUE(readTopLevel("t.json", {{"baseTimeNanoseconds", "\"soon\""}}, out, bad).ok());
  EXPECT_FALSE(bad.has_base_time);
  const std::string reason = "top-level \"baseTimeNanoseconds\" that is not a non-negative integer (left out)";
  EXPECT_EQ(out.import_stats.not_understood.at(reason), 1u);
  EXPECT_EQ(out.import_stats.first_place.at(reason), "top-level member \"baseTimeNanoseconds\"");
}

TEST(KinetoValuesTest, BrokenJsonInATopLevelMemberIsAnErrorNamingIt) {
  trace::Trace out;
  TopLevelInfo info;
  auto status = readTopLevel("t.json", {{"deviceProperties", "[{\"id\": 0,]"}}, out, info);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("t.json: \"deviceProperties\" is not valid JSON"), std::string::npos)
      << status.error().message;
}

TEST(KinetoValuesTest, DevicePropertiesWithoutNameOrIdAreKeptAndCounted) {
  trace::Trace out;
  TopLevelInfo info;
  ASSERT_TRUE(readTopLevel("t.json", {{"deviceProperties", R"([{"id": 0}, {"name": "NVIDIA A10G", "numSms": "80"}])"}}, out,
                           info)
                  .ok());
  ASSERT_EQ(out.devices.size(), 2u);
  EXPECT_EQ(out.str(out.devices[0].name), "");
  EXPECT_EQ(out.devices[1].id, 1u);  // numbered by its place
  EXPECT_EQ(out.str(out.devices[1].name), "NVIDIA A10G");
  EXPECT_EQ(out.devices[1].sm_count, 80);  // a number written as a string
  EXPECT_EQ(out.import_stats.not_understood.at("top-level \"deviceProperties\" elements without a \"name\" (left out)"), 1u);
}

TEST(KinetoValuesTest, ARankWithoutAWorldSizeIsKeptWithTheWorldSizeUnknown) {
  // As many PyTorch versions write it (HTA's test traces): {"rank": 0}.
  trace::Trace out;
  TopLevelInfo info;
  ASSERT_TRUE(readTopLevel("t.json", {{"distributedInfo", R"({"rank": 1})"}}, out, info).ok());
  EXPECT_TRUE(out.distributed.rankKnown());
  EXPECT_FALSE(out.distributed.worldSizeKnown());
  EXPECT_EQ(out.distributed.rank, 1);
  EXPECT_TRUE(out.import_stats.not_understood.empty());
  trace::Trace strings;
  ASSERT_TRUE(readTopLevel("t.json", {{"distributedInfo", R"({"backend": "nccl", "rank": "3", "world_size": "8"})"}},
                           strings, info)
                  .ok());
  EXPECT_EQ(strings.distributed.rank, 3);
  EXPECT_EQ(strings.distributed.world_size, 8);
}

TEST(KinetoValuesTest, DistributedInfoWithoutARankOrOutsideItsWorldIsCountedAndLeftOut) {
  for (const char* info_json : {R"({"backend": "nccl"})", R"({"rank": 8, "world_size": 8})", R"([1, 2])"}) {
    SCOPED_TRACE(info_json);
    trace::Trace out;
    TopLevelInfo info;
    ASSERT_TRUE(readTopLevel("t.json", {{"distributedInfo", info_json}}, out, info).ok());
    EXPECT_FALSE(out.distributed.rankKnown());
    ASSERT_EQ(out.import_stats.not_understood.size(), 1u);
    EXPECT_EQ(out.import_stats.first_place.begin()->second, "top-level member \"distributedInfo\"");
  }
}

}  // namespace
}  // namespace ampscope::analyzer::import
