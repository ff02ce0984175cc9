// Timeline benchmark: can the timeline draw a trace of a million events smoothly?
//
//   ampscope_timeline_bench [--events N] [--frames N] [--png DIR]
//
// Builds a synthetic training trace of about N events (default 1,000,000): kernels on a compute,
// a communication and a side stream, host-to-device copies, and nested NVTX/operator ranges on a
// main, an autograd and a data-loader thread, linked the way the analyzer's correlator links them
// (launch call -> kernel -> operator range -> layer range), and the analyzer's launch queue of
// its streams (about two depth changes per kernel) as the timeline's counter lanes. Times the timeline's index build and reports its
// memory, then renders frames offscreen at 1920x1080 with TimelineView::renderFrame (the widget's
// own paint code): the whole trace fitted, zoomed to 1% and to 0.01%, a pan at 1% and a wheel zoom
// from the whole trace down to 0.01%. Prints ms per frame (median and max) per case against the
// 16 ms goal of a 60 Hz display, and the thread's CPU time per frame (median), which on a shared
// machine separates the frame's cost from time spent waiting for a core. --png writes each
// case's last frame there. MB is 10^6 bytes.

#include <time.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <QApplication>
#include <QImage>
#include <QString>

#include "analyzer/correlate/iterations.h"
#include "analyzer/steps/launch_queue.h"
#include "bench/process_memory.h"
#include "bench/stopwatch.h"
#include "gui/timeline/timeline_index.h"
#include "gui/timeline/timeline_view.h"
#include "trace/trace_model.h"

namespace {

using ampscope::bench::currentRssBytes;
using ampscope::bench::megabytes;
using ampscope::bench::Stopwatch;
namespace trace = ampscope::trace;
namespace gui = ampscope::gui;

constexpr double kGoalMs = 16.0;
constexpr int kWidth = 1920;
constexpr int kHeight = 1080;
constexpr int kLayers = 24;

struct KernelKind {
  const char* name;
  std::int64_t min_ns;
  std::int64_t max_ns;
};

// Names as cuBLAS, cuDNN, PyTorch and NCCL print them: Tensor Core GEMMs, a CUDA-core GEMM,
// elementwise and normalisation kernels, the optimizer's multi-tensor kernel, an all-reduce.
constexpr std::array<KernelKind, 9> kKinds = {{
    {"ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_64x3_nn", 40'000, 400'000},
    {"sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
     30'000, 300'000},
    {"void cutlass::Kernel<cutlass_80_simt_sgemm_128x128_8x4_nn_align1>(cutlass_80_simt_sgemm_128x128_8x4_nn_align1::Params)",
     60'000, 500'000},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
     "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda(c10::Half)#1}, at::detail::Array<char*, 2> >",
     3'000, 30'000},
    {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::Half, float>(int, float, "
     "c10::Half const*, c10::Half const*, c10::Half const*, float*, float*, c10::Half*)",
     4'000, 40'000},
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
     "at::native::sum_functor<float, float, float>::operator()>, unsigned int, float, 4> >",
     5'000, 60'000},
    {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
     "namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4>>",
     20'000, 120'000},
    {"ncclDevKernel_AllReduce_Sum_f16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", 300'000, 2'000'000},
    {"void at::native::unrolled_elementwise_kernel<at::native::MulFunctor<float>, at::detail::Array<char*, 3> >",
     2'000, 10'000},
}};

// Builds the trace step by step. The host runs ahead of the GPU by launch latency and waits for it
// at each step's end, as a training loop with a loss.item() does.
class SyntheticTimeline {
 public:
  explicit SyntheticTimeline(std::size_t target_events) : target_(target_events) {
    trace::Device gpu;
    gpu.name = t_.strings.intern("NVIDIA A100-SXM4-80GB");
    gpu.compute_major = 8;
    gpu.sm_count = 108;
    t_.devices.push_back(gpu);
    t_.threads.push_back({1, 4242, t_.strings.intern("python")});
    t_.threads.push_back({1, 4250, t_.strings.intern("pt_autograd_0")});
    t_.threads.push_back({1, 4261, t_.strings.intern("pt_data_worker")});
    for (const KernelKind& kind : kKinds) kernel_names_.push_back(t_.strings.intern(kind.name));
    launch_name_ = t_.strings.intern("cudaLaunchKernel");
    for (int l = 0; l < kLayers; ++l) layer_names_.push_back(t_.strings.intern(fmt::format("encoder.layers.{}", l)));
  }

  trace::Trace build() {
    // Counts what the timeline draws: the launch calls are there for the queue lanes only.
    for (int step = 0; t_.kernels.size() + t_.memory_ops.size() + t_.ranges.size() < target_; ++step) addStep(step);
    return std::move(t_);
  }

 private:
  static constexpr std::uint32_t kComputeStream = 7;
  static constexpr std::uint32_t kNcclStream = 13;
  static constexpr std::uint32_t kCopyStream = 14;

  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_);
  }

  trace::Index openRange(const std::string& name, trace::Index thread, std::int64_t start,
                         trace::Index parent, trace::Phase phase, trace::StringId layer = 0) {
    trace::Range r;
    r.name = t_.strings.intern(name);
    r.start_ns = start;
    r.end_ns = start;
    r.thread = thread;
    r.kind = parent == trace::kNone ? trace::RangeKind::kAnnotation : trace::RangeKind::kOperator;
    r.phase = phase;
    r.layer = layer;
    r.parent = parent;
    r.depth = static_cast<std::uint8_t>(parent == trace::kNone ? 0 : t_.ranges[static_cast<std::size_t>(parent)].depth + 1);
    t_.ranges.push_back(r);
    return static_cast<trace::Index>(t_.ranges.size() - 1);
  }
  void closeRange(trace::Index range, std::int64_t end) { t_.ranges[static_cast<std::size_t>(range)].end_ns = end; }

  // An operator range on a thread launching kernels of the given kinds; returns the host time after.
  std::int64_t op(const char* name, trace::Index thread, std::int64_t host, trace::Index parent,
                  trace::Phase phase, std::initializer_list<std::size_t> kinds,
                  std::uint32_t stream = kComputeStream) {
    const trace::Index range = openRange(name, thread, host, parent, phase);
    host += between(2'000, 6'000);
    for (const std::size_t kind : kinds) {
      trace::LaunchCall call;
      call.start_ns = host;
      host += between(4'000, 9'000);  // the launch call
      call.end_ns = host;
      call.correlation_id = correlation_ + 1;
      call.name = launch_name_;
      call.thread = thread;
      t_.launches.push_back(call);
      std::int64_t& gpu = stream == kNcclStream ? nccl_gpu_ : compute_gpu_;
      trace::Kernel k;
      k.launch = static_cast<trace::Index>(t_.launches.size() - 1);
      k.pid = 1;
      k.name = kernel_names_[kind];
      k.stream = stream;
      k.start_ns = std::max(gpu + between(1'000, 3'000), host + 3'000);
      k.end_ns = k.start_ns + between(kKinds[kind].min_ns, kKinds[kind].max_ns);
      k.correlation_id = ++correlation_;
      k.grid = {static_cast<std::uint32_t>(between(8, 2048)), 1, 1};
      k.block = {256, 1, 1};
      k.op_range = range;
      gpu = k.end_ns;
      t_.kernels.push_back(k);
    }
    host += between(1'000, 4'000);
    closeRange(range, host);
    return host;
  }

  void addStep(int step) {
    std::int64_t host = std::max({host_, compute_gpu_, nccl_gpu_}) + between(20'000, 60'000);
    const trace::Index step_range = openRange(fmt::format("ProfilerStep#{}", step), 0, host, trace::kNone,
                                              trace::Phase::kStep);
    // The data loader prepared this batch during the previous step; its copy starts the step.
    const std::int64_t load_start = host - between(4'000'000, 9'000'000);
    const trace::Index load = openRange("DataLoader.__next__", 2, std::max<std::int64_t>(0, load_start),
                                        trace::kNone, trace::Phase::kData);
    const trace::Index collate = openRange("collate", 2, t_.ranges[static_cast<std::size_t>(load)].start_ns +
                                                             between(100'000, 500'000), load, trace::Phase::kData);
    closeRange(collate, host - between(200'000, 900'000));
    closeRange(load, host - between(50'000, 150'000));
    trace::MemoryOp copy;
    copy.start_ns = std::max(compute_gpu_, host + 10'000);
    copy.end_ns = copy.start_ns + between(150'000, 400'000);
    copy.bytes = 8'388'608;
    copy.stream = kCopyStream;
    copy.direction = trace::CopyDirection::kHostToDevice;
    copy.src_kind = trace::MemoryKind::kPinned;
    copy.dst_kind = trace::MemoryKind::kDevice;
    t_.memory_ops.push_back(copy);
    compute_gpu_ = std::max(compute_gpu_, copy.end_ns);
    host += 20'000;

    const trace::Index forward = openRange("forward", 0, host, step_range, trace::Phase::kForward);
    for (int l = 0; l < kLayers; ++l) {
      const trace::Index layer = openRange(fmt::format("encoder.layers.{}", l), 0, host + 1'000, forward,
                                           trace::Phase::kForward, layer_names_[static_cast<std::size_t>(l)]);
      host += 2'000;
      host = op("aten::layer_norm", 0, host, layer, trace::Phase::kForward, {4});
      host = op("aten::linear", 0, host, layer, trace::Phase::kForward, {l % 6 == 5 ? 2U : 0U});
      host = op("aten::gelu", 0, host, layer, trace::Phase::kForward, {3});
      host = op("aten::linear", 0, host, layer, trace::Phase::kForward, {1});
      closeRange(layer, host += 2'000);
    }
    host = op("aten::cross_entropy_loss", 0, host, forward, trace::Phase::kForward, {5, 8});
    closeRange(forward, host += 5'000);

    // Backward runs on the autograd thread, layers in reverse, with an all-reduce every 4 layers.
    std::int64_t autograd = host + 20'000;
    const trace::Index backward = openRange("backward", 1, autograd, trace::kNone, trace::Phase::kBackward);
    autograd += 5'000;
    for (int l = kLayers - 1; l >= 0; --l) {
      const trace::Index layer = openRange(fmt::format("encoder.layers.{}", l), 1, autograd, backward,
                                           trace::Phase::kBackward, layer_names_[static_cast<std::size_t>(l)]);
      autograd += 2'000;
      autograd = op("AddmmBackward0", 1, autograd, layer, trace::Phase::kBackward, {1, 0});
      autograd = op("GeluBackward0", 1, autograd, layer, trace::Phase::kBackward, {3, 8});
      autograd = op("AddmmBackward0", 1, autograd, layer, trace::Phase::kBackward, {0, l % 6 == 5 ? 2U : 1U});
      autograd = op("NativeLayerNormBackward0", 1, autograd, layer, trace::Phase::kBackward, {4, 5});
      if (l % 4 == 0) {
        nccl_gpu_ = std::max(nccl_gpu_, compute_gpu_);
        autograd = op("nccl:all_reduce", 1, autograd, layer, trace::Phase::kBackward, {7}, kNcclStream);
      }
      closeRange(layer, autograd += 2'000);
    }
    closeRange(backward, autograd += 5'000);

    host = std::max(host, autograd) + 10'000;
    const trace::Index optimizer = openRange("Optimizer.step#AdamW.step", 0, host, step_range, trace::Phase::kOptimizer);
    host += 5'000;
    for (int group = 0; group < 8; ++group) {
      host = op("aten::_fused_adamw_", 0, host, optimizer, trace::Phase::kOptimizer, {6});
    }
    closeRange(optimizer, host += 5'000);
    // loss.item(): the host waits for the GPU.
    host = std::max({host, compute_gpu_, nccl_gpu_}) + between(10'000, 30'000);
    closeRange(step_range, host);
    host_ = host;
  }

  std::size_t target_;
  trace::Trace t_;
  std::mt19937_64 rng_{20240611};
  std::vector<trace::StringId> kernel_names_;
  std::vector<trace::StringId> layer_names_;
  std::int64_t host_ = 1'700'000'000'000'000'000;  // CUPTI-like absolute timestamps
  std::int64_t compute_gpu_ = 0;
  std::int64_t nccl_gpu_ = 0;
  std::uint64_t correlation_ = 0;
  trace::StringId launch_name_ = trace::StringTable::kEmpty;
};

// CPU time of this thread, in ms: unlike wall time it leaves out the time other processes held
// the cores, which on a shared machine tells the frame's own cost apart from waiting.
double threadCpuMs() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

struct CaseResult {
  std::vector<double> ms;
  std::vector<double> cpu_ms;
  double items = 0.0;
  double labels = 0.0;
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

// Renders one frame per window the step function sets, timing each.
template <typename Step>
CaseResult runCase(gui::TimelineView& view, QImage& image, int frames, Step step) {
  CaseResult result;
  for (int frame = 0; frame < frames; ++frame) {
    step(frame);
    const double cpu_start = threadCpuMs();
    const Stopwatch watch;
    const gui::TimelineFrameStats stats = view.renderFrame(image);
    result.ms.push_back(watch.seconds() * 1e3);
    result.cpu_ms.push_back(threadCpuMs() - cpu_start);
    result.items += static_cast<double>(stats.items) / frames;
    result.labels += static_cast<double>(stats.labels) / frames;
  }
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t events = 1'000'000;
  int frames = 30;
  std::string png_dir;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--events" && i + 1 < argc) {
      events = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--frames" && i + 1 < argc) {
      frames = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--png" && i + 1 < argc) {
      png_dir = argv[++i];
    } else {
      fmt::print(stderr, "usage: ampscope_timeline_bench [--events N] [--frames N] [--png DIR]\n");
      return 2;
    }
  }
  // Frames are rendered into images: no display is needed, and none is used when there is one.
  setenv("QT_QPA_PLATFORM", "offscreen", 0);
  QApplication app(argc, argv);

  const Stopwatch build_watch;
  auto trace = std::make_shared<const trace::Trace>(SyntheticTimeline(events).build());
  const double build_trace_s = build_watch.seconds();
  const double span_ns = static_cast<double>(
      std::max_element(trace->ranges.begin(), trace->ranges.end(), [](const auto& a, const auto& b) {
        return a.end_ns < b.end_ns;
      })->end_ns - trace->ranges.front().start_ns);
  double load[1] = {0.0};
  getloadavg(load, 1);
  fmt::print("ampscope timeline benchmark: offscreen frames of {}x{}, goal < {:.0f} ms per frame; "
             "{} cores, load average {:.2f}\n",
             kWidth, kHeight, kGoalMs, std::thread::hardware_concurrency(), load[0]);
  fmt::print("trace: {} events (kernels {}, memory ops {}, ranges {}) over {:.1f} s, {:.1f} MB, made in {:.2f} s\n",
             trace->eventCount(), trace->kernels.size(), trace->memory_ops.size(), trace->ranges.size(),
             span_ns / 1e9, megabytes(trace->memoryBytes()), build_trace_s);

  // The queue lanes show the analyzer's measurement, made once when the run loads (not the
  // timeline's cost): timed apart.
  const Stopwatch queue_watch;
  auto queue = std::make_shared<const ampscope::analyzer::LaunchQueue>(
      ampscope::analyzer::measureLaunchQueue(*trace, ampscope::analyzer::findIterations(*trace)));
  std::size_t queue_points = 0;
  for (const auto& stream : queue->streams) queue_points += stream.points.size();
  fmt::print("launch queue (the analyzer's): {} streams, {} depth changes, measured in {:.0f} ms\n",
             queue->streams.size(), queue_points, queue_watch.seconds() * 1e3);

  const std::uint64_t rss_before = currentRssBytes();
  const Stopwatch index_watch;
  auto index = std::make_shared<const gui::TimelineIndex>(trace, queue);
  const double index_ms = index_watch.seconds() * 1e3;
  const std::uint64_t rss_after = currentRssBytes();
  fmt::print("index: built in {:.1f} ms; {} lanes ({} of queue depth), {} rows; {:.1f} MB ({:.1f} bytes per event); "
             "RSS +{:.1f} MB\n",
             index_ms, index->lanes().size(), index->counters().size(), index->rows().size(),
             megabytes(index->memoryBytes()),
             static_cast<double>(index->memoryBytes()) / static_cast<double>(index->eventCount()),
             megabytes(rss_after > rss_before ? rss_after - rss_before : 0));

  gui::TimelineView view;
  view.resize(kWidth, kHeight);
  view.setIndex(index);
  QImage image(kWidth, kHeight, QImage::Format_ARGB32_Premultiplied);
  const double fit_start = view.windowStartNs();
  const double fit_end = view.windowEndNs();
  const double total = static_cast<double>(index->endNs() - index->startNs());
  const auto zoomed = [&](double fraction, double centre) {
    return [&view, &total, fraction, centre](int) {
      view.setWindow(centre * total - fraction * total / 2, centre * total + fraction * total / 2);
    };
  };

  struct Case {
    std::string name;
    CaseResult result;
  };
  std::vector<Case> cases;
  cases.push_back({"whole trace fitted", runCase(view, image, frames, [&](int) { view.setWindow(fit_start, fit_end); })});
  if (!png_dir.empty()) image.save(QString::fromStdString(png_dir + "/timeline_fit.png"));
  cases.push_back({"zoomed to 1%", runCase(view, image, frames, zoomed(0.01, 0.5))});
  if (!png_dir.empty()) image.save(QString::fromStdString(png_dir + "/timeline_1pct.png"));
  cases.push_back({"zoomed to 0.01%", runCase(view, image, frames, zoomed(0.0001, 0.5))});
  if (!png_dir.empty()) image.save(QString::fromStdString(png_dir + "/timeline_001pct.png"));
  const int pan_frames = std::max(frames, 120);
  view.setWindow(0.2 * total, 0.21 * total);
  cases.push_back({"pan at 1%, 48 px per frame", runCase(view, image, pan_frames, [&](int) { view.panByPixels(48, 0); })});
  if (!png_dir.empty()) image.save(QString::fromStdString(png_dir + "/timeline_pan.png"));
  view.setWindow(fit_start, fit_end);
  const double cursor_x = gui::TimelinePainter::kLabelWidth + 0.37 * (kWidth - gui::TimelinePainter::kLabelWidth);
  cases.push_back({"wheel zoom, whole trace to 0.01%", runCase(view, image, 42, [&](int) {
                     view.zoomAt(0.8, cursor_x);
                   })});
  if (!png_dir.empty()) image.save(QString::fromStdString(png_dir + "/timeline_wheel.png"));

  fmt::print("{:<34} {:>6} {:>10} {:>8} {:>14} {:>12} {:>13}  {}\n", "case", "frames", "median ms", "max ms",
             "median cpu ms", "items/frame", "labels/frame", "goal (max < 16 ms)");
  bool all_met = true;
  for (const Case& c : cases) {
    const double med = median(c.result.ms);
    const double max = *std::max_element(c.result.ms.begin(), c.result.ms.end());
    const bool met = max < kGoalMs;
    all_met = all_met && met;
    fmt::print("{:<34} {:>6} {:>10.2f} {:>8.2f} {:>14.2f} {:>12.0f} {:>13.0f}  {}\n", c.name, c.result.ms.size(),
               med, max, median(c.result.cpu_ms), c.result.items, c.result.labels,
               met ? "met" : med < kGoalMs ? "median met, max missed" : "MISSED");
  }
  fmt::print("goal of < {:.0f} ms per frame {} in every frame of every case\n", kGoalMs, all_met ? "met" : "NOT met");
  return 0;
}
