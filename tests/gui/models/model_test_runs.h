#pragma once
// Analyzed runs for the model tests, built in code: the trainer's CPU profile
// (tests/analyzer/trainer_cpu_trace.h) and a GPU run shaped like `ampscope train --profile` on
// an A100, two steps of four layers chosen so that each colour state has one layer:
//   embed  linear fp16  64x256x512      FP16 Tensor Core GEMM, 1.0 ms + 0.1 ms bias add  fine
//   act    relu                          elementwise 0.45 ms                              fine (not eligible)
//   proj   linear fp16  64x33278x200    FP16 Tensor Core GEMM _align1, 4.5 ms            misaligned (N)
//   head   linear fp32  64x128x256      FP32 SIMT GEMM 5.0 ms + 0.2 ms bias add;         eligible, not on
//                                        backward: two SIMT GEMMs, 1.0 + 1.5 ms           Tensor Cores
// Per row over both steps: act 900 us, embed 2.2 ms, head backward 5 ms, proj 9 ms, head
// forward 10.4 ms; as text ("10.40 ms" < "2.20 ms" < ... < "900.0 us") they sort otherwise.
// The bias add kernel runs in embed and head.

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

#include "analyzer/normalise/range_normaliser.h"
#include "analyzer/run_analysis.h"
#include "tests/analyzer/trainer_cpu_trace.h"
#include "trace/trace_model.h"

namespace ampscope::test {

inline constexpr const char* kTensorCoreGemm = "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn";
inline constexpr const char* kMisalignedGemm = "cutlass_tensorop_h16816gemm_256x128_32x3_nt_align1";
inline constexpr const char* kSimtGemm = "ampere_sgemm_128x64_tn";
inline constexpr const char* kSimtGemmBackward = "ampere_sgemm_64x64_nn";
inline constexpr const char* kSimtGemmWeight = "ampere_sgemm_32x128_nt";
inline constexpr const char* kRelu = "void at::native::vectorized_elementwise_kernel<4, at::native::threshold_kernel_impl>";
inline constexpr const char* kBiasAdd = "void at::native::elementwise_kernel<128, 4, at::native::AddFunctor<float>>";

class GpuLayersTraceBuilder {
 public:
  trace::Trace build() {
    trace_.format = trace::TraceFormat::kAmpscope;
    trace_.source_format = trace::TraceFormat::kAmpscope;
    trace::Device gpu;
    gpu.name = trace_.strings.intern("NVIDIA A100-SXM4-80GB");
    gpu.compute_major = 8;
    gpu.compute_minor = 0;
    gpu.sm_count = 108;
    trace_.devices.push_back(gpu);
    thread_ = trace_.threadIndex(200, 200);
    for (int step = 0; step < 2; ++step) addStep(step);
    trace_.sortByTime();
    return std::move(trace_);
  }

 private:
  static constexpr std::int64_t kUs = 1'000;
  static constexpr std::int64_t kStepNs = 40'000 * kUs;

  void range(const std::string& text, std::int64_t start, std::int64_t end) {
    trace::Range r;
    r.start_ns = start;
    r.end_ns = end;
    r.name = trace_.strings.intern(text);
    r.thread = thread_;
    r.kind = trace::RangeKind::kAnnotation;
    r.domain = trace_.strings.intern("ampscope");
    trace_.ranges.push_back(r);
  }

  // Launched at launch_ns, running for duration_ns from when the GPU reaches it (gpu_ns_).
  void kernel(const char* name, std::int64_t launch_ns, std::int64_t duration_ns) {
    trace::LaunchCall launch;
    launch.start_ns = launch_ns;
    launch.end_ns = launch_ns + 5 * kUs;
    launch.correlation_id = ++correlation_;
    launch.name = trace_.strings.intern("cudaLaunchKernel");
    launch.thread = thread_;
    trace_.launches.push_back(launch);
    trace::Kernel k;
    k.start_ns = std::max(gpu_ns_, launch_ns + 10 * kUs);
    k.end_ns = k.start_ns + duration_ns;
    k.correlation_id = launch.correlation_id;
    k.name = trace_.strings.intern(name);
    k.stream = 7;
    trace_.kernels.push_back(k);
    gpu_ns_ = k.end_ns;
  }

  // One layer op range of 100 us on the host; its kernels launch 10 us apart inside it.
  void layer(const std::string& text, std::int64_t& t, std::initializer_list<std::pair<const char*, std::int64_t>> kernels) {
    range(text, t, t + 100 * kUs);
    std::int64_t launch = t + 10 * kUs;
    for (const auto& [name, duration] : kernels) {
      kernel(name, launch, duration);
      launch += 10 * kUs;
    }
    t += 100 * kUs;
  }

  void addStep(int step) {
    const std::string embed = " in=[64,512] params=[[256,512],[256]] out=[64,256] dtype=float16 gemm=64,256,512";
    const std::string act = " in=[64,256] params=[] out=[64,256] dtype=float16";
    const std::string proj = " in=[64,200] params=[[33278,200],[33278]] out=[64,33278] dtype=float16 gemm=64,33278,200";
    const std::string head = " in=[64,256] params=[[128,256],[128]] out=[64,128] dtype=float32 gemm=64,128,256";
    std::int64_t t = step * kStepNs;
    gpu_ns_ = std::max(gpu_ns_, t);
    range("step " + std::to_string(step), t, t + kStepNs);
    range("forward", t, t + 400 * kUs);
    layer("embed linear forward" + embed, t, {{kTensorCoreGemm, 1'000 * kUs}, {kBiasAdd, 100 * kUs}});
    layer("act relu forward" + act, t, {{kRelu, 450 * kUs}});
    layer("proj linear forward" + proj, t, {{kMisalignedGemm, 4'500 * kUs}});
    layer("head linear forward" + head, t, {{kSimtGemm, 5'000 * kUs}, {kBiasAdd, 200 * kUs}});
    range("backward", t, t + 100 * kUs);
    layer("head linear backward" + head, t, {{kSimtGemmBackward, 1'000 * kUs}, {kSimtGemmWeight, 1'500 * kUs}});
  }

  trace::Trace trace_;
  trace::Index thread_ = trace::kNone;
  std::uint64_t correlation_ = 0;
  std::int64_t gpu_ns_ = 0;
};

// What analyzeFile does with a trace: its range texts read as the importers read them, then
// correlate, summarize, recommend.
inline analyzer::RunAnalysis analyzeInMemory(trace::Trace trace) {
  analyzer::import::normaliseRanges(trace);
  return analyzer::analyzeTrace(std::move(trace), "(built in the test)");
}

inline analyzer::RunAnalysis gpuLayersRun() { return analyzeInMemory(GpuLayersTraceBuilder().build()); }

// The same run with hardware counters, filled as the counter analysis (analyzer/counters/) fills
// them: the Tensor Core GEMM measured with the tensor pipe 72% busy, the FP32 SIMT GEMM measured
// idle (0%), the rest not measured; embed forward 65% over its 2 ms GEMM time, head forward 0%.
inline analyzer::RunAnalysis gpuLayersRunWithCounters() {
  analyzer::RunAnalysis run = gpuLayersRun();
  analyzer::TraceSummary& s = run.summary;
  for (analyzer::KernelRow& row : s.kernels) {
    if (row.name == kTensorCoreGemm) row.measured_tensor_active = 0.72;
    if (row.name == kSimtGemm) row.measured_tensor_active = 0.0;
    if (row.measured_tensor_active) {
      row.measured_tensor_ns = row.time_ns;
      s.counters.kernels.push_back({.kernel = row.name, .ranges = row.calls, .matched = row.calls, .totals = {},
                                    .time_ns = row.time_ns, .tensor_active = row.measured_tensor_active,
                                    .measured_ns = row.time_ns, .source = analyzer::MeasurementSource::kPerKernel,
                                    .basis = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
                                    .cuda_core_ops = std::nullopt});
    }
  }
  for (analyzer::LayerRow& row : s.layer_table.rows) {
    if (row.pass != trace::Phase::kForward) continue;
    if (row.layer == "embed") row.measured_tensor_active = 0.65;
    if (row.layer == "head") row.measured_tensor_active = 0.0;
    if (row.measured_tensor_active) row.measured_tensor_ns = 2'000'000;
  }
  return run;
}
inline analyzer::RunAnalysis trainerCpuRun() { return analyzeInMemory(trainerCpuTrace()); }

}  // namespace ampscope::test
