#include "analyzer/job/job_analysis.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "analyzer/core/rule_ids.h"

namespace ampscope::analyzer {
namespace {

constexpr std::int64_t kUs = 1000;
constexpr std::int64_t kMs = 1000 * kUs;

// A rank that runs `steps` steps of 10 ms from `origin` on its clock. In each, it computes for
// `compute` from the step's start, then reaches an all-reduce at compute + `late`; the all-reduce
// ends for every rank at 8 ms (the last rank arrived then moved the data for 0.5 ms).
RankResult rankOf(std::int32_t rank, std::string clock, std::int64_t origin, std::int64_t compute,
                  std::int64_t arrival, int steps = 3) {
  RankResult r;
  r.rank = rank;
  r.origin = rank >= 0 ? RankOrigin::kDistributedInfo : RankOrigin::kFileOrder;
  r.source = "rank" + std::to_string(rank) + ".json";
  r.clock = std::move(clock);
  for (int i = 0; i < steps; ++i) {
    const std::int64_t start = origin + i * 10 * kMs;
    const std::int64_t comm_start = start + arrival;
    const std::int64_t comm_end = start + 8 * kMs;
    StepSplit s{.number = 10 + i, .start_ns = start, .end_ns = start + 10 * kMs, .warmup = false};
    s.compute_ns = compute;
    s.communication_ns = comm_end - comm_start;
    s.exposed_communication_ns = s.communication_ns;
    s.idle_ns = 10 * kMs - compute - s.exposed_communication_ns;
    r.steps.push_back(s);
    r.calls.push_back({CollectiveKind::kAllReduce, comm_start, comm_end, ""});
  }
  r.collectives.push_back({.kind = CollectiveKind::kAllReduce, .element = MathPrecision::kFp32,
                           .name = "ncclKernel_AllReduce_RING_LL_Sum_float", .calls = static_cast<std::uint64_t>(steps),
                           .time_ns = 0, .calls_with_bytes = 0, .bytes = 0, .time_with_bytes_ns = 0,
                           .algbw_gbps = std::nullopt, .busbw_gbps = std::nullopt});
  return r;
}

const RankRow& rowOf(const JobAnalysis& job, std::int32_t rank) {
  return *std::find_if(job.ranks.begin(), job.ranks.end(), [&](const RankRow& r) { return r.rank == rank; });
}

// Rank 1 recorded on its own session clock, 5 s behind rank 0: its collectives end 5 s "earlier".
// Aligned on them, it is shifted by exactly +5 s, and the wait is measured on the shared clock:
// rank 1 arrives at 7.5 ms, rank 0 at 6 ms, so rank 0 waits 1.5 ms per step.
TEST(JobAnalysisTest, RanksOnAnotherClockAreAlignedOnTheirCollectives) {
  std::vector<RankResult> ranks = {rankOf(0, "session:a.sqlite", 0, 6 * kMs, 6 * kMs),
                                   rankOf(1, "session:b.sqlite", -5000 * kMs, 7500 * kUs, 7500 * kUs)};
  auto job = analyzeJob(ranks);
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_EQ(rowOf(*job, 0).alignment, ClockAlignment::kRecordedClock);
  EXPECT_EQ(rowOf(*job, 1).alignment, ClockAlignment::kCollectives);
  EXPECT_EQ(rowOf(*job, 1).clock_offset_ns, 5000 * kMs);
  ASSERT_TRUE(rowOf(*job, 0).wait_ns.has_value());
  EXPECT_EQ(*rowOf(*job, 0).wait_ns, 1500 * kUs);
  EXPECT_EQ(*rowOf(*job, 1).wait_ns, 0);
  EXPECT_EQ(rowOf(*job, 0).busy_ns, 10 * kMs - 1500 * kUs);
  ASSERT_EQ(job->steps.size(), 3u);
  EXPECT_EQ(job->steps.front().number, 10);
  EXPECT_EQ(job->steps.front().start_ns, 0);  // both ranks' step 10 starts at 0 on the job clock
}

// Two hosts that both count from the epoch but disagree by 3 ms (NTP off): the collectives show it.
// Within the tolerance, the recorded clock stands.
TEST(JobAnalysisTest, HostClocksThatDisagreeAreCorrectedAndAgreeingOnesKept) {
  {
    std::vector<RankResult> ranks = {rankOf(0, "unix-epoch", 0, 6 * kMs, 6 * kMs),
                                     rankOf(1, "unix-epoch", 3 * kMs, 6 * kMs, 6 * kMs)};
    auto job = analyzeJob(ranks);
    ASSERT_TRUE(job);
    EXPECT_EQ(rowOf(*job, 1).alignment, ClockAlignment::kCollectives);
    EXPECT_EQ(rowOf(*job, 1).clock_offset_ns, -3 * kMs);
  }
  {
    std::vector<RankResult> ranks = {rankOf(0, "unix-epoch", 0, 6 * kMs, 6 * kMs),
                                     rankOf(1, "unix-epoch", 40 * kUs, 6 * kMs, 6 * kMs)};
    auto job = analyzeJob(ranks);
    ASSERT_TRUE(job);
    EXPECT_EQ(rowOf(*job, 1).alignment, ClockAlignment::kRecordedClock);
    EXPECT_EQ(rowOf(*job, 1).clock_offset_ns, 0);
  }
}

// Four ranks; rank 2 computes 7.5 ms where the others compute 6 ms, so they wait 1.5 ms at each
// all-reduce. Rank 2 is the slowest and the one straggler, its reason compute, and fixing it gives
// back its busy time above the median's.
TEST(JobAnalysisTest, TheStragglerIsTheRankTheOthersWaitFor) {
  std::vector<RankResult> ranks;
  for (std::int32_t r = 0; r < 4; ++r) {
    const std::int64_t compute = r == 2 ? 7500 * kUs : 6 * kMs;
    ranks.push_back(rankOf(r, "unix-epoch", 0, compute, compute));
  }
  auto job = analyzeJob(ranks);
  ASSERT_TRUE(job) << job.error().message;
  ASSERT_TRUE(job->slowest_rank.has_value());
  EXPECT_EQ(*job->slowest_rank, 2);
  EXPECT_EQ(job->slowest_reason, SlowReason::kCompute);
  EXPECT_EQ(job->stragglers, std::vector<std::int32_t>{2});
  EXPECT_TRUE(rowOf(*job, 2).straggler);
  EXPECT_FALSE(rowOf(*job, 0).straggler);
  EXPECT_EQ(*rowOf(*job, 0).wait_ns, 1500 * kUs);
  EXPECT_EQ(*rowOf(*job, 2).wait_ns, 0);
  // The all-reduces' series: rank 2 arrives last at all three; three ranks wait 1.5 ms each.
  ASSERT_EQ(job->collective_waits.size(), 1u);
  const CollectiveWait& waits = job->collective_waits.front();
  EXPECT_EQ(waits.kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(waits.ranks, 4u);
  EXPECT_EQ(waits.calls, 3u);
  EXPECT_EQ(waits.last_rank, 2);
  EXPECT_EQ(waits.last_rank_calls, 3u);
  EXPECT_EQ(waits.wait_ns, 3 * 1500 * kUs);
  // Busy: 10 ms for rank 2, 8.5 ms for the others; imbalance 10 / 8.875.
  EXPECT_NEAR(job->imbalance, 10.0 / 8.875, 1e-9);
  ASSERT_EQ(job->recommendations.size(), 1u);
  const Recommendation& rec = job->recommendations.front();
  EXPECT_EQ(rec.rule, rule_ids::kFixStraggler);
  EXPECT_EQ(rec.target, "rank 2");
  EXPECT_EQ(rec.estimated_gain_ns, 1500 * kUs);
  EXPECT_NEAR(rec.estimated_gain_pct, 15.0, 1e-9);
}

TEST(JobAnalysisTest, SeveralStragglersAreAnImbalance) {
  std::vector<RankResult> ranks;
  for (std::int32_t r = 0; r < 5; ++r) {
    const std::int64_t compute = r >= 3 ? 7500 * kUs : 6 * kMs;
    ranks.push_back(rankOf(r, "unix-epoch", 0, compute, compute));
  }
  auto job = analyzeJob(ranks);
  ASSERT_TRUE(job);
  EXPECT_EQ(job->stragglers, (std::vector<std::int32_t>{3, 4}));
  ASSERT_EQ(job->recommendations.size(), 1u);
  EXPECT_EQ(job->recommendations.front().rule, rule_ids::kBalanceRanks);
}

TEST(JobAnalysisTest, EvenRanksHaveNoStraggler) {
  std::vector<RankResult> ranks = {rankOf(0, "unix-epoch", 0, 6 * kMs, 6 * kMs),
                                   rankOf(1, "unix-epoch", 0, 6 * kMs, 6 * kMs)};
  auto job = analyzeJob(ranks);
  ASSERT_TRUE(job);
  EXPECT_TRUE(job->stragglers.empty());
  EXPECT_TRUE(job->recommendations.empty());
  EXPECT_DOUBLE_EQ(job->imbalance, 1.0);
  ASSERT_TRUE(job->slowest_rank.has_value());  // named, but held by nothing in particular
  EXPECT_EQ(job->slowest_reason, SlowReason::kNone);
  EXPECT_NE(job->slowest_why.find("the ranks are even"), std::string::npos) << job->slowest_why;
}

TEST(JobAnalysisTest, TwoTracesOfOneRankAreRefusedNamingBoth) {
  std::vector<RankResult> ranks = {rankOf(3, "unix-epoch", 0, 6 * kMs, 6 * kMs),
                                   rankOf(3, "unix-epoch", 0, 6 * kMs, 6 * kMs)};
  ranks[1].source = "other.json";
  auto job = analyzeJob(ranks);
  ASSERT_FALSE(job);
  EXPECT_NE(job.error().message.find("rank3.json"), std::string::npos) << job.error().message;
  EXPECT_NE(job.error().message.find("other.json"), std::string::npos) << job.error().message;
}

TEST(JobAnalysisTest, TracesThatDoNotSayTheirRankAreNumberedInOrderAndSaidSo) {
  std::vector<RankResult> ranks = {rankOf(-1, "unix-epoch", 0, 6 * kMs, 6 * kMs),
                                   rankOf(-1, "unix-epoch", 0, 6 * kMs, 6 * kMs),
                                   rankOf(0, "unix-epoch", 0, 6 * kMs, 6 * kMs)};
  ranks[0].source = "first.json";
  ranks[1].source = "second.json";
  auto job = analyzeJob(ranks);
  ASSERT_TRUE(job);
  ASSERT_EQ(job->ranks.size(), 3u);
  EXPECT_EQ(job->ranks[0].source, "rank0.json");  // the one that says rank 0 keeps it
  EXPECT_EQ(job->ranks[1].source, "first.json");
  EXPECT_EQ(job->ranks[2].source, "second.json");
  EXPECT_EQ(job->world_size, 3);
  EXPECT_TRUE(std::any_of(job->notes.begin(), job->notes.end(),
                          [](const std::string& n) { return n.find("order the files were given") != std::string::npos; }));
}

// Send/recv kernels that end together on every rank are an all-to-all (the waits count); ones
// that do not pair ranks the trace does not name (left out, said so).
TEST(JobAnalysisTest, SendRecvCountsAsACollectiveOnlyWhereItEndsTogether) {
  for (const bool together : {true, false}) {
    std::vector<RankResult> ranks = {rankOf(0, "unix-epoch", 0, 6 * kMs, 6 * kMs, 1),
                                     rankOf(1, "unix-epoch", 0, 6 * kMs, 6 * kMs, 1)};
    ranks[0].calls.push_back({CollectiveKind::kSendRecv, 1 * kMs, 3 * kMs, ""});
    ranks[1].calls.push_back({CollectiveKind::kSendRecv, 2 * kMs, together ? 3 * kMs : 5 * kMs, ""});
    for (RankResult& r : ranks) {
      std::sort(r.calls.begin(), r.calls.end(), [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
    }
    auto job = analyzeJob(ranks);
    ASSERT_TRUE(job);
    EXPECT_EQ(*rowOf(*job, 0).wait_ns, together ? 1 * kMs : 0) << together;
    EXPECT_EQ(std::any_of(job->notes.begin(), job->notes.end(),
                          [](const std::string& n) { return n.find("send/recv") != std::string::npos; }),
              !together);
  }
}

// Steps are matched by number: a step only one rank ran is left out of the means.
TEST(JobAnalysisTest, StepsAreMatchedByNumber) {
  std::vector<RankResult> ranks = {rankOf(0, "unix-epoch", 0, 6 * kMs, 6 * kMs, 3),
                                   rankOf(1, "unix-epoch", 0, 6 * kMs, 6 * kMs, 2)};
  auto job = analyzeJob(ranks);
  ASSERT_TRUE(job);
  EXPECT_EQ(job->steps.size(), 2u);
  EXPECT_EQ(rowOf(*job, 0).steps, 3u);
  EXPECT_EQ(rowOf(*job, 0).steady_steps, 2u);
}

TEST(JobAnalysisTest, NoRankIsAnError) { EXPECT_FALSE(analyzeJob({})); }

}  // namespace
}  // namespace ampscope::analyzer

namespace ampscope::analyzer {
namespace {

// Tensor-parallel pairs {0, 1} and {2, 3}, each with its own process group: the pairs run
// different numbers of all-reduces (3 and 5), so matching by kind alone would fail; by group, each
// pair is matched within itself. Rank 1 reaches each of its group's all-reduces 1 ms after rank 0;
// ranks 2 and 3 arrive together.
TEST(JobAnalysisTest, CollectivesAreMatchedWithinTheirProcessGroup) {
  std::vector<RankResult> ranks;
  for (std::int32_t r = 0; r < 4; ++r) {
    RankResult rank = rankOf(r, "unix-epoch", 0, 6 * kMs, 6 * kMs, 1);
    rank.calls.clear();
    const int count = r < 2 ? 3 : 5;
    for (int i = 0; i < count; ++i) {
      const std::int64_t start = (1 + i) * kMs + (r == 1 ? 500 * kUs : 0);
      rank.calls.push_back({CollectiveKind::kAllReduce, start, (2 + i) * kMs, r < 2 ? "tp0" : "tp1"});
    }
    ranks.push_back(std::move(rank));
  }
  auto job = analyzeJob(ranks);
  ASSERT_TRUE(job) << job.error().message;
  for (std::int32_t r = 0; r < 4; ++r) ASSERT_TRUE(rowOf(*job, r).wait_ns.has_value()) << r;
  EXPECT_EQ(*rowOf(*job, 0).wait_ns, 3 * 500 * kUs);  // waits for rank 1 at each of its group's three
  EXPECT_EQ(*rowOf(*job, 1).wait_ns, 0);
  EXPECT_EQ(*rowOf(*job, 2).wait_ns, 0);
  EXPECT_EQ(*rowOf(*job, 3).wait_ns, 0);
  // Ranks 2 and 3 share no group with rank 0: they stay on the recorded (epoch) clock.
  EXPECT_EQ(rowOf(*job, 2).alignment, ClockAlignment::kRecordedClock);
}

}  // namespace
}  // namespace ampscope::analyzer
