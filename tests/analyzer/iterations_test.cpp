#include "analyzer/iterations.h"

#include <gtest/gtest.h>

#include "../test_support.h"
#include "analyzer/correlator.h"
#include "tests/analyzer/imported_trace.h"
#include "analyzer/import/trace_importer.h"

namespace ampscope::analyzer {
namespace {

trace::Trace stepsTrace(const std::vector<std::pair<std::int64_t, std::int64_t>>& steps, const char* prefix) {
  trace::Trace trace;
  const trace::Index main = trace.threadIndex(1, 1);
  std::int64_t number = 1;
  for (const auto& [start, end] : steps) {
    trace::Range range;
    range.name = trace.strings.intern(std::string(prefix) + std::to_string(number++));
    range.start_ns = start;
    range.end_ns = end;
    range.thread = main;
    range.kind = trace::RangeKind::kAnnotation;
    trace.ranges.push_back(range);
  }
  trace.sortByTime();
  test::correlateAsImported(trace);
  return trace;
}

TEST(IterationsTest, StepRangesGiveIterationsAndTheFirstIsWarmup) {
  const trace::Trace trace = stepsTrace({{0, 500}, {500, 600}, {600, 710}, {710, 800}}, "ProfilerStep#");
  const IterationSummary summary = findIterations(trace);
  ASSERT_EQ(summary.iterations.size(), 4u);
  EXPECT_EQ(summary.iterations[1].number, 2);
  EXPECT_EQ(summary.warmup_count, 1u);
  EXPECT_TRUE(summary.iterations[0].warmup);
  EXPECT_EQ(summary.steady_mean_ns, 100);  // (100 + 110 + 90) / 3
  EXPECT_EQ(summary.steady_min_ns, 90);
  EXPECT_EQ(summary.steady_max_ns, 110);
  EXPECT_EQ(summary.steady_stddev_ns, 8);  // sqrt(200 / 3)
}

TEST(IterationsTest, SlowLeadingStepsAfterTheFirstAreWarmupToo) {
  const trace::Trace trace =
      stepsTrace({{0, 900}, {900, 1500}, {1500, 1600}, {1600, 1700}, {1700, 1800}}, "step ");
  const IterationSummary summary = findIterations(trace);
  EXPECT_EQ(summary.warmup_count, 2u);
  EXPECT_EQ(summary.steady_mean_ns, 100);
}

TEST(IterationsTest, WithoutStepRangesTheOptimizerStepGivesThePeriod) {
  trace::Trace trace;
  const trace::Index main = trace.threadIndex(1, 1);
  for (std::int64_t i = 0; i < 4; ++i) {
    trace::Range range;
    range.name = trace.strings.intern("Optimizer.step#Adam.step");
    range.start_ns = 1000 + i * 250;
    range.end_ns = range.start_ns + 20;
    range.thread = main;
    trace.ranges.push_back(range);
  }
  trace.sortByTime();
  test::correlateAsImported(trace);
  const IterationSummary summary = findIterations(trace);
  ASSERT_EQ(summary.iterations.size(), 3u);
  EXPECT_NE(summary.source.find("Optimizer.step#Adam.step"), std::string::npos);
  EXPECT_EQ(summary.iterations[2].durationNs(), 250);
}

TEST(IterationsTest, ZeroLengthStepMarksAreNotIterations) {
  const trace::Trace trace = stepsTrace({{100, 100}, {200, 200}}, "step ");
  const IterationSummary summary = findIterations(trace);
  EXPECT_TRUE(summary.iterations.empty());
  EXPECT_EQ(summary.steady_mean_ns, 0);
}

TEST(IterationsTest, NoStepsAndNothingRepeatingSaysSo) {
  trace::Trace trace;
  const IterationSummary summary = findIterations(trace);
  EXPECT_TRUE(summary.iterations.empty());
  EXPECT_NE(summary.source.find("none found"), std::string::npos);
}

TEST(IterationsTest, ResNetTraceHasSixProfilerStepsOneOfThemWarmup) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  auto imported = import::importTrace(path);
  ASSERT_TRUE(imported.ok());
  correlate(*imported);
  const IterationSummary summary = findIterations(*imported);
  ASSERT_EQ(summary.iterations.size(), 6u);  // ProfilerStep#5 .. #10
  EXPECT_EQ(summary.iterations.front().number, 5);
  EXPECT_EQ(summary.iterations.back().number, 10);
  EXPECT_EQ(summary.warmup_count, 1u);
  EXPECT_GT(summary.steady_mean_ns, 150'000'000);
  EXPECT_LT(summary.steady_mean_ns, 200'000'000);
}

TEST(IterationsTest, SteadySpansAnswerAsTheScanOfEveryIterationDoes) {
  // Warm-up, overlapping, touching, nested, empty and separate steps, out of order.
  IterationSummary summary;
  summary.iterations = {{0, 0, 100, true},  {1, 300, 400, false}, {2, 100, 200, false}, {3, 150, 250, false},
                        {4, 250, 260, false}, {5, 500, 500, false}, {6, 320, 330, false}, {7, 600, 700, true},
                        {8, 650, 800, false}};
  summary.warmup_count = 2;
  const SteadySpans spans(summary);
  for (std::int64_t t = -10; t <= 820; ++t) {
    EXPECT_EQ(spans.contains(t), summary.inSteadyIteration(t)) << t;
  }
  EXPECT_FALSE(SteadySpans(IterationSummary{}).contains(0));
}

}  // namespace
}  // namespace ampscope::analyzer
