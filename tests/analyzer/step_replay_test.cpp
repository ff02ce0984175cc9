#include "analyzer/steps/step_replay.h"

#include <gtest/gtest.h>

#include <limits>

#include "../test_support.h"
#include "analyzer/correlate/correlator.h"
#include "analyzer/import/trace_importer.h"
#include "analyzer/steps/amdahl.h"
#include "analyzer/summary/trace_summary.h"

namespace ampscope::analyzer {
namespace {

constexpr std::int64_t kUs = 1000;
constexpr std::int64_t kMs = 1000 * kUs;

// A hand-made step: API calls on host threads, the kernels they launch, loading ranges.
class StepBuilder {
 public:
  StepBuilder() {
    trace_.threadIndex(1, 1);  // the training thread, index 0
    trace_.threadIndex(1, 2);  // a loader thread, index 1
  }

  void step(std::int64_t start, std::int64_t end) {
    Iteration it;
    it.number = static_cast<std::int64_t>(iterations_.iterations.size());
    it.start_ns = it.host_start_ns = start;
    it.end_ns = it.host_end_ns = end;
    iterations_.iterations.push_back(it);
  }

  // A 1 us cudaLaunchKernel at call_ns whose kernel runs [start, start + duration) on stream 7.
  void kernel(std::int64_t call_ns, std::int64_t start, std::int64_t duration, bool linked = true) {
    trace::Kernel k;
    k.start_ns = start;
    k.end_ns = start + duration;
    k.stream = 7;
    if (linked) k.launch = call(call_ns, call_ns + kUs, "cudaLaunchKernel", 0);
    trace_.kernels.push_back(k);
  }

  void synchronize(std::int64_t start, std::int64_t end) { call(start, end, "cudaStreamSynchronize", 0); }

  void loading(std::int64_t start, std::int64_t end, trace::Index thread) {
    trace::Range r;
    r.start_ns = start;
    r.end_ns = end;
    r.thread = thread;
    r.kind = trace::RangeKind::kAnnotation;
    r.phase = trace::Phase::kData;
    r.name = trace_.strings.intern("load batch");
    trace_.ranges.push_back(r);
  }

  ReplayScenario scenario(double kernel_speedup, bool hide_loading = false) const {
    ReplayScenario out;
    out.kernel_speedup.assign(trace_.kernels.size(), kernel_speedup);
    out.hide_data_loading = hide_loading;
    return out;
  }

  StepReplay replay(double kernel_speedup, bool hide_loading = false) const {
    return replaySteadySteps(trace_, iterations_, scenario(kernel_speedup, hide_loading));
  }

  const trace::Trace& trace() const { return trace_; }
  const IterationSummary& iterations() const { return iterations_; }

 private:
  trace::Index call(std::int64_t start, std::int64_t end, std::string_view name, trace::Index thread) {
    trace::LaunchCall c;
    c.start_ns = start;
    c.end_ns = end;
    c.name = trace_.strings.intern(name);
    c.thread = thread;
    trace_.launches.push_back(c);
    return static_cast<trace::Index>(trace_.launches.size() - 1);
  }

  trace::Trace trace_;
  IterationSummary iterations_;
};

TEST(StepReplayTest, GpuBoundStepGainsTheKernelSpeedup) {
  // The host queues ten 1 ms kernels within 100 us and waits for them: the GPU sets the pace.
  StepBuilder b;
  for (int i = 0; i < 10; ++i) b.kernel(i * 10 * kUs, 100 * kUs + i * kMs, kMs);
  b.synchronize(100 * kUs, 10'100 * kUs + 5 * kUs);
  b.step(0, 10'200 * kUs);
  const StepReplay r = b.replay(2.0);
  ASSERT_TRUE(r.done) << r.note;
  EXPECT_EQ(r.original_ns, 10'200 * kUs);
  EXPECT_EQ(r.baseline_ns, r.original_ns);  // the model reproduces the recorded step
  // Kernels take 5 ms instead of 10; the wait and the 95 us after it are unchanged.
  EXPECT_EQ(r.replayed_ns, 5'200 * kUs);
  EXPECT_NEAR(r.speedup, 10'200.0 / 5'200.0, 1e-9);
}

TEST(StepReplayTest, HostBoundStepGainsNothingFromFasterKernels) {
  // One 0.5 ms kernel per 1 ms of host time: the GPU waits for the host either way.
  StepBuilder b;
  for (int i = 0; i < 10; ++i) b.kernel(i * kMs, i * kMs + 50 * kUs, 500 * kUs);
  b.step(0, 10'500 * kUs);
  const StepReplay r = b.replay(2.0);
  ASSERT_TRUE(r.done) << r.note;
  EXPECT_DOUBLE_EQ(r.speedup, 1.0);
  const StepReplay free_math = b.replay(std::numeric_limits<double>::infinity());
  EXPECT_DOUBLE_EQ(free_math.speedup, 1.0);
}

TEST(StepReplayTest, HidingLoadingOnTheTrainingThreadRemovesIt) {
  // 10 ms of loading, then a 5 ms kernel the host waits for.
  StepBuilder b;
  b.loading(0, 10 * kMs, 0);
  b.kernel(10 * kMs + kUs, 10 * kMs + 50 * kUs, 5 * kMs);
  b.synchronize(10 * kMs + 10 * kUs, 15 * kMs + 60 * kUs);
  b.step(0, 15 * kMs + 100 * kUs);
  const StepReplay r = b.replay(1.0, true);
  ASSERT_TRUE(r.done) << r.note;
  EXPECT_EQ(r.replayed_ns, 5 * kMs + 100 * kUs);
  // Faster kernels and hidden loading compose.
  const StepReplay both = b.replay(2.0, true);
  EXPECT_EQ(both.replayed_ns, 2'500 * kUs + 100 * kUs);
}

TEST(StepReplayTest, LoadingOnAThreadThatLaunchesNothingIsAlreadyHidden) {
  StepBuilder b;
  b.loading(0, 10 * kMs, 1);
  b.kernel(kUs, 50 * kUs, 5 * kMs);
  b.synchronize(10 * kUs, 5 * kMs + 60 * kUs);
  b.step(0, 10 * kMs);
  const StepReplay r = b.replay(1.0, true);
  ASSERT_TRUE(r.done) << r.note;
  EXPECT_DOUBLE_EQ(r.speedup, 1.0);
}

TEST(StepReplayTest, GpuWorkWithoutItsApiCallIsRefusedWithAReason) {
  StepBuilder b;
  b.kernel(0, 50 * kUs, kMs);
  b.kernel(0, 2 * kMs, kMs, false);
  b.step(0, 4 * kMs);
  const StepReplay r = b.replay(2.0);
  EXPECT_FALSE(r.done);
  EXPECT_NE(r.note.find("no recorded API call"), std::string::npos);
}

void expectSameReplay(const StepReplay& a, const StepReplay& b) {
  EXPECT_EQ(a.done, b.done);
  EXPECT_EQ(a.note, b.note);
  EXPECT_EQ(a.original_ns, b.original_ns);
  EXPECT_EQ(a.baseline_ns, b.baseline_ns);
  EXPECT_EQ(a.replayed_ns, b.replayed_ns);
  EXPECT_DOUBLE_EQ(a.speedup, b.speedup);
}

TEST(StepReplayTest, OneReplayerGivesEachScenarioWhatItsOwnReplayGives) {
  // Loading, then kernels the host waits for: every scenario changes something.
  StepBuilder b;
  b.loading(0, 2 * kMs, 0);
  for (int i = 0; i < 4; ++i) b.kernel(2 * kMs + i * 10 * kUs, 2 * kMs + 100 * kUs + i * kMs, kMs);
  b.synchronize(2 * kMs + 50 * kUs, 6 * kMs + 150 * kUs);
  b.step(0, 6 * kMs + 200 * kUs);
  const StepReplayer replayer(b.trace(), b.iterations());
  for (const auto& [speedup, hide] : {std::pair{2.0, false}, std::pair{std::numeric_limits<double>::infinity(), false},
                                      std::pair{1.0, true}, std::pair{3.0, true}}) {
    const StepReplay shared = replayer.replay(b.scenario(speedup, hide));
    ASSERT_TRUE(shared.done) << shared.note;
    expectSameReplay(shared, b.replay(speedup, hide));
  }
  // A scenario that does not fit the trace is refused; the replayer still serves the next one.
  ReplayScenario wrong;
  wrong.kernel_speedup.assign(1, 2.0);
  EXPECT_FALSE(replayer.replay(wrong).done);
  expectSameReplay(replayer.replay(b.scenario(2.0)), b.replay(2.0));
}

TEST(StepReplayTest, NoSteadyStepsNoReplay) {
  StepBuilder b;
  b.kernel(0, 50 * kUs, kMs);
  const StepReplay r = b.replay(2.0);
  EXPECT_FALSE(r.done);
  EXPECT_FALSE(r.note.empty());
}

// The replay of each recorded Kineto trace, unchanged, must come close to the trace itself; if it
// did not, its what-if figures would mean little.
TEST(StepReplayTest, ReplayOfEachSharedTraceAsRecordedFitsIt) {
  for (const char* relative : {"kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz",
                               "kineto-v100-resnet50-workers4/worker0.1623212756351.pt.trace.json.gz",
                               "kineto-a100-dlrm-tf32/control.json.gz"}) {
    const std::string path = test::sharedTrace(relative);
    if (path.empty()) GTEST_SKIP() << relative << " not found";
    auto imported = import::importTrace(path);
    ASSERT_TRUE(imported.ok());
    const CorrelationCounts counts = correlate(*imported);
    const AmdahlProjection p = summarizeTrace(*imported, counts).amdahl;
    ASSERT_TRUE(p.replay.done) << relative << ": " << p.replay.note;
    EXPECT_NEAR(static_cast<double>(p.replay.baseline_ns) / static_cast<double>(p.replay.original_ns), 1.0, 0.02)
        << relative;
    // The host's pace can only take speedup away: never more than Amdahl on GPU figures.
    EXPECT_LE(p.replay.speedup, p.projected_speedup * 1.001) << relative;
    EXPECT_LE(p.replay.speedup, p.replay_ceiling.speedup * 1.001) << relative;
  }
}

}  // namespace
}  // namespace ampscope::analyzer
