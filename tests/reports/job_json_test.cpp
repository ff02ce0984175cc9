#include "reports/job_json.h"

#include <gtest/gtest.h>

#include <limits>

#include "reports/report_json.h"

namespace ampscope::reports {
namespace {

// The map step's output read back is the same rank, to the nanosecond and the byte: merge depends
// on it. Extremes included (the latest time accepted, 2^62 ns; unknown pid; counts past 2^53).
TEST(JobJsonTest, ARankResultSurvivesJsonExactly) {
  analyzer::RankResult rank;
  rank.rank = 5;
  rank.origin = analyzer::RankOrigin::kProcess;
  rank.recorded_world_size = 16;
  rank.backend = "nccl";
  rank.source = "run.sqlite (process 4242)";
  rank.file = "run.sqlite";
  rank.pid = trace::kUnknownPid;
  rank.device = "NVIDIA H100 80GB HBM3 (device 5)";
  rank.clock = std::string(analyzer::kUnixEpochClock);
  rank.steps_source = "step ranges (ProfilerStep#N)";
  rank.steps.push_back({.number = 7, .start_ns = 1'694'128'201'426'674'123, .end_ns = 1'694'128'201'441'129'999,
                        .warmup = true, .whole_window = false, .compute_ns = 3, .communication_ns = 4,
                        .exposed_communication_ns = 2, .data_ns = 1, .idle_ns = 9});
  rank.collectives.push_back({.kind = analyzer::CollectiveKind::kReduceScatter, .element = analyzer::MathPrecision::kBf16,
                              .name = "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL", .calls = 3, .time_ns = 99,
                              .calls_with_bytes = 2, .bytes = (std::uint64_t{1} << 60) + 1, .time_with_bytes_ns = 50,
                              .algbw_gbps = std::nullopt, .busbw_gbps = std::nullopt});
  rank.calls.push_back({analyzer::CollectiveKind::kReduceScatter, (std::int64_t{1} << 62) - 10, std::int64_t{1} << 62,
                        "3"});
  const std::string text = formatJsonDocument(nlohmann::ordered_json{{"rank_result", rankResultToJson(rank)}});
  auto back = rankResultsFromDocument(text, "r.json");
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ(back->front(), rank);
}

TEST(JobJsonTest, AbsurdTimesAreRefusedWithTheirPlace) {
  const std::string text = R"({"rank_result": {"rank": 0, "origin": "distributed_info", "recorded_world_size": 2,
      "backend": "", "source": "x", "file": "x", "pid": 1, "device": "d", "clock": "unix-epoch", "steps_source": "",
      "steps": [], "collectives": [], "calls": [["all_reduce", 9223372036854775000, 9223372036854775807]]}})";
  auto back = rankResultsFromDocument(text, "r.json");
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().message, "r.json: rank_result.calls[0].start_ns is 9223372036854775000, beyond 2^62 ns");
}

TEST(JobJsonTest, AnIntegerBeyondItsTypeIsRefused) {
  const std::string text = R"({"rank_result": {"rank": 0, "origin": "distributed_info", "recorded_world_size": 2,
      "backend": "", "source": "x", "file": "x", "pid": 9223372036854775808, "device": "d", "clock": "unix-epoch",
      "steps_source": "", "steps": [], "collectives": [], "calls": []}})";
  auto back = rankResultsFromDocument(text, "r.json");
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().message, "r.json: rank_result.pid is out of range");
}

TEST(JobJsonTest, AnUnknownKindIsNamedWithItsPlace) {
  const std::string text = R"({"rank_result": {"rank": 0, "origin": "distributed_info", "recorded_world_size": 2,
      "backend": "", "source": "x", "file": "x", "pid": 1, "device": "d", "clock": "unix-epoch", "steps_source": "",
      "steps": [], "collectives": [], "calls": [["all_reduce", 1, 2], ["teleport", 3, 4]]}})";
  auto back = rankResultsFromDocument(text, "r.json");
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().message, "r.json: rank_result.calls[1].kind is \"teleport\", not a value ampscope writes");
}

}  // namespace
}  // namespace ampscope::reports
