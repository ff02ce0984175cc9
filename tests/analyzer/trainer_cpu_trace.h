#pragma once
// A trace shaped like `ampscope train --profile` on the CPU backend (docs/trainer_ranges.md): an
// MLP 784-100-10 in amp-fp16 with batch 64, six steps of 10 ms, each
//   step N [0, 10 ms)
//   ├── data      [0, 2 ms)        no op runs: 2 ms exposed per step
//   ├── forward   [2, 5 ms)        fc1 (0.8 ms of host ops), act1 (0.3 ms), fc2 (0.8 ms)
//   ├── backward  [5, 8 ms)        fc2 (0.8 ms), act1 (0.3 ms), fc1 (1.3 ms, two GEMMs)
//   ├── loss_scale [8, 8.5 ms)     0.3 ms
//   └── optimizer [8.5, 9.5 ms)    0.8 ms; absent in the skipped step 3
// followed by an `evaluate` range holding one malformed layer range. Host ops are kernels on a
// CPU device with a zero-length launch call at their start on the training thread. Counters and
// gradient bins follow the trainer's names; step 3 overflows (skipped, the scale halves from
// 65536 to 32768 at step 4). fc1.weight loses 2.5% of its gradient values to FP16 underflow
// (2% a step, 5% in the last step), fc2.weight none. The collector lost two ranges still open at exit.
// Memory events as the trainer reports them (addresses, its totals, bytes as the GPU stores each
// dtype): the weights and momentum (636,080 bytes) were made before these events; each step
// uploads its FP32 batch, casts the weights to FP16 and keeps them with the activations for the
// backward, which makes FP32 weight gradients that the optimizer frees (the skipped step's die at
// the step's end); the evaluation holds 50,000 bytes for 0.4 ms.

#include <cstdint>
#include <string>

#include "analyzer/normalise/range_normaliser.h"
#include "trace/trace_model.h"

namespace ampscope::test {

inline constexpr std::int64_t kTrainerStepNs = 10'000'000;
inline constexpr int kTrainerSteps = 6;
inline constexpr int kTrainerSkippedStep = 3;

class TrainerCpuTraceBuilder {
 public:
  // The trace as the importer returns it: sorted by time, its range texts read.
  trace::Trace build() {
    trace::Trace trace = record();
    trace.sortByTime();
    analyzer::import::normaliseRanges(trace);
    return trace;
  }

  // The trace as the collector writes it into a profile: in the order it was recorded, the range
  // texts not yet read (the importer reads them).
  trace::Trace record() {
    trace_.format = trace::TraceFormat::kAmpscope;
    trace_.source_format = trace::TraceFormat::kAmpscope;
    trace_.format_detail = "ampscope profile (test)";
    trace::Device cpu;
    cpu.id = 0;
    cpu.kind = trace::DeviceKind::kCpu;
    cpu.name = trace_.strings.intern("CPU: Test CPU (2 threads)");
    trace_.devices.push_back(cpu);
    main_ = trace_.threadIndex(100, 100);
    for (int step = 0; step < kTrainerSteps; ++step) addStep(step);
    const std::int64_t end = kTrainerSteps * kTrainerStepNs;
    range("evaluate", end, end + 1'000'000);
    memory(end + kMs / 2, 50'000, 0xE000);
    memory(end + 9 * kMs / 10, -50'000, 0xE000);
    // The closing bracket is missing: left as an annotation and counted, never a crash.
    range("fc1 linear forward in=[64,784 params=[[100,784],[100]] out=[64,100] dtype=float16", end + 100'000,
          end + 200'000);
    trace_.import_stats.lost["NVTX ranges still open at exit"] = 2;
    return std::move(trace_);
  }

 private:
  static constexpr std::int64_t kMs = 1'000'000;

  void range(const std::string& text, std::int64_t start, std::int64_t end) {
    trace::Range r;
    r.start_ns = start;
    r.end_ns = end;
    r.name = trace_.strings.intern(text);
    r.thread = main_;
    r.kind = trace::RangeKind::kAnnotation;
    r.domain = trace_.strings.intern("ampscope");
    trace_.ranges.push_back(r);
  }

  void hostOp(const std::string& name, std::int64_t start, std::int64_t end) {
    const std::uint64_t correlation = ++correlation_;
    trace::LaunchCall launch;
    launch.start_ns = start;
    launch.end_ns = start;
    launch.correlation_id = correlation;
    launch.name = trace_.strings.intern("cpu op");
    launch.thread = main_;
    trace_.launches.push_back(launch);
    trace::Kernel kernel;
    kernel.start_ns = start;
    kernel.end_ns = end;
    kernel.correlation_id = correlation;
    kernel.name = trace_.strings.intern(name);
    kernel.device = 0;
    trace_.kernels.push_back(kernel);
  }

  // A layer op range [start, end) whose host op runs from 0.1 ms in to 0.1 ms before its end.
  void layer(const std::string& text, const std::string& op, std::int64_t start, std::int64_t end) {
    range(text, start, end);
    hostOp(op, start + kMs / 10, end - kMs / 10);
  }

  // An allocation (bytes > 0) or free of the block at address, with the trainer's totals.
  void memory(std::int64_t time_ns, std::int64_t bytes, std::uint64_t address) {
    static constexpr std::int64_t kBeforeEvents = 636'080;  // FP32 weights and SGD momentum
    static constexpr std::int64_t kReserved = 2 * 1024 * 1024;
    allocated_ += bytes;
    trace::MemoryEvent e;
    e.time_ns = time_ns;
    e.bytes = bytes;
    e.address = address;
    e.total_allocated = kBeforeEvents + allocated_;
    e.total_reserved = kReserved;
    e.device_kind = trace::DeviceKind::kCpu;
    e.device = 0;
    e.thread = main_;
    e.pid = 100;
    trace_.memory_events.push_back(e);
  }

  // One step's tensors, in the order the trainer makes and frees them (times from the step's start).
  void stepMemory(std::int64_t t, bool skipped) {
    const auto at = [t](double ms) { return t + static_cast<std::int64_t>(ms * static_cast<double>(kMs)); };
    memory(at(0.5), 200'704, 0xA000);     // the batch, [64,784] FP32, in data
    memory(at(2.05), 156'800, 0xB000);    // fc1's weight cast to FP16
    memory(at(2.5), 12'800, 0xB100);      // fc1's output [64,100] FP16
    memory(at(3.2), 12'800, 0xB200);      // act1's output
    memory(at(3.6), 2'000, 0xB300);       // fc2's weight cast to FP16
    memory(at(4.0), 1'280, 0xB400);       // fc2's output [64,10] FP16
    memory(at(5.1), -1'280, 0xB400);
    memory(at(5.5), 4'000, 0xC000);       // fc2.weight's FP32 gradient
    memory(at(5.6), 12'800, 0xC100);      // fc2's input gradient
    memory(at(5.9), -12'800, 0xB200);
    memory(at(5.95), -2'000, 0xB300);
    memory(at(6.2), 12'800, 0xC200);      // act1's input gradient
    memory(at(6.3), -12'800, 0xC100);
    memory(at(6.4), -12'800, 0xB100);
    memory(at(7.0), 313'600, 0xC300);     // fc1.weight's FP32 gradient
    memory(at(7.5), -12'800, 0xC200);
    memory(at(7.95), -156'800, 0xB000);
    const double gradients_freed = skipped ? 9.9 : 9.3;  // by the optimizer, or at the skipped step's end
    memory(at(gradients_freed), -4'000, 0xC000);
    memory(at(gradients_freed + 0.01), -313'600, 0xC300);
    memory(at(9.9), -200'704, 0xA000);
  }

  void counter(const std::string& name, int step, double value) {
    trace::Counter c;
    c.name = trace_.strings.intern(name);
    c.step = step;
    c.time_ns = step * kTrainerStepNs + 8 * kMs;
    c.value = value;
    trace_.counters.push_back(c);
  }

  void bin(const std::string& tensor, int step, std::int32_t exponent, std::uint64_t count) {
    trace::GradientBin b;
    b.step = step;
    b.time_ns = step * kTrainerStepNs + 8 * kMs;
    b.tensor = trace_.strings.intern(tensor);
    b.exponent = exponent;
    b.count = count;
    trace_.gradient_bins.push_back(b);
  }

  void addStep(int step) {
    const std::int64_t t = step * kTrainerStepNs;
    const std::string fc1 = " in=[64,784] params=[[100,784],[100]] out=[64,100] dtype=float16 gemm=64,100,784";
    const std::string act1 = " in=[64,100] params=[] out=[64,100] dtype=float16";
    const std::string fc2 = " in=[64,100] params=[[10,100],[10]] out=[64,10] dtype=float16 gemm=64,10,100";
    range("step " + std::to_string(step), t, t + kTrainerStepNs);
    range("data", t, t + 2 * kMs);
    range("batch " + std::to_string(step), t + kMs / 10, t + 2 * kMs - kMs / 10);
    range("forward", t + 2 * kMs, t + 5 * kMs);
    layer("fc1 linear forward" + fc1, "cpu gemm float16 64x100x784 NT", t + 2 * kMs, t + 3 * kMs);
    layer("act1 relu forward" + act1, "cpu relu forward", t + 3 * kMs, t + 3 * kMs + kMs / 2);
    layer("fc2 linear forward" + fc2, "cpu gemm float16 64x10x100 NT", t + 3 * kMs + kMs / 2, t + 4 * kMs + kMs / 2);
    range("backward", t + 5 * kMs, t + 8 * kMs);
    layer("fc2 linear backward" + fc2, "cpu gemm float16 64x100x10 NN", t + 5 * kMs, t + 6 * kMs);
    layer("act1 relu backward" + act1, "cpu relu backward", t + 6 * kMs, t + 6 * kMs + kMs / 2);
    // fc1's backward runs the data and the weight GEMM: 0.6 + 0.7 ms.
    range("fc1 linear backward" + fc1, t + 6 * kMs + kMs / 2, t + 8 * kMs);
    hostOp("cpu gemm float16 64x784x100 NN", t + 6 * kMs + 6 * kMs / 10, t + 7 * kMs + 2 * kMs / 10);
    hostOp("cpu gemm float16 100x784x64 TN", t + 7 * kMs + 2 * kMs / 10, t + 7 * kMs + 9 * kMs / 10);
    range("loss_scale", t + 8 * kMs, t + 8 * kMs + kMs / 2);
    hostOp("cpu unscale float32", t + 8 * kMs + kMs / 10, t + 8 * kMs + 4 * kMs / 10);
    const bool skipped = step == kTrainerSkippedStep;
    if (!skipped) {
      range("optimizer", t + 8 * kMs + kMs / 2, t + 9 * kMs + kMs / 2);
      hostOp("cpu sgd update float32", t + 8 * kMs + 6 * kMs / 10, t + 9 * kMs + 4 * kMs / 10);
    }

    stepMemory(t, skipped);
    counter("loss", step, 2.3 - 0.1 * step);
    counter("loss_scale", step, step <= kTrainerSkippedStep ? 65536.0 : 32768.0);
    counter("skipped_step", step, skipped ? 1.0 : 0.0);
    counter("learning_rate", step, 0.05);
    if (!skipped) counter("gradient_norm", step, 1.5);
    // fc1.weight: 78,400 values a step, 1,000 zeros; 1,568 (2%) underflow, 3,920 (5%) in the last step.
    counter("gradient_values/fc1.weight", step, 78'400);
    counter("gradient_zeros/fc1.weight", step, 1'000);
    counter("gradient_underflow/fc1.weight", step, step == kTrainerSteps - 1 ? 3'920 : 1'568);
    counter("gradient_non_finite/fc1.weight", step, skipped ? 5 : 0);
    counter("gradient_values/fc2.weight", step, 1'000);
    counter("gradient_zeros/fc2.weight", step, 0);
    counter("gradient_underflow/fc2.weight", step, 0);
    counter("gradient_non_finite/fc2.weight", step, 0);
    // Magnitudes: fc1.weight in [2^-45, 2^-4), fc2.weight in [2^-12, 2^-2): the largest fits
    // FP16 up to a scale of 2^17, where fc1.weight's 2^-45 bin (2% of its values) still underflows.
    bin("fc1.weight", step, -45, 1'568);
    bin("fc1.weight", step, -10, 74'832);  // with the 1,000 zeros: 78,400
    bin("fc1.weight", step, -5, 1'000);
    bin("fc2.weight", step, -12, 500);
    bin("fc2.weight", step, -3, 500);
  }

  trace::Trace trace_;
  trace::Index main_ = trace::kNone;
  std::uint64_t correlation_ = 0;
  std::int64_t allocated_ = 0;
};

inline trace::Trace trainerCpuTrace() { return TrainerCpuTraceBuilder().build(); }
inline trace::Trace trainerCpuRecording() { return TrainerCpuTraceBuilder().record(); }

}  // namespace ampscope::test
