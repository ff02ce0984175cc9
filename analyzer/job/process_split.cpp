#include "analyzer/job/process_split.h"

#include <algorithm>
#include <set>
#include <map>

namespace ampscope::analyzer {

namespace {

template <typename Event, typename Pid>
std::uint64_t copyOwn(const std::vector<Event>& from, std::vector<Event>& to, std::int64_t pid, Pid pidOf) {
  std::uint64_t others = 0;
  for (const Event& e : from) {
    if (pidOf(e) == pid) to.push_back(e);
    else ++others;
  }
  return others;
}

}  // namespace

std::vector<ProcessTrace> splitByProcess(const trace::Trace& trace) {
  std::map<std::int64_t, std::uint32_t> first_device;  // pid -> lowest device
  for (const trace::Kernel& k : trace.kernels) {
    if (k.pid == trace::kUnknownPid) continue;
    auto [at, fresh] = first_device.emplace(k.pid, k.device);
    if (!fresh) at->second = std::min(at->second, k.device);
  }
  std::vector<ProcessTrace> out;
  if (first_device.size() < 2) return out;
  for (const auto& [pid, device] : first_device) {
    ProcessTrace part{.pid = pid, .first_device = device, .trace = {}};
    trace::Trace& t = part.trace;
    t.format = trace.format;
    t.source_format = trace.source_format;
    t.format_detail = trace.format_detail;
    t.strings = trace.strings;
    t.devices = trace.devices;
    t.threads = trace.threads;  // indices stay valid; other processes' threads carry no events here
    t.counters = trace.counters;
    t.gradient_bins = trace.gradient_bins;
    t.import_stats = trace.import_stats;
    t.distributed = trace.distributed;
    t.epoch_offset_ns = trace.epoch_offset_ns;
    t.read_window = trace.read_window;
    t.mangled_names = trace.mangled_names;
    t.range_values = trace.range_values;  // by string id, and the strings are the same
    const auto byPid = [](const auto& e) { return e.pid; };
    const auto byThread = [&](const auto& e) { return trace.pidOfThread(e.thread); };
    std::uint64_t others = copyOwn(trace.kernels, t.kernels, pid, byPid);
    others += copyOwn(trace.memory_ops, t.memory_ops, pid, byPid);
    others += copyOwn(trace.synchronizations, t.synchronizations, pid, byPid);
    others += copyOwn(trace.memory_events, t.memory_events, pid, byPid);
    others += copyOwn(trace.kernel_metrics, t.kernel_metrics, pid, byPid);
    // Metric samples are the device's, not a process's: they go with the processes that ran
    // kernels on it.
    std::set<std::uint32_t> devices_used;
    for (const trace::Kernel& k : t.kernels) devices_used.insert(k.device);
    for (const trace::MetricSample& sample : trace.metric_samples) {
      if (devices_used.count(sample.device) != 0) t.metric_samples.push_back(sample);
    }
    others += copyOwn(trace.launches, t.launches, pid, byThread);
    others += copyOwn(trace.ranges, t.ranges, pid, byThread);
    copyOwn(trace.communication_messages, t.communication_messages, pid, byThread);  // they go with their ranges
    if (others > 0) t.import_stats.skipped[trace::kOtherProcessesSkipped] += others;
    out.push_back(std::move(part));
  }
  std::stable_sort(out.begin(), out.end(), [](const ProcessTrace& a, const ProcessTrace& b) {
    return a.first_device != b.first_device ? a.first_device < b.first_device : a.pid < b.pid;
  });
  return out;
}

}  // namespace ampscope::analyzer
