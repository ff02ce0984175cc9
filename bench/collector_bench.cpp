// The collector's costs: what an NVTX push+pop costs the program's thread with ampscope's tool
// attached (goal: at most 100 ns), and how many kernel rows per second the recorder's writer
// thread sustains from decoded activity into the profile database (goal: at least 1 million).
//
//   ampscope_collector_bench [--pairs N] [--kernels N] [--no-tool] [--bursts-only]
//
// --no-tool measures NVTX with no tool attached (NVTX's no-op entry points), for comparison; NVTX
// attaches a tool once per process, so that figure needs a run of its own.

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nvtx3/nvToolsExt.h>

#include "bench/stopwatch.h"
#include "collector/activity_source.h"
#include "collector/nvtx/nvtx_tool.h"
#include "collector/profile_recorder.h"

namespace {

using ampscope::bench::Stopwatch;
namespace collector = ampscope::collector;
namespace trace = ampscope::trace;

// Decoded kernels as CUPTI's decoder would hand them over: 60 distinct launch configurations
// (real traces have 2-6 % distinct ones), increasing times, one batch per drain.
class SyntheticKernelSource : public collector::ActivitySource {
 public:
  explicit SyntheticKernelSource(std::uint64_t total) : total_(total) {}
  void drain(collector::ActivitySink& sink) override {
    if (names_.empty()) {
      for (int i = 0; i < 60; ++i) names_.push_back(sink.intern(fmt::format("sm90_xmma_gemm_f16f16_f32_kernel_{}", i)));
    }
    const std::uint64_t batch = std::min<std::uint64_t>(total_ - emitted_, 250000);
    for (std::uint64_t i = 0; i < batch; ++i, ++emitted_) {
      trace::Kernel k;
      k.start_ns = static_cast<std::int64_t>(emitted_) * 1000;
      k.end_ns = k.start_ns + 700;
      k.correlation_id = emitted_ + 1;
      k.name = names_[emitted_ % names_.size()];
      k.stream = 7;
      k.grid = {static_cast<std::uint32_t>(emitted_ % names_.size()) + 1, 1, 1};
      k.block = {256, 1, 1};
      sink.kernel(k);
    }
  }
  void flush() override {}
  void stop() override {}
  bool done() const { return emitted_ >= total_; }

 private:
  std::uint64_t total_;
  std::uint64_t emitted_ = 0;
  std::vector<trace::StringId> names_;
};

constexpr std::uint64_t kBurstPairs = 5000;

nvtxEventAttributes_t registeredAttributes(nvtxStringHandle_t text) {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = text;
  return a;
}

constexpr int kRounds = 5;

// ns per pair of each round, summarised as the median with the best and worst round beside it:
// on a shared virtual machine one round can be a third slower than the next for no reason of ours.
void printRounds(std::string_view what, std::vector<double> ns_per_pair, std::string_view how) {
  std::sort(ns_per_pair.begin(), ns_per_pair.end());
  fmt::print("{} {:6.1f} ns per pair median (best {:.1f}, worst {:.1f}; {})\n", what, ns_per_pair[ns_per_pair.size() / 2],
             ns_per_pair.front(), ns_per_pair.back(), how);
}

// Registered text in a domain (the trainer's way) and an inline ASCII text in the default domain
// (the common way in other programs), `pairs` of each in a row; returns the seconds each took.
struct PairSeconds {
  double registered = 0;
  double ascii = 0;
};
PairSeconds pushPopPairs(nvtxDomainHandle_t domain, const nvtxEventAttributes_t& attributes, std::uint64_t pairs) {
  PairSeconds seconds;
  Stopwatch registered;
  for (std::uint64_t i = 0; i < pairs; ++i) {
    nvtxDomainRangePushEx(domain, &attributes);
    nvtxDomainRangePop(domain);
  }
  seconds.registered = registered.seconds();
  Stopwatch ascii;
  for (std::uint64_t i = 0; i < pairs; ++i) {
    nvtxRangePushA("step");
    nvtxRangePop();
  }
  seconds.ascii = ascii.seconds();
  return seconds;
}

// Back to back: the writer cannot keep up, so the logs grow into freshly faulted memory.
void measureNvtx(std::uint64_t pairs) {
  nvtxDomainHandle_t domain = nvtxDomainCreateA("bench");
  const nvtxEventAttributes_t attributes = registeredAttributes(nvtxDomainRegisterStringA(domain, "fc1 linear forward"));
  std::vector<double> registered, ascii;
  for (int round = 0; round < kRounds; ++round) {
    const PairSeconds seconds = pushPopPairs(domain, attributes, pairs);
    registered.push_back(seconds.registered * 1e9 / static_cast<double>(pairs));
    ascii.push_back(seconds.ascii * 1e9 / static_cast<double>(pairs));
  }
  const std::string how = fmt::format("{} rounds of {} pairs back to back", kRounds, pairs);
  printRounds("flood:  push+pop, registered text in a domain:", registered, how);
  printRounds("flood:  push+pop, ASCII text:                 ", ascii, how);
}

// As a training loop uses NVTX: bursts of ranges (a step's worth) with time between them for the
// writer to drain, so the logs' chunks are recycled rather than freshly faulted in. Only the time
// inside the bursts counts; each round is a fifth of the bursts.
void measureBursts(std::uint64_t pairs) {
  nvtxDomainHandle_t domain = nvtxDomainCreateA("bench");
  const nvtxEventAttributes_t attributes = registeredAttributes(nvtxDomainRegisterStringA(domain, "fc1 linear backward"));
  const std::uint64_t bursts_per_round = std::max<std::uint64_t>(1, pairs / kBurstPairs / kRounds);
  std::vector<double> registered, ascii;
  for (int round = 0; round < kRounds; ++round) {
    PairSeconds total;
    for (std::uint64_t b = 0; b < bursts_per_round; ++b) {
      const PairSeconds seconds = pushPopPairs(domain, attributes, kBurstPairs);
      total.registered += seconds.registered;
      total.ascii += seconds.ascii;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    const auto round_pairs = static_cast<double>(bursts_per_round * kBurstPairs);
    registered.push_back(total.registered * 1e9 / round_pairs);
    ascii.push_back(total.ascii * 1e9 / round_pairs);
  }
  const std::string how = fmt::format("{} rounds of {} bursts of {} pairs, 5 ms apart", kRounds, bursts_per_round, kBurstPairs);
  printRounds("bursts: push+pop, registered text in a domain:", registered, how);
  printRounds("bursts: push+pop, ASCII text:                 ", ascii, how);
}

// Pairs measureBursts(pairs) makes of each kind.
std::uint64_t burstPairs(std::uint64_t pairs) {
  return std::max<std::uint64_t>(1, pairs / kBurstPairs / kRounds) * kRounds * kBurstPairs;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t pairs = 1'000'000;
  std::uint64_t kernels = 5'000'000;
  bool tool = true;
  bool bursts_only = false;  // no flood first: for profiling the burst path alone
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--pairs" && i + 1 < argc) pairs = std::strtoull(argv[++i], nullptr, 10);
    else if (arg == "--kernels" && i + 1 < argc) kernels = std::strtoull(argv[++i], nullptr, 10);
    else if (arg == "--no-tool") tool = false;
    else if (arg == "--bursts-only") bursts_only = true;
    else {
      fmt::print(stderr, "usage: ampscope_collector_bench [--pairs N] [--kernels N] [--no-tool] [--bursts-only]\n");
      return 2;
    }
  }
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::string path = (dir / fmt::format("ampscope_collector_bench_{}.sqlite", getpid())).string();
  if (!tool) {
    measureNvtx(pairs);
    measureBursts(pairs / 5);
    fmt::print("(no tool attached: NVTX's no-op entry points)\n");
    return 0;
  }
  collector::RecorderOptions options;
  options.path = path;
  auto recorder = collector::ProfileRecorder::start(options);
  if (!recorder) {
    fmt::print(stderr, "error: {}\n", recorder.error().message);
    return 1;
  }
  // The writer falls behind a flood; the bursts model a training loop's steady state, where it
  // keeps up, so they start once it has caught up (its catching up would share the two cores and
  // the memory bus with them).
  const auto waitForRanges = [&](std::uint64_t ranges) {
    while ((*recorder)->counts().ranges < ranges) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  };
  std::uint64_t ranges = 0;
  if (!bursts_only) {
    Stopwatch flood_to_committed;
    measureNvtx(pairs);
    ranges += 2 * kRounds * pairs;
    waitForRanges(ranges);
    // The flood outruns the writer, so this is the writer's own pace for range rows (it starts
    // draining within 100 ms of the flood's start).
    const double seconds = flood_to_committed.seconds();
    fmt::print("writer: {} range rows committed {:.2f} s after the flood began = {:.2f} million rows/s\n", ranges, seconds,
               static_cast<double>(ranges) / seconds / 1e6);
  }
  measureBursts(pairs / 5);
  ranges += 2 * burstPairs(pairs / 5);
  if (!collector::nvtxToolAttached()) {
    fmt::print(stderr, "error: the NVTX tool did not attach\n");
    return 1;
  }
  // Let the writer catch up with the ranges before timing the kernel rows alone.
  waitForRanges(ranges);

  auto source = std::make_unique<SyntheticKernelSource>(kernels);
  SyntheticKernelSource* fake = source.get();
  Stopwatch writing;
  (*recorder)->addSource(std::move(source));
  while ((*recorder)->counts().kernels < kernels) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const double seconds = writing.seconds();
  fmt::print("writer: {} kernel rows in {:.2f} s = {:.2f} million rows/s (batched transactions, WAL)\n", kernels, seconds,
             static_cast<double>(kernels) / seconds / 1e6);
  const trace::Status stopped = (*recorder)->stop();
  (void)fake;
  fmt::print("profile: {:.1f} MB\n", static_cast<double>(std::filesystem::file_size(path)) / 1e6);
  std::filesystem::remove(path);
  if (!stopped) {
    fmt::print(stderr, "error: {}\n", stopped.error().message);
    return 1;
  }
  return 0;
}
