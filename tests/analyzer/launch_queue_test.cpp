#include "analyzer/steps/launch_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>

#include "analyzer/core/rule_ids.h"
#include "analyzer/normalise/range_normaliser.h"
#include "analyzer/run_analysis.h"

namespace ampscope::analyzer {
namespace {

constexpr std::int64_t kUs = 1000;
constexpr std::int64_t kMs = 1000 * kUs;

// How a simulated FP32 training loop paces itself: each op is host work, then a launch call that
// blocks while `queue_capacity` kernels are queued and not started (a full launch queue), then a
// kernel that runs once its launch and the previous kernel allow.
struct LoopPace {
  int steps = 6;
  int ops_per_step = 100;
  std::int64_t host_per_op_ns = 20 * kUs;
  std::int64_t launch_call_ns = 5 * kUs;
  std::int64_t kernel_ns = 200 * kUs;
  std::size_t queue_capacity = 40;
  bool synchronize_each_step = false;
};

// A V100 run of 1024^3 FP32 GEMMs (2.1 GFLOP each: 0.2 ms is 10.7 TFLOP/s, under the 15.7 peak),
// as a profiler records it, before normalisation and correlation.
trace::Trace pacedRun(const LoopPace& p) {
  trace::Trace trace;
  trace::Device gpu;
  gpu.name = trace.strings.intern("Tesla V100-SXM2-16GB");
  gpu.compute_major = 7;
  gpu.sm_count = 80;
  gpu.total_memory_bytes = 16ull << 30;
  trace.devices.push_back(gpu);
  const trace::Index thread = trace.threadIndex(7, 7);
  const auto launch_name = trace.strings.intern("cudaLaunchKernel");
  const auto sync_name = trace.strings.intern("cudaStreamSynchronize");
  const auto range = [&](std::string_view name, std::int64_t start, std::int64_t end, bool op) {
    trace::Range r;
    r.name = trace.strings.intern(name);
    r.start_ns = start;
    r.end_ns = end;
    r.thread = thread;
    r.kind = op ? trace::RangeKind::kOperator : trace::RangeKind::kAnnotation;
    if (op) {
      r.shapes = trace.strings.intern("[[1024,1024],[1024,1024]]");
      r.dtypes = trace.strings.intern("[\"float\",\"float\"]");
    }
    trace.ranges.push_back(r);
  };
  std::int64_t now = kMs;
  std::int64_t gpu_free = 0;
  std::uint64_t correlation = 1;
  std::deque<std::int64_t> queued_starts;  // starts of kernels queued, in order
  for (int step = 0; step < p.steps; ++step) {
    const std::int64_t step_start = now;
    for (int i = 0; i < p.ops_per_step; ++i) {
      const std::int64_t op_start = now;
      const std::int64_t call_start = now + p.host_per_op_ns;
      while (!queued_starts.empty() && queued_starts.front() <= call_start) queued_starts.pop_front();
      std::int64_t call_end = call_start + p.launch_call_ns;
      if (queued_starts.size() >= p.queue_capacity) {
        // Blocked until enough queued kernels started to free a slot.
        call_end = std::max(call_end, queued_starts[queued_starts.size() - p.queue_capacity] + p.launch_call_ns);
      }
      trace::LaunchCall call;
      call.start_ns = call_start;
      call.end_ns = call_end;
      call.correlation_id = correlation;
      call.name = launch_name;
      call.thread = thread;
      trace.launches.push_back(call);
      trace::Kernel kernel;
      kernel.start_ns = std::max(call_end + 2 * kUs, gpu_free);
      kernel.end_ns = kernel.start_ns + p.kernel_ns;
      kernel.correlation_id = correlation++;
      kernel.name = trace.strings.intern("volta_sgemm_128x64_nn");
      kernel.stream = 7;
      kernel.grid = {128, 1, 1};
      kernel.block = {256, 1, 1};
      trace.kernels.push_back(kernel);
      queued_starts.push_back(kernel.start_ns);
      gpu_free = kernel.end_ns;
      now = call_end + kUs;
      range("aten::mm", op_start, now, true);
    }
    if (p.synchronize_each_step) {
      trace::LaunchCall sync;
      sync.start_ns = now;
      sync.end_ns = std::max(now, gpu_free) + 5 * kUs;
      sync.correlation_id = correlation++;
      sync.name = sync_name;
      sync.thread = thread;
      trace.launches.push_back(sync);
      now = sync.end_ns;
    }
    now += 10 * kUs;
    range("ProfilerStep#" + std::to_string(step), step_start, now, false);
  }
  trace.sortByTime();
  import::normaliseRanges(trace);  // as an importer hands a trace over
  return trace;
}

bool hasRule(const RunAnalysis& run, std::string_view rule) {
  return std::any_of(run.recommendations.begin(), run.recommendations.end(),
                     [&](const Recommendation& r) { return r.rule == rule; });
}

const Recommendation* findRule(const RunAnalysis& run, std::string_view rule) {
  for (const Recommendation& r : run.recommendations) {
    if (r.rule == rule) return &r;
  }
  return nullptr;
}

// The enable-amp gain is the reachable speedup's saving on the step.
void expectAmpGainAgreesWithReachable(const RunAnalysis& run) {
  const Recommendation* amp = findRule(run, rule_ids::kEnableAmp);
  ASSERT_NE(amp, nullptr);
  const double step = static_cast<double>(run.summary.iterations.steady_mean_ns);
  EXPECT_NEAR(static_cast<double>(amp->estimated_gain_ns), step * (1.0 - 1.0 / run.summary.amdahl.reachableSpeedup()),
              step * 1e-6);
}

TEST(LaunchQueueTest, HostBoundWithAShallowQueueIsHostBound) {
  // 1 ms of host work per 0.2 ms kernel: each kernel starts as soon as it is asked for.
  LoopPace p;
  p.host_per_op_ns = kMs;
  p.ops_per_step = 20;
  const RunAnalysis run = analyzeTrace(pacedRun(p), "host-bound");
  const LaunchQueue& q = run.summary.launch_queue;
  ASSERT_TRUE(q.measured) << q.note;
  EXPECT_EQ(q.pacing, Pacing::kHostBound) << q.pacing_evidence;
  EXPECT_DOUBLE_EQ(q.median_depth, 0.0);
  EXPECT_EQ(q.blocked_launches, 0u);
  EXPECT_EQ(q.host_blocked_ns_per_iteration, 0);
  EXPECT_EQ(q.median_launch_to_start_ns, p.launch_call_ns + 2 * kUs);
  EXPECT_LT(q.gpu_busy_fraction, 0.25);
  // Faster GPU work only makes the GPU wait: the replay keeps the host's pace.
  const AmdahlProjection& a = run.summary.amdahl;
  ASSERT_TRUE(a.replay.done) << a.replay.note;
  EXPECT_GT(a.projected_speedup, 1.05);
  EXPECT_NEAR(a.reachableSpeedup(), 1.0, 0.02);
  EXPECT_TRUE(hasRule(run, rule_ids::kHostBound));
  expectAmpGainAgreesWithReachable(run);
}

TEST(LaunchQueueTest, GpuBoundBehindAFullQueueWithBlockingLaunchesIsNotHostBound) {
  // The host runs ahead until 40 kernels are queued; then every launch waits for a kernel to
  // start, so the recorded launch times follow the GPU.
  LoopPace p;
  const RunAnalysis run = analyzeTrace(pacedRun(p), "gpu-bound");
  const LaunchQueue& q = run.summary.launch_queue;
  ASSERT_TRUE(q.measured) << q.note;
  EXPECT_EQ(q.pacing, Pacing::kGpuBound) << q.pacing_evidence;
  EXPECT_GE(q.median_depth, 35.0);
  EXPECT_GT(q.gpu_busy_fraction, 0.95);
  EXPECT_GT(q.blocked_launches, static_cast<std::uint64_t>(p.ops_per_step * 3));
  EXPECT_EQ(q.sync_ns_per_iteration, 0);
  // Most of each ~20 ms step the host sits in launch calls that wait on the queue.
  EXPECT_GT(q.host_blocked_ns_per_iteration, run.summary.iterations.steady_mean_ns / 2);
  const AmdahlProjection& a = run.summary.amdahl;
  ASSERT_TRUE(a.replay.done) << a.replay.note;
  ASSERT_GT(a.projected_speedup, 2.0);
  // Blocked time goes back to the host: the replay reaches about the projection.
  EXPECT_NEAR(a.reachableSpeedup() / a.projected_speedup, 1.0, 0.10)
      << "reachable " << a.reachableSpeedup() << " projected " << a.projected_speedup;
  EXPECT_FALSE(hasRule(run, rule_ids::kHostBound));
  expectAmpGainAgreesWithReachable(run);
}

TEST(LaunchQueueTest, PerStepSynchronisationIsHostBlockedTimeGivenBackByTheReplay) {
  // 50 kernels queued in 1.3 ms, then the host waits ~9 ms for them at the end of every step.
  LoopPace p;
  p.ops_per_step = 50;
  p.queue_capacity = 1000;
  p.synchronize_each_step = true;
  const RunAnalysis run = analyzeTrace(pacedRun(p), "sync-per-step");
  const LaunchQueue& q = run.summary.launch_queue;
  ASSERT_TRUE(q.measured) << q.note;
  EXPECT_EQ(q.blocked_launches, 0u);
  EXPECT_GT(q.sync_ns_per_iteration, 8 * kMs);
  EXPECT_EQ(q.host_blocked_ns_per_iteration, q.sync_ns_per_iteration);
  EXPECT_EQ(q.pacing, Pacing::kGpuBound) << q.pacing_evidence;
  const AmdahlProjection& a = run.summary.amdahl;
  ASSERT_TRUE(a.replay.done) << a.replay.note;
  EXPECT_NEAR(a.reachableSpeedup() / a.projected_speedup, 1.0, 0.10)
      << "reachable " << a.reachableSpeedup() << " projected " << a.projected_speedup;
  EXPECT_FALSE(hasRule(run, rule_ids::kHostBound));
  expectAmpGainAgreesWithReachable(run);
}

TEST(LaunchQueueTest, QueueDepthIsAStepFunctionPerStream) {
  // Three kernels asked for at 1, 2, 3 us that start at 10, 20, 30 us: depth 1, 2, 3, then 2, 1, 0.
  trace::Trace trace;
  const trace::Index thread = trace.threadIndex(1, 1);
  for (int i = 0; i < 3; ++i) {
    trace::LaunchCall call;
    call.start_ns = (i + 1) * kUs;
    call.end_ns = call.start_ns + 500;
    call.correlation_id = static_cast<std::uint64_t>(i + 1);
    call.name = trace.strings.intern("cudaLaunchKernel");
    call.thread = thread;
    trace.launches.push_back(call);
    trace::Kernel kernel;
    kernel.start_ns = (i + 1) * 10 * kUs;
    kernel.end_ns = kernel.start_ns + 5 * kUs;
    kernel.correlation_id = call.correlation_id;
    kernel.launch = static_cast<trace::Index>(i);
    kernel.stream = 3;
    trace.kernels.push_back(kernel);
  }
  const LaunchQueue q = measureLaunchQueue(trace, IterationSummary{});
  ASSERT_TRUE(q.measured) << q.note;
  EXPECT_FALSE(q.per_step);
  ASSERT_EQ(q.streams.size(), 1u);
  EXPECT_EQ(q.streams[0].pid, 1);
  EXPECT_EQ(q.streams[0].stream, 3u);
  std::vector<std::int32_t> depths;
  for (const QueuePoint& point : q.streams[0].points) depths.push_back(point.depth);
  EXPECT_EQ(depths, (std::vector<std::int32_t>{1, 2, 3, 2, 1, 0}));
  // Without steps the window is the GPU's work, 10-35 us: depth 2, then 1, then 0.
  EXPECT_EQ(q.window_ns, 25 * kUs);
  EXPECT_EQ(q.max_depth, 2);
  EXPECT_DOUBLE_EQ(q.median_depth, 1.0);  // 10 us at depth 2, 10 at 1, 5 at 0
  EXPECT_EQ(q.median_launch_to_start_ns, 18 * kUs);
}

TEST(LaunchQueueTest, ACpuRunHasNoLaunchQueue) {
  trace::Trace trace = pacedRun(LoopPace{});
  trace.devices[0].kind = trace::DeviceKind::kCpu;
  const RunAnalysis run = analyzeTrace(std::move(trace), "cpu");
  EXPECT_FALSE(run.summary.launch_queue.measured);
  EXPECT_EQ(run.summary.launch_queue.pacing, Pacing::kUnknown);
  EXPECT_NE(run.summary.launch_queue.note.find("CPU"), std::string::npos);
}

}  // namespace
}  // namespace ampscope::analyzer
