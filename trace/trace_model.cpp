#include "trace/trace_model.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <unordered_map>

#include "base/permute.h"
#include "base/run_beside.h"

namespace ampscope::trace {

const char* formatName(TraceFormat format) {
  switch (format) {
    case TraceFormat::kKineto: return "kineto";
    case TraceFormat::kNsightSystems: return "nsys";
    case TraceFormat::kNvprof: return "nvprof";
    case TraceFormat::kAmpscope: return "ampscope";
    case TraceFormat::kUnknown: break;
  }
  return "unknown";
}

void ImportStats::notUnderstood(const std::string& reason, std::string_view place) {
  ++not_understood[reason];
  if (!place.empty()) first_place.try_emplace(reason, place);
}

void ImportStats::add(const ImportStats& later) {
  events_read += later.events_read;
  events_imported += later.events_imported;
  gpu_records_without_launch += later.gpu_records_without_launch;
  dropped_by_collector += later.dropped_by_collector;
  for (const auto& [reason, count] : later.skipped) skipped[reason] += count;
  for (const auto& [reason, count] : later.not_understood) not_understood[reason] += count;
  for (const auto& [reason, count] : later.lost) lost[reason] += count;
  for (const auto& [reason, place] : later.first_place) first_place.try_emplace(reason, place);
}

const char* deviceKindName(DeviceKind kind) {
  return kind == DeviceKind::kCpu ? "cpu" : "gpu";
}

const char* copyDirectionName(CopyDirection direction) {
  switch (direction) {
    case CopyDirection::kHostToDevice: return "HtoD";
    case CopyDirection::kDeviceToHost: return "DtoH";
    case CopyDirection::kDeviceToDevice: return "DtoD";
    case CopyDirection::kHostToHost: return "HtoH";
    case CopyDirection::kPeerToPeer: return "PtoP";
    case CopyDirection::kUnknown: break;
  }
  return "unknown";
}

const char* memoryKindName(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kPageable: return "pageable";
    case MemoryKind::kPinned: return "pinned";
    case MemoryKind::kDevice: return "device";
    case MemoryKind::kArray: return "array";
    case MemoryKind::kManaged: return "managed";
    case MemoryKind::kUnknown: break;
  }
  return "unknown";
}

const char* rangeKindName(RangeKind kind) {
  switch (kind) {
    case RangeKind::kOperator: return "operator";
    case RangeKind::kAnnotation: return "annotation";
    case RangeKind::kPython: return "python";
    case RangeKind::kGpuAnnotation: return "gpu_annotation";
  }
  return "unknown";
}

const char* phaseName(Phase phase) {
  switch (phase) {
    case Phase::kStep: return "step";
    case Phase::kData: return "data";
    case Phase::kForward: return "forward";
    case Phase::kBackward: return "backward";
    case Phase::kOptimizer: return "optimizer";
    case Phase::kLossScale: return "loss_scale";
    case Phase::kUnknown: break;
  }
  return "unknown";
}

Index Trace::threadIndex(std::int64_t pid, std::int64_t tid) {
  // Traces have a handful of threads; a linear scan beats a map here.
  for (std::size_t i = 0; i < threads.size(); ++i) {
    if (threads[i].pid == pid && threads[i].tid == tid) return static_cast<Index>(i);
  }
  threads.push_back(Thread{pid, tid, StringTable::kEmpty});
  return static_cast<Index>(threads.size() - 1);
}

namespace {
// Importers mostly deliver a vector already in order (a profile written in time order, a GPU
// stream's kernels): checking costs one pass, where sorting costs several and a buffer of half
// the vector.
template <typename Event, typename Before>
void sortStable(std::vector<Event>& events, Before before) {
  if (std::is_sorted(events.begin(), events.end(), before)) return;
  std::stable_sort(events.begin(), events.end(), before);
}

template <typename Event>
void sortByStart(std::vector<Event>& events) {
  sortStable(events, [](const Event& a, const Event& b) { return a.start_ns < b.start_ns; });
}

void sortRanges(std::vector<Range>& ranges) {
  // Equal starts: the longer range first, so that a parent precedes the child it encloses; equal
  // both: file order (a stable sort).
  struct Key {
    std::int64_t start_ns;
    std::int64_t end_ns;
    std::uint32_t index;
  };
  const auto before = [](const Key& a, const Key& b) {
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    if (a.end_ns != b.end_ns) return a.end_ns > b.end_ns;
    return a.index < b.index;
  };
  const auto in_order = [](const Range& a, const Range& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
  };
  // Importers mostly deliver ranges in order: checking them in place needs no keys.
  if (std::is_sorted(ranges.begin(), ranges.end(), in_order)) return;
  if (ranges.size() > std::numeric_limits<std::uint32_t>::max()) {
    std::stable_sort(ranges.begin(), ranges.end(), in_order);
    return;
  }
  // Ranges are the largest records: sorting small keys and then moving each range once beats a
  // merge sort that moves every range about log2(n) times and needs a buffer of half of them.
  std::vector<Key> keys;
  keys.reserve(ranges.size());
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    keys.push_back(Key{ranges[i].start_ns, ranges[i].end_ns, static_cast<std::uint32_t>(i)});
  }
  std::sort(keys.begin(), keys.end(), before);
  std::vector<std::uint32_t> order;
  order.reserve(keys.size());
  for (const Key& key : keys) order.push_back(key.index);
  keys = {};
  permuteInPlace(ranges, order);
}

// Ranges are the largest vector of most traces: worth a thread of their own from about here.
constexpr std::size_t kRangesForAThread = 1 << 16;

// The metric values the profiled ranges hold beside themselves.
std::size_t metricValueBytes(const std::vector<KernelMetrics>& ranges) {
  std::size_t bytes = 0;
  for (const KernelMetrics& range : ranges) bytes += range.values.capacity() * sizeof(MetricValue);
  return bytes;
}
}  // namespace

void closeSampleIntervals(std::vector<MetricSample>& samples, bool end_at_start, std::int64_t last_period_ns) {
  const auto byStart = [](const MetricSample& a, const MetricSample& b) { return a.start_ns < b.start_ns; };
  if (!std::is_sorted(samples.begin(), samples.end(), byStart)) std::stable_sort(samples.begin(), samples.end(), byStart);
  // One pass in time order, remembering each series' (device, metric) last sample: millions of
  // samples (a long Nsight Systems export) cost one look-up each.
  struct Series {
    std::size_t first = 0;
    std::size_t last = 0;
    std::int64_t last_stamp = 0;  // the last sample's time as recorded
    std::int64_t period_ns = -1;  // the first gap: what a tool sampling on a fixed period gives
  };
  std::unordered_map<std::uint64_t, Series> series;
  const auto open = [](const MetricSample& s) { return s.end_ns <= s.start_ns; };
  for (std::size_t i = 0; i < samples.size(); ++i) {
    MetricSample& sample = samples[i];
    const std::uint64_t key = (static_cast<std::uint64_t>(sample.device) << 32) | sample.metric;
    const std::int64_t stamp = sample.start_ns;
    auto [found, fresh] = series.try_emplace(key, Series{i, i, stamp, -1});
    Series& s = found->second;
    if (!fresh) {
      if (s.period_ns < 0) s.period_ns = stamp - s.last_stamp;
      if (end_at_start) {
        // Each sample's time ends its period: it covers from the sample before it.
        if (open(sample)) {
          sample.start_ns = s.last_stamp;
          sample.end_ns = stamp;
        }
      } else if (open(samples[s.last])) {
        samples[s.last].end_ns = stamp;
      }
      s.last = i;
      s.last_stamp = stamp;
    }
  }
  for (const auto& [key, s] : series) {
    const std::int64_t period = s.period_ns >= 0 ? s.period_ns : last_period_ns;
    if (end_at_start) {
      MetricSample& first = samples[s.first];
      if (open(first)) {
        first.end_ns = first.start_ns;
        first.start_ns -= period;
      }
    } else if (open(samples[s.last])) {
      samples[s.last].end_ns = samples[s.last].start_ns + period;
    }
  }
  if (end_at_start) std::stable_sort(samples.begin(), samples.end(), byStart);
}

void Trace::sortByTime(unsigned thread_count) {
  // The ranges beside the rest, where there are enough of them to be worth a thread.
  auto ranges_sorted = runBeside(thread_count > 1 && ranges.size() >= kRangesForAThread, [this] { sortRanges(ranges); });
  sortByStart(launches);
  sortByStart(kernels);
  sortByStart(memory_ops);
  sortByStart(synchronizations);
  sortStable(memory_events, [](const MemoryEvent& a, const MemoryEvent& b) { return a.time_ns < b.time_ns; });
  sortStable(kernel_metrics, [](const KernelMetrics& a, const KernelMetrics& b) { return a.start_ns < b.start_ns; });
  sortStable(metric_samples, [](const MetricSample& a, const MetricSample& b) { return a.start_ns < b.start_ns; });
  sortStable(counters, [](const Counter& a, const Counter& b) { return a.time_ns < b.time_ns; });
  sortStable(gradient_bins, [](const GradientBin& a, const GradientBin& b) { return a.time_ns < b.time_ns; });
  sortStable(communication_messages, [](const CommunicationMessage& a, const CommunicationMessage& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.thread < b.thread;
  });
  ranges_sorted.get();
}

std::optional<std::string_view> Trace::mangledName(StringId name) const {
  for (const auto& [readable, mangled] : mangled_names) {
    if (readable == name) return str(mangled);
  }
  return std::nullopt;
}

const CommunicationMessage* Trace::messageOf(const Range& range) const {
  const auto at = std::lower_bound(communication_messages.begin(), communication_messages.end(), range,
                                   [](const CommunicationMessage& m, const Range& r) {
                                     return m.start_ns != r.start_ns ? m.start_ns < r.start_ns : m.thread < r.thread;
                                   });
  return at != communication_messages.end() && at->start_ns == range.start_ns && at->thread == range.thread ? &*at
                                                                                                           : nullptr;
}

void Trace::assignLaunchingProcesses() {
  std::int64_t only_pid = kUnknownPid;
  bool several_pids = false;
  for (const LaunchCall& launch : launches) {
    if (launch.thread == kNone) continue;
    const std::int64_t pid = pidOfThread(launch.thread);
    if (only_pid == kUnknownPid) only_pid = pid;
    else if (pid != only_pid) several_pids = true;
  }
  // The process of each correlation id; kUnknownPid where two processes used it. With one
  // launching process (a Kineto file, most profiles) every record is that process's: no map needed.
  std::unordered_map<std::uint64_t, std::int64_t> pid_of_correlation;
  if (several_pids) {
    pid_of_correlation.reserve(launches.size());
    for (const LaunchCall& launch : launches) {
      if (launch.thread == kNone) continue;
      const std::int64_t pid = pidOfThread(launch.thread);
      auto [found, fresh] = pid_of_correlation.try_emplace(launch.correlation_id, pid);
      if (!fresh && found->second != pid) found->second = kUnknownPid;
    }
  }
  const auto assign = [&](auto& records) {
    for (auto& record : records) {
      if (record.pid != kUnknownPid) continue;
      if (!several_pids) {
        record.pid = only_pid;  // work launched before the file began too
        continue;
      }
      const auto found = pid_of_correlation.find(record.correlation_id);
      if (found != pid_of_correlation.end()) record.pid = found->second;
    }
  };
  assign(kernels);
  assign(memory_ops);
  assign(synchronizations);
  assign(kernel_metrics);
}

std::size_t Trace::eventCount() const {
  return launches.size() + kernels.size() + memory_ops.size() + synchronizations.size() +
         ranges.size() + memory_events.size() + kernel_metrics.size() + metric_samples.size() + counters.size() +
         gradient_bins.size();
}

std::size_t Trace::memoryBytes() const {
  return strings.memoryBytes() + devices.capacity() * sizeof(Device) +
         threads.capacity() * sizeof(Thread) + launches.capacity() * sizeof(LaunchCall) +
         kernels.capacity() * sizeof(Kernel) + memory_ops.capacity() * sizeof(MemoryOp) +
         synchronizations.capacity() * sizeof(Synchronization) +
         ranges.capacity() * sizeof(Range) + memory_events.capacity() * sizeof(MemoryEvent) +
         kernel_metrics.capacity() * sizeof(KernelMetrics) + metric_samples.capacity() * sizeof(MetricSample) +
         metricValueBytes(kernel_metrics) + counters.capacity() * sizeof(Counter) +
         gradient_bins.capacity() * sizeof(GradientBin) +
         communication_messages.capacity() * sizeof(CommunicationMessage) +
         mangled_names.capacity() * sizeof(std::pair<StringId, StringId>) + range_values.memoryBytes();
}

}  // namespace ampscope::trace
