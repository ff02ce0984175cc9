#include "trace/trace_model.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <system_error>
#include <thread>
#include <unordered_map>

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

// Puts events[i] where order says: order[k] is the index of the event that belongs at k. Follows
// each cycle of the permutation, so every event moves once and no second vector is needed.
template <typename Event>
void permuteInPlace(std::vector<Event>& events, std::vector<std::uint32_t>& order) {
  for (std::size_t start = 0; start < events.size(); ++start) {
    if (order[start] == start) continue;
    Event held = std::move(events[start]);
    std::size_t at = start;
    while (order[at] != start) {
      const std::size_t from = order[at];
      events[at] = std::move(events[from]);
      order[at] = static_cast<std::uint32_t>(at);
      at = from;
    }
    events[at] = std::move(held);
    order[at] = static_cast<std::uint32_t>(at);
  }
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
  if (ranges.size() > std::numeric_limits<std::uint32_t>::max()) {
    std::stable_sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) {
      return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
    });
    return;
  }
  // Ranges are the largest records: sorting small keys and then moving each range once beats a
  // merge sort that moves every range about log2(n) times and needs a buffer of half of them.
  std::vector<Key> keys;
  keys.reserve(ranges.size());
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    keys.push_back(Key{ranges[i].start_ns, ranges[i].end_ns, static_cast<std::uint32_t>(i)});
  }
  if (std::is_sorted(keys.begin(), keys.end(), before)) return;
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
  std::stable_sort(samples.begin(), samples.end(),
                   [](const MetricSample& a, const MetricSample& b) { return a.start_ns < b.start_ns; });
  // The samples of one series, in time order, by (device, metric).
  std::map<std::pair<std::uint32_t, StringId>, std::vector<std::size_t>> series;
  for (std::size_t i = 0; i < samples.size(); ++i) series[{samples[i].device, samples[i].metric}].push_back(i);
  for (const auto& [key, at] : series) {
    // The period where a series has two samples or more: the median gap would do too, but the
    // first gap is what a tool sampling on a fixed period gives, and needs no sort.
    const std::int64_t period =
        at.size() >= 2 ? samples[at[1]].start_ns - samples[at[0]].start_ns : last_period_ns;
    if (end_at_start) {
      // Each sample's time ends its period: it covers from the sample before it.
      for (std::size_t k = at.size(); k-- > 0;) {
        MetricSample& sample = samples[at[k]];
        if (sample.end_ns > sample.start_ns) continue;
        const std::int64_t end = sample.start_ns;
        sample.start_ns = k > 0 ? samples[at[k - 1]].start_ns : end - period;
        sample.end_ns = end;
      }
      continue;
    }
    for (std::size_t k = 0; k < at.size(); ++k) {
      MetricSample& sample = samples[at[k]];
      if (sample.end_ns > sample.start_ns) continue;
      sample.end_ns = k + 1 < at.size() ? samples[at[k + 1]].start_ns : sample.start_ns + period;
    }
  }
  std::stable_sort(samples.begin(), samples.end(),
                   [](const MetricSample& a, const MetricSample& b) { return a.start_ns < b.start_ns; });
}

void Trace::sortByTime(unsigned thread_count) {
  std::thread ranges_sorter;
  if (thread_count > 1 && ranges.size() >= kRangesForAThread) {
    try {
      ranges_sorter = std::thread([this] { sortRanges(ranges); });
    } catch (const std::system_error&) {
      // No thread to be had: sorted below, here.
    }
  }
  if (!ranges_sorter.joinable()) sortRanges(ranges);
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
  if (ranges_sorter.joinable()) ranges_sorter.join();
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
