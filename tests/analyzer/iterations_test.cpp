#include "analyzer/correlate/iterations.h"

#include <array>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "../test_support.h"
#include "analyzer/correlate/correlator.h"
#include "analyzer/import/trace_importer.h"
#include "tests/analyzer/imported_trace.h"

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

TEST(IterationsTest, SteadySpansAnswerAsAScanOfEveryIterationOnTheirClockDoes) {
  // Warm-up, overlapping, touching, nested, empty and separate steps, out of order; on the host
  // each starts 40 ns earlier and lasts 30 ns.
  IterationSummary summary;
  for (const auto& [number, start, end, warmup] :
       std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool>>{
           {0, 0, 100, true}, {1, 300, 400, false}, {2, 100, 200, false}, {3, 150, 250, false}, {4, 250, 260, false},
           {5, 500, 500, false}, {6, 320, 330, false}, {7, 600, 700, true}, {8, 650, 800, false}}) {
    summary.iterations.push_back({.number = number, .start_ns = start, .end_ns = end, .warmup = warmup,
                                  .host_start_ns = start - 40, .host_end_ns = start - 10});
  }
  summary.warmup_count = 2;
  for (const StepClock clock : {StepClock::kHost, StepClock::kTimeline}) {
    const SteadySpans spans(summary, clock);
    const auto scan = [&](std::int64_t t) {
      for (const Iteration& it : summary.iterations) {
        if (!it.warmup && t >= it.startOn(clock) && t < it.endOn(clock)) return true;
      }
      return false;
    };
    for (std::int64_t t = -50; t <= 820; ++t) {
      EXPECT_EQ(spans.contains(t), scan(t)) << t;
    }
    EXPECT_FALSE(SteadySpans(IterationSummary{}, clock).contains(0));
  }
  EXPECT_TRUE(SteadySpans(summary, StepClock::kHost).contains(260));  // step 1 on the host
  EXPECT_FALSE(SteadySpans(summary, StepClock::kTimeline).contains(280));
}

// A kernel launched at launch_ns on the trace's first thread, running [start_ns, end_ns).
void addLaunchedKernel(trace::Trace& trace, std::int64_t launch_ns, std::int64_t start_ns, std::int64_t end_ns) {
  trace::LaunchCall launch;
  launch.start_ns = launch_ns;
  launch.end_ns = launch_ns + 2;
  launch.correlation_id = trace.launches.size() + 1;
  launch.name = trace.strings.intern("cudaLaunchKernel");
  launch.thread = 0;
  trace.launches.push_back(launch);
  trace::Kernel kernel;
  kernel.start_ns = start_ns;
  kernel.end_ns = end_ns;
  kernel.correlation_id = launch.correlation_id;
  kernel.name = trace.strings.intern("gemm");
  trace.kernels.push_back(kernel);
}

trace::Trace stepsWithKernels(const std::vector<std::pair<std::int64_t, std::int64_t>>& steps,
                              const std::vector<std::array<std::int64_t, 3>>& kernels) {
  trace::Trace trace = stepsTrace(steps, "ProfilerStep#");
  for (const auto& [launch, start, end] : kernels) addLaunchedKernel(trace, launch, start, end);
  trace.sortByTime();
  test::correlateAsImported(trace);
  return trace;
}

TEST(IterationsTest, WhereTheHostRunsAheadAStepLastsUntilTheGpuWorkItLaunchedHasRun) {
  // Host steps of 100 ns, each launching 300 ns of GPU work that runs back to back: the GPU
  // falls behind, and steps end every 300 ns on the timeline.
  std::vector<std::pair<std::int64_t, std::int64_t>> steps;
  std::vector<std::array<std::int64_t, 3>> kernels;
  for (std::int64_t i = 0; i < 5; ++i) {
    steps.emplace_back(i * 100, i * 100 + 100);
    kernels.push_back({i * 100 + 10, 20 + i * 300, 20 + (i + 1) * 300});
  }
  const IterationSummary summary = findIterations(stepsWithKernels(steps, kernels));
  ASSERT_EQ(summary.iterations.size(), 5u);
  EXPECT_EQ(summary.iterations[0].start_ns, 0);
  EXPECT_EQ(summary.iterations[0].end_ns, 320);
  for (std::size_t i = 1; i < 5; ++i) {
    EXPECT_EQ(summary.iterations[i].start_ns, summary.iterations[i - 1].end_ns);
    EXPECT_EQ(summary.iterations[i].durationNs(), 300) << i;
    EXPECT_EQ(summary.iterations[i].host_start_ns, static_cast<std::int64_t>(i) * 100);
    EXPECT_EQ(summary.iterations[i].host_end_ns, static_cast<std::int64_t>(i) * 100 + 100);
  }
  EXPECT_EQ(summary.steady_mean_ns, 300);
  EXPECT_EQ(summary.steady_host_mean_ns, 100);
  EXPECT_TRUE(hostRanAhead(summary));
  EXPECT_EQ(summary.steadyWindow(StepClock::kHost), std::make_pair(std::int64_t{100}, std::int64_t{500}));
  EXPECT_EQ(summary.steadyWindow(StepClock::kTimeline), std::make_pair(std::int64_t{320}, std::int64_t{1520}));
}

TEST(IterationsTest, WhereTheGpuKeepsUpTheStepsAreTheirHostRanges) {
  // Each step's kernel ends inside it (the step waits for it), and a gap of idle host time
  // between steps 2 and 3 stays outside both.
  const IterationSummary summary = findIterations(stepsWithKernels(
      {{0, 100}, {100, 200}, {200, 300}, {400, 500}},
      {{{10, 20, 90}}, {{110, 120, 190}}, {{210, 220, 290}}, {{410, 420, 490}}}));
  ASSERT_EQ(summary.iterations.size(), 4u);
  for (const Iteration& it : summary.iterations) {
    EXPECT_EQ(it.start_ns, it.host_start_ns);
    EXPECT_EQ(it.end_ns, it.host_end_ns);
  }
  EXPECT_EQ(summary.steady_mean_ns, 100);
  EXPECT_FALSE(hostRanAhead(summary));
}

TEST(IterationsTest, AStepWhoseWorkEndsAfterTheNextStepsHostRangeStartsTheNextOneLate) {
  // Step 1's kernel runs until 250, past step 2's host start (200) and beyond a gap: step 2 starts
  // on the timeline where step 1's work ended; step 3, after a gap the GPU had finished in, at
  // its host start. GPU records launched outside every step move no step.
  const IterationSummary summary = findIterations(stepsWithKernels(
      {{0, 100}, {100, 200}, {200, 300}, {600, 700}},
      {{{10, 20, 90}}, {{110, 120, 250}}, {{210, 260, 290}}, {{610, 620, 690}}, {{400, 410, 900}}}));
  ASSERT_EQ(summary.iterations.size(), 4u);
  EXPECT_EQ(summary.iterations[1].end_ns, 250);
  EXPECT_EQ(summary.iterations[2].start_ns, 250);
  EXPECT_EQ(summary.iterations[2].end_ns, 300);
  EXPECT_EQ(summary.iterations[3].start_ns, 600);
  EXPECT_EQ(summary.iterations[3].end_ns, 700);
}

}  // namespace
}  // namespace ampscope::analyzer
