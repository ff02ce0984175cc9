#pragma once
// A trace of inference calls built in a test, as a profiler records one without a training loop:
// no ProfilerStep#N ranges (unless asked for), each call running the same ops in order on one
// thread, each op launching one kernel that runs on one stream as soon as its launch and the
// kernel before it allow. An op may hold an inner op that launches the kernel (aten::linear over
// aten::addmm, as PyTorch records it). On an H100, so that the per-op model has peaks to project on.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/analyzer/launch_timeline.h"
#include "tests/analyzer/test_gpu.h"
#include "trace/trace_model.h"

namespace ampscope::test {

struct InferenceOp {
  std::string op;            // "aten::linear"
  std::string shapes;        // its recorded input shapes
  std::string inner_op;      // "aten::addmm": the op that launches the kernel; "" when `op` does
  std::string inner_shapes;
  std::string dtypes;        // of both ops' inputs
  std::string kernel;
  std::int64_t kernel_ns = 0;
};

inline constexpr const char* kH100 = "NVIDIA H100 80GB HBM3";

// `calls` inference calls; with `profiler_steps`, each call inside a ProfilerStep#N range.
inline trace::Trace inferenceRun(const std::vector<InferenceOp>& ops, int calls, bool profiler_steps = false) {
  constexpr std::int64_t kHostPerOp = 12'000;
  constexpr std::int64_t kCallGap = 30'000;  // host work between calls
  trace::Trace trace;
  addGpu(trace, {.name = kH100, .compute_major = 9, .sm_count = 132});
  const trace::Index thread = trace.threadIndex(1, 1);
  LaunchTimeline gpu_work(trace, thread, 132, "cudaDeviceSynchronize");
  const auto range = [&](const std::string& name, std::int64_t start, std::int64_t end, const std::string& shapes,
                         const std::string& dtypes) {
    trace::Range r;
    r.name = trace.strings.intern(name);
    r.start_ns = start;
    r.end_ns = end;
    r.thread = thread;
    if (!shapes.empty()) r.shapes = trace.strings.intern(shapes);
    if (!dtypes.empty()) r.dtypes = trace.strings.intern(dtypes);
    trace.ranges.push_back(r);
  };
  std::int64_t now = 1'000'000;
  for (int call = 0; call < calls; ++call) {
    const std::int64_t call_start = now;
    now += kCallGap / 2;
    for (const InferenceOp& op : ops) {
      range(op.op, now, now + kHostPerOp, op.shapes, op.dtypes);
      if (!op.inner_op.empty()) range(op.inner_op, now + 1'000, now + kHostPerOp - 1'000, op.inner_shapes, op.dtypes);
      gpu_work.launch(now, op.kernel, op.kernel_ns);
      now += kHostPerOp;
    }
    // The call's result is read back: the host waits for the GPU.
    now = gpu_work.waitForGpu(now) + kCallGap / 2;
    if (profiler_steps) range("ProfilerStep#" + std::to_string(call), call_start, now, "", "");
  }
  trace.sortByTime();
  return trace;
}

}  // namespace ampscope::test
