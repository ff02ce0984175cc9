// A job's findings from its ranks' own: merged by rule and target, naming the ranks, with the
// job's gain (the slowest step's reduction), on hand-made rank results.

#include "analyzer/job/job_findings.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "analyzer/core/rule_ids.h"

namespace ampscope::analyzer {
namespace {

constexpr std::int64_t kMs = 1'000'000;

Recommendation finding(std::string_view rule, std::string target, std::int64_t gain_ns, std::int64_t step_ns,
                       std::string action = "do it") {
  Recommendation r;
  r.rule = std::string(rule);
  r.target = std::move(target);
  r.evidence = "numbers of this rank";
  r.action = std::move(action);
  r.estimated_gain_ns = gain_ns;
  r.estimated_gain_pct = 100.0 * static_cast<double>(gain_ns) / static_cast<double>(step_ns);
  r.severity = severityOfGain(r.estimated_gain_pct);
  return r;
}

// A rank whose trace says its rank, with three steps of step_ns each of compute (no collectives:
// nothing to wait at, so its busy time is its step) and the findings given.
RankResult rankWith(std::int32_t rank, std::int64_t step_ns, std::vector<Recommendation> findings) {
  RankResult r;
  r.rank = rank;
  r.origin = RankOrigin::kDistributedInfo;
  r.recorded_world_size = 0;
  r.source = "rank" + std::to_string(rank) + ".json";
  r.clock = std::string(kUnixEpochClock);
  for (int i = 0; i < 3; ++i) {
    StepSplit s{.number = i, .start_ns = i * step_ns, .end_ns = (i + 1) * step_ns, .warmup = false};
    s.compute_ns = step_ns;
    r.steps.push_back(s);
  }
  r.findings.recommendations = std::move(findings);
  return r;
}

const Recommendation* ruleOf(const JobAnalysis& job, std::string_view rule) {
  const auto at = std::find_if(job.recommendations.begin(), job.recommendations.end(),
                               [&](const Recommendation& r) { return r.rule == rule; });
  return at == job.recommendations.end() ? nullptr : &*at;
}

TEST(JobFindingsTest, RanksAreNamedInAscendingRunsJoinedByADash) {
  EXPECT_EQ(rankSetText({0, 1, 2, 3, 4, 5, 6, 7}), "ranks 0\u20137");
  EXPECT_EQ(rankSetText({3, 1}), "ranks 1, 3");
  EXPECT_EQ(rankSetText({6, 0, 1, 2, 3}), "ranks 0\u20133, 6");
  EXPECT_EQ(rankSetText({0, 1, 3, 4, 5}), "ranks 0, 1, 3\u20135");
  EXPECT_EQ(rankSetText({4}), "rank 4");
  EXPECT_EQ(rankSetText({}), "no rank");
}

// Busy 100 and 80 ms: the job steps at 100 ms, the slowest rank's pace.
TEST(JobFindingsTest, TheJobGainsWhatTheSlowestStepLoses) {
  std::vector<RankRow> rows(2);
  rows[0].busy_ns = 100 * kMs;
  rows[1].busy_ns = 80 * kMs;
  // Every rank gains 30 ms: the slowest gains 30, and stays the slowest.
  EXPECT_EQ(jobGainNs(rows, {30 * kMs, 30 * kMs}), 30 * kMs);
  // The slowest gains 10, the other 30: 10 (not the mean, 20).
  EXPECT_EQ(jobGainNs(rows, {10 * kMs, 30 * kMs}), 10 * kMs);
  // Only the fast rank gains: the job waits for the slowest as before.
  EXPECT_EQ(jobGainNs(rows, {0, 30 * kMs}), 0);
  // Only the slowest gains 50: the other rank, at 80 ms, becomes the slowest.
  EXPECT_EQ(jobGainNs(rows, {50 * kMs, 0}), 20 * kMs);
  // No rank's gain is more than its step.
  EXPECT_EQ(jobGainNs(rows, {500 * kMs, 500 * kMs}), 100 * kMs);
}

// Rank 0 (a 100 ms step, the slowest) and rank 1 (80 ms) both find enable-amp; only rank 1 finds
// enable-tf32. The job's enable-amp names both ranks and gains what rank 0's step loses; its
// enable-tf32 names rank 1 and gains nothing: a note.
TEST(JobFindingsTest, AnalyzeJobMergesTheRanksFindingsByRuleWithTheJobsGain) {
  std::vector<RankResult> ranks = {
      rankWith(0, 100 * kMs, {finding(rule_ids::kEnableAmp, "model", 20 * kMs, 100 * kMs, "autocast bf16")}),
      rankWith(1, 80 * kMs,
               {finding(rule_ids::kEnableAmp, "model", 40 * kMs, 80 * kMs, "autocast bf16 (rank 1's words)"),
                finding(rule_ids::kEnableTf32, "model", 10 * kMs, 80 * kMs)}),
  };
  auto job = analyzeJob(ranks);
  ASSERT_TRUE(job) << job.error().message;
  const Recommendation* amp = ruleOf(*job, rule_ids::kEnableAmp);
  ASSERT_NE(amp, nullptr);
  EXPECT_EQ(amp->ranks, (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(amp->target, "model");
  // max(100, 80) - max(100 - 20, 80 - 40) = 20 ms: rank 0's gain, not the mean (30 ms).
  EXPECT_EQ(amp->estimated_gain_ns, 20 * kMs);
  EXPECT_DOUBLE_EQ(amp->estimated_gain_pct, 20.0);  // of the job's 100 ms step
  EXPECT_EQ(amp->severity, Severity::kHigh);
  EXPECT_EQ(amp->action, "autocast bf16 (rank 1's words)");  // the rank with the largest gain
  EXPECT_NE(amp->evidence.find("ranks 0, 1 (2 of 2 ranks)"), std::string::npos) << amp->evidence;
  EXPECT_NE(amp->evidence.find("goes from 100.000 ms to 80.000 ms"), std::string::npos) << amp->evidence;

  const Recommendation* tf32 = ruleOf(*job, rule_ids::kEnableTf32);
  ASSERT_NE(tf32, nullptr);
  EXPECT_EQ(tf32->ranks, (std::vector<std::int32_t>{1}));
  EXPECT_EQ(tf32->estimated_gain_ns, 0);
  EXPECT_TRUE(isNote(*tf32));
  EXPECT_EQ(tf32->evidence.rfind("the job gains nothing from it until rank 0, the busiest, gains too", 0), 0u)
      << tf32->evidence;
  EXPECT_EQ(job->recommendations.front().rule, rule_ids::kEnableAmp);  // largest job gain first
}

// pad-dimensions of two sizes are two fixes; the same size on two ranks is one.
TEST(JobFindingsTest, FindingsOfOneRuleOnDifferentTargetsStayApart) {
  std::vector<RankResult> ranks = {
      rankWith(0, 100 * kMs, {finding(rule_ids::kPadDimensions, "size 27", 2 * kMs, 100 * kMs),
                              finding(rule_ids::kPadDimensions, "size 13", 1 * kMs, 100 * kMs)}),
      rankWith(1, 100 * kMs, {finding(rule_ids::kPadDimensions, "size 27", 3 * kMs, 100 * kMs)}),
  };
  auto job = analyzeJob(ranks);
  ASSERT_TRUE(job) << job.error().message;
  ASSERT_EQ(job->recommendations.size(), 2u);
  EXPECT_EQ(job->recommendations[0].target, "size 27");
  EXPECT_EQ(job->recommendations[0].ranks, (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(job->recommendations[0].estimated_gain_ns, 2 * kMs);  // both at 100 ms: the smaller gain
  EXPECT_EQ(job->recommendations[1].target, "size 13");
  EXPECT_EQ(job->recommendations[1].ranks, (std::vector<std::int32_t>{0}));
  EXPECT_EQ(job->recommendations[1].estimated_gain_ns, 0);  // rank 1 still steps at 100 ms
}

// A job of one rank gains what the rank gains, with its own evidence.
TEST(JobFindingsTest, AJobOfOneRankKeepsItsFindingAsItWas) {
  auto job = analyzeJob({rankWith(0, 100 * kMs, {finding(rule_ids::kEnableAmp, "model", 25 * kMs, 100 * kMs)})});
  ASSERT_TRUE(job) << job.error().message;
  ASSERT_EQ(job->recommendations.size(), 1u);
  EXPECT_EQ(job->recommendations[0].estimated_gain_ns, 25 * kMs);
  EXPECT_EQ(job->recommendations[0].evidence, "numbers of this rank");
  EXPECT_EQ(job->recommendations[0].ranks, (std::vector<std::int32_t>{0}));
}

}  // namespace
}  // namespace ampscope::analyzer
