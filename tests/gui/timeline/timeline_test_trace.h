#pragma once
// Small hand-made traces for the timeline tests, correlated the way the analyzer leaves them
// (Range::depth/parent/layer and Kernel::op_range filled), and a QApplication for widget tests.

#include <memory>

#include <QApplication>
#include <QtGlobal>

#include "trace/trace_model.h"

namespace ampscope::gui::testing {

// Widget tests need one QApplication; without a display they run on the offscreen platform.
inline void ensureApplication() {
  if (QApplication::instance()) return;
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  static int argc = 1;
  static char name[] = "ampscope_gui_timeline_tests";
  static char* argv[] = {name, nullptr};
  new QApplication(argc, argv);  // lives until the process ends, as the tests' widgets may
}

inline constexpr std::int64_t kTraceStartNs = 1'000'000;

// Kernel indices into SmallTrace's kernels.
inline constexpr trace::Index kTensorCoreGemm = 0;
inline constexpr trace::Index kElementwise = 1;
inline constexpr trace::Index kSimtGemm = 2;
inline constexpr trace::Index kAllReduce = 3;

// One step on thread "main": two layer ranges, each with an operator inside whose kernels run on
// stream 7 (the operator ranges name no layer: their layer comes from the enclosing range); an
// all-reduce on stream 13 launched outside any operator; a host-to-device copy on stream 14; a
// backward range on thread "autograd" with no layer.
inline std::shared_ptr<trace::Trace> makeSmallTrace() {
  auto t = std::make_shared<trace::Trace>();
  trace::Device gpu;
  gpu.name = t->strings.intern("NVIDIA A100-SXM4-40GB");
  gpu.compute_major = 8;
  t->devices.push_back(gpu);
  t->threads.push_back({1, 100, t->strings.intern("main")});
  t->threads.push_back({1, 101, t->strings.intern("autograd")});

  const auto range = [&](const char* name, std::int64_t start, std::int64_t end, trace::Index thread,
                         std::uint8_t depth, trace::Index parent, const char* layer, trace::Phase phase) {
    trace::Range r;
    r.name = t->strings.intern(name);
    r.start_ns = start;
    r.end_ns = end;
    r.thread = thread;
    r.depth = depth;
    r.parent = parent;
    r.layer = t->strings.intern(layer);
    r.phase = phase;
    t->ranges.push_back(r);
  };
  range("ProfilerStep#1", 1'000'000, 2'000'000, 0, 0, trace::kNone, "", trace::Phase::kStep);
  range("fc1", 1'100'000, 1'400'000, 0, 1, 0, "encoder.fc1", trace::Phase::kForward);
  range("aten::linear", 1'150'000, 1'350'000, 0, 2, 1, "", trace::Phase::kForward);
  range("backward", 1'200'000, 1'900'000, 1, 0, trace::kNone, "", trace::Phase::kBackward);
  range("fc2", 1'500'000, 1'800'000, 0, 1, 0, "encoder.fc2", trace::Phase::kForward);
  range("aten::addmm", 1'550'000, 1'750'000, 0, 2, 4, "", trace::Phase::kForward);

  const auto kernel = [&](const char* name, std::uint32_t stream, std::int64_t start, std::int64_t end,
                          trace::Index op_range) {
    trace::Kernel k;
    k.name = t->strings.intern(name);
    k.stream = stream;
    k.start_ns = start;
    k.end_ns = end;
    k.op_range = op_range;
    k.grid = {128, 1, 1};
    k.block = {256, 1, 1};
    t->kernels.push_back(k);
  };
  kernel("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_64x3_nn", 7, 1'200'000, 1'300'000, 2);
  kernel("vectorized_elementwise_kernel", 7, 1'300'000, 1'320'000, 2);
  kernel("sgemm_128x64_nn", 7, 1'600'000, 1'700'000, 5);
  kernel("ncclKernel_AllReduce_RING_LL_Sum_half", 13, 1'250'000, 1'900'000, trace::kNone);

  trace::MemoryOp copy;
  copy.start_ns = 1'050'000;
  copy.end_ns = 1'090'000;
  copy.bytes = 4'000'000;
  copy.stream = 14;
  copy.direction = trace::CopyDirection::kHostToDevice;
  copy.src_kind = trace::MemoryKind::kPinned;
  copy.dst_kind = trace::MemoryKind::kDevice;
  t->memory_ops.push_back(copy);
  return t;
}

// A queue whose depth is known: three kernels on stream 7 launched at 0, 1 and 2 µs that start
// at 10, 20 and 30 µs and run 5 µs each, so the depth steps 1, 2, 3 up at the launches and 2, 1, 0
// down at the starts; one 40 µs step holds it all (the analyzer measures the queue over steps).
// Not yet correlated: analyzer::analyzeTrace links the launches and measures the queue, as it does
// for a loaded file.
inline trace::Trace makeQueueTrace() {
  trace::Trace t;
  trace::Device gpu;
  gpu.name = t.strings.intern("Tesla V100-SXM2-16GB");
  gpu.compute_major = 7;
  t.devices.push_back(gpu);
  t.threads.push_back({1, 100, t.strings.intern("main")});
  trace::Range step;
  step.name = t.strings.intern("ProfilerStep#1");
  step.start_ns = kTraceStartNs;
  step.end_ns = kTraceStartNs + 40'000;
  step.thread = 0;
  step.phase = trace::Phase::kStep;
  t.ranges.push_back(step);
  for (std::int64_t i = 0; i < 3; ++i) {
    trace::LaunchCall call;
    call.start_ns = kTraceStartNs + i * 1'000;
    call.end_ns = call.start_ns + 500;
    call.correlation_id = static_cast<std::uint64_t>(i + 1);
    call.name = t.strings.intern("cudaLaunchKernel");
    call.thread = 0;
    t.launches.push_back(call);
    trace::Kernel k;
    k.name = t.strings.intern("vectorized_elementwise_kernel");
    k.correlation_id = call.correlation_id;
    k.stream = 7;
    k.pid = 1;
    k.start_ns = kTraceStartNs + (i + 1) * 10'000;
    k.end_ns = k.start_ns + 5'000;
    t.kernels.push_back(k);
  }
  return t;
}

}  // namespace ampscope::gui::testing
