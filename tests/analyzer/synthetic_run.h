#pragma once
// A small training run built in a test, as a profiler records it: ProfilerStep#N ranges, each
// calling the same ops in order on one thread; each op launches one kernel, which runs on one
// stream as soon as its launch and the previous kernel allow; each step ends by waiting for
// its GPU work (cudaStreamSynchronize). Two of these with the same ops and
// other kernels (sgemm against FP16 Tensor Core GEMMs) are an FP32 run and its AMP run.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/analyzer/launch_timeline.h"
#include "tests/analyzer/test_gpu.h"
#include "trace/trace_model.h"

namespace ampscope::test {

struct SyntheticOp {
  std::string op;      // "aten::linear"
  std::string shapes;  // "[[256,1024],[4096,1024],[4096]]"
  std::string dtypes;  // "[\"float\",\"float\",\"float\"]"
  std::string kernel;  // the kernel it launches
  std::int64_t kernel_ns = 0;
};

inline constexpr TestGpu kA100{.name = "NVIDIA A100-SXM4-80GB", .compute_major = 8, .sm_count = 108};

// The raw trace, before normalisation and correlation (as an importer hands it over).
inline trace::Trace syntheticRun(const std::vector<SyntheticOp>& ops, int steps = 6, const TestGpu& device = kA100) {
  constexpr std::int64_t kHostPerOp = 10'000;  // each op's host range
  constexpr std::int64_t kStepGap = 20'000;    // host work between steps
  trace::Trace trace;
  addGpu(trace, device);
  const trace::Index thread = trace.threadIndex(1, 1);
  LaunchTimeline gpu_work(trace, thread, static_cast<std::uint32_t>(device.sm_count), "cudaStreamSynchronize");
  std::int64_t now = 1'000'000;
  for (int step = 0; step < steps; ++step) {
    trace::Range step_range;
    step_range.name = trace.strings.intern("ProfilerStep#" + std::to_string(step));
    step_range.start_ns = now;
    step_range.thread = thread;
    now += kStepGap / 2;
    for (const SyntheticOp& op : ops) {
      trace::Range range;
      range.name = trace.strings.intern(op.op);
      range.start_ns = now;
      range.end_ns = now + kHostPerOp;
      range.thread = thread;
      range.shapes = trace.strings.intern(op.shapes);
      range.dtypes = trace.strings.intern(op.dtypes);
      trace.ranges.push_back(range);
      gpu_work.launch(now, op.kernel, op.kernel_ns);
      now += kHostPerOp;
    }
    // The step waits for its GPU work (the loss is read back), then the host goes on.
    now = gpu_work.waitForGpu(now) + kStepGap / 2;
    step_range.end_ns = now;
    trace.ranges.push_back(step_range);
  }
  trace.sortByTime();
  return trace;
}

}  // namespace ampscope::test
