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
  trace::Device gpu;
  gpu.name = trace.strings.intern(kH100);
  gpu.compute_major = 9;
  gpu.compute_minor = 0;
  gpu.sm_count = 132;
  gpu.total_memory_bytes = 80ull << 30;
  trace.devices.push_back(gpu);
  const trace::Index thread = trace.threadIndex(1, 1);
  const trace::StringId launch_name = trace.strings.intern("cudaLaunchKernel");
  const trace::StringId sync_name = trace.strings.intern("cudaDeviceSynchronize");
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
  std::int64_t gpu_free = 0;
  std::uint64_t correlation = 1;
  for (int call = 0; call < calls; ++call) {
    const std::int64_t call_start = now;
    now += kCallGap / 2;
    for (const InferenceOp& op : ops) {
      range(op.op, now, now + kHostPerOp, op.shapes, op.dtypes);
      if (!op.inner_op.empty()) range(op.inner_op, now + 1'000, now + kHostPerOp - 1'000, op.inner_shapes, op.dtypes);
      trace::LaunchCall launch;
      launch.start_ns = now + 2'000;
      launch.end_ns = now + 6'000;
      launch.correlation_id = correlation;
      launch.name = launch_name;
      launch.thread = thread;
      trace.launches.push_back(launch);
      trace::Kernel kernel;
      kernel.start_ns = std::max(launch.end_ns + 1'000, gpu_free);
      kernel.end_ns = kernel.start_ns + op.kernel_ns;
      kernel.correlation_id = correlation++;
      kernel.name = trace.strings.intern(op.kernel);
      kernel.stream = 7;
      kernel.grid = {132, 1, 1};
      kernel.block = {256, 1, 1};
      trace.kernels.push_back(kernel);
      gpu_free = kernel.end_ns;
      now += kHostPerOp;
    }
    // The call's result is read back: the host waits for the GPU.
    trace::LaunchCall sync;
    sync.start_ns = now;
    sync.end_ns = std::max(now, gpu_free) + 1'000;
    sync.correlation_id = correlation++;
    sync.name = sync_name;
    sync.thread = thread;
    trace.launches.push_back(sync);
    now = sync.end_ns + kCallGap / 2;
    if (profiler_steps) range("ProfilerStep#" + std::to_string(call), call_start, now, "", "");
  }
  trace.sortByTime();
  return trace;
}

}  // namespace ampscope::test
