#include "reports/perfetto_export.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "analyzer/steps/amp_numerics.h"
#include "reports/counter_words.h"
#include "reports/verdict_words.h"

namespace ampscope::reports {

namespace {

// Track ids (the format's "tid") within a rank's process. Host threads keep their own thread id,
// so that the ids match the framework's logs; GPU streams and the steps track get ids above any
// Linux thread id (pid_max is at most 2^22), kept below 2^31 because Perfetto reads tids as 32-bit.
constexpr std::int64_t kStepsTid = 1'000'000'000;
constexpr std::int64_t kStreamTidBase = 1'000'000'001;       // + the stream's position
constexpr std::int64_t kOtherThreadTidBase = 1'100'000'000;  // + thread index, for ids out of range
constexpr std::int64_t kNoThreadTid = 1'200'000'000;         // ranges the trace gives no thread
// thread_sort_index: the steps first, then the GPU streams, then the host threads.
constexpr std::int64_t kStreamSortBase = 1;
constexpr std::int64_t kThreadSortBase = 100'000;

// Flow events: Chrome's original form ("s" on the launch call, "f" with binding point "e" on the
// GPU work), as Kineto writes them. Both Perfetto and chrome://tracing read it; Perfetto also reads
// the newer bind_id/flow_in/flow_out fields, but chrome://tracing's support for them is partial.
// The ids are the export's own, counted from 1: correlation ids are a process's own and repeat
// across ranks, while a flow id is global to the document (the correlation id is an arg instead).
constexpr std::string_view kFlowCategory = "ac2g";
constexpr std::string_view kFlowName = "launch";

std::string dims(const std::array<std::uint32_t, 3>& d) { return fmt::format("[{}, {}, {}]", d[0], d[1], d[2]); }

// Writes one rank: the tracks, then each kind of event, each event as it is produced.
class RankWriter {
 public:
  RankWriter(TraceEventWriter& writer, PerfettoCounts& counts, std::uint64_t& next_flow_id,
             const analyzer::RunAnalysis& run, const PerfettoProcess& process, std::int64_t origin_ns)
      : writer_(writer), counts_(counts), next_flow_id_(next_flow_id), run_(run), trace_(run.trace),
        process_(process), shift_ns_(process.clock_shift_ns - origin_ns) {}

  void write() {
    nameTracks();
    writeSteps();
    writeRanges();
    writeLaunches();
    writeKernels();
    writeMemoryOps();
    writeCounters();
  }

 private:
  std::int64_t at(std::int64_t ns) const { return ns + shift_ns_; }
  TraceEvent event() { return TraceEvent(writer_.buffer()); }
  void emit(TraceEvent& e) {
    writer_.write(e.done());
    ++counts_.events;
  }
  TraceEvent slice(std::string_view name, std::string_view category, std::int64_t tid, std::int64_t start_ns,
                   std::int64_t end_ns) {
    TraceEvent e = event();
    e.field("ph", "X").field("cat", category).field("name", name).field("pid", process_.pid).field("tid", tid);
    e.time("ts", at(start_ns)).time("dur", std::max<std::int64_t>(end_ns - start_ns, 0));
    return e;
  }
  void metadata(std::string_view what, std::int64_t tid, std::string_view key, std::string_view text,
                std::int64_t number) {
    TraceEvent e = event();
    e.field("ph", "M").field("name", what).field("pid", process_.pid);
    if (tid >= 0) e.field("tid", tid);
    e.beginArgs();
    if (key == "name") e.field(key, text);
    else e.field(key, number);
    e.endArgs();
    emit(e);
  }

  bool onCpu(std::uint32_t device) const {
    return std::any_of(trace_.devices.begin(), trace_.devices.end(),
                       [&](const trace::Device& d) { return d.id == device && d.kind == trace::DeviceKind::kCpu; });
  }
  std::int64_t streamTid(std::uint32_t device, std::uint32_t stream) const {
    return streams_.at({device, stream});
  }
  std::int64_t threadTid(trace::Index thread) const {
    if (thread == trace::kNone || static_cast<std::size_t>(thread) >= trace_.threads.size()) return kNoThreadTid;
    const std::int64_t tid = trace_.threads[static_cast<std::size_t>(thread)].tid;
    return tid > 0 && tid < kStepsTid ? tid : kOtherThreadTidBase + thread;
  }

  void nameTracks() {
    metadata("process_name", -1, "name", process_.name, 0);
    metadata("process_sort_index", -1, "sort_index", {}, process_.pid);
    metadata("thread_name", kStepsTid, "name", "Steps", 0);
    metadata("thread_sort_index", kStepsTid, "sort_index", {}, 0);
    for (const trace::Kernel& k : trace_.kernels) streams_.try_emplace({k.device, k.stream}, 0);
    for (const trace::MemoryOp& m : trace_.memory_ops) streams_.try_emplace({m.device, m.stream}, 0);
    std::int64_t position = 0;
    for (auto& [key, tid] : streams_) {
      tid = kStreamTidBase + position;
      metadata("thread_name", tid, "name",
               fmt::format("{} {} · stream {}", onCpu(key.first) ? "CPU" : "GPU", key.first, key.second), 0);
      metadata("thread_sort_index", tid, "sort_index", {}, kStreamSortBase + position);
      ++position;
    }
    std::vector<bool> used(trace_.threads.size() + 1, false);
    const auto use = [&](trace::Index thread) {
      used[thread == trace::kNone || static_cast<std::size_t>(thread) >= trace_.threads.size()
               ? trace_.threads.size()
               : static_cast<std::size_t>(thread)] = true;
    };
    for (const trace::Range& r : trace_.ranges) use(r.thread);
    for (const trace::LaunchCall& l : trace_.launches) use(l.thread);
    for (std::size_t i = 0; i < trace_.threads.size(); ++i) {
      if (!used[i]) continue;
      const trace::Thread& thread = trace_.threads[i];
      const std::string_view name = trace_.str(thread.name);
      const auto index = static_cast<trace::Index>(i);
      metadata("thread_name", threadTid(index), "name",
               name.empty() ? fmt::format("thread {}", thread.tid) : std::string(name), 0);
      metadata("thread_sort_index", threadTid(index), "sort_index", {}, kThreadSortBase + index);
    }
    if (used.back()) metadata("thread_name", kNoThreadTid, "name", "ranges without a thread", 0);
  }

  void writeSteps() {
    const analyzer::TraceSummary& summary = run_.summary;
    for (std::size_t i = 0; i < summary.step_splits.size(); ++i) {
      const analyzer::StepSplit& step = summary.step_splits[i];
      if (step.whole_window) continue;  // no steps: nothing to mark
      TraceEvent e = slice(step.warmup ? fmt::format("step {} (warm-up)", step.number) : fmt::format("step {}", step.number),
                           "step", kStepsTid, step.start_ns, step.end_ns);
      e.beginArgs().field("step", step.number).field("warmup", step.warmup);
      e.field("compute_ms", static_cast<double>(step.compute_ns) / 1e6);
      e.field("communication_ms", static_cast<double>(step.communication_ns) / 1e6);
      e.field("exposed_communication_ms", static_cast<double>(step.exposed_communication_ns) / 1e6);
      e.field("exposed_data_loading_ms", static_cast<double>(step.data_ns) / 1e6);
      e.field("idle_ms", static_cast<double>(step.idle_ns) / 1e6);
      if (const auto share = tensorCoreShare(i)) e.field("tensor_core_share_percent", *share);
      e.endArgs();
      emit(e);
      ++counts_.steps;
    }
  }

  // Of the kernel time inside step i, the Tensor Core kernels' share in percent.
  std::optional<double> tensorCoreShare(std::size_t i) const {
    const auto& per_step = run_.summary.tensor_cores.per_step;
    if (i >= per_step.size() || per_step[i].kernel_ns <= 0 || run_.summary.recorded_on_cpu) return std::nullopt;
    return 100.0 * static_cast<double>(per_step[i].tensor_core_ns) / static_cast<double>(per_step[i].kernel_ns);
  }

  void writeRanges() {
    for (const trace::Range& r : trace_.ranges) {
      TraceEvent e = slice(trace_.str(r.name), trace::rangeKindName(r.kind), threadTid(r.thread), r.start_ns, r.end_ns);
      e.beginArgs();
      if (r.op != trace::StringTable::kEmpty) e.field("op", trace_.str(r.op));
      if (r.layer != trace::StringTable::kEmpty) e.field("layer", trace_.str(r.layer));
      if (r.phase != trace::Phase::kUnknown) e.field("phase", trace::phaseName(r.phase));
      if (r.shapes != trace::StringTable::kEmpty) e.field("shapes", trace_.str(r.shapes));
      if (r.strides != trace::StringTable::kEmpty) e.field("strides", trace_.str(r.strides));
      if (r.dtypes != trace::StringTable::kEmpty) e.field("dtypes", trace_.str(r.dtypes));
      e.endArgs();
      emit(e);
      ++counts_.ranges;
    }
  }

  void writeLaunches() {
    for (const trace::LaunchCall& l : trace_.launches) {
      TraceEvent e = slice(trace_.str(l.name), l.api == trace::ApiKind::kRuntime ? "cuda_runtime" : "cuda_driver",
                           threadTid(l.thread), l.start_ns, l.end_ns);
      e.beginArgs().field("correlation", l.correlation_id).endArgs();
      emit(e);
      ++counts_.launches;
    }
  }

  // The arrow from the launch call to the GPU work it queued, where the correlator linked them.
  void writeFlow(trace::Index launch, std::int64_t gpu_tid, std::int64_t gpu_start_ns) {
    if (launch == trace::kNone) return;
    const trace::LaunchCall& l = trace_.launches[static_cast<std::size_t>(launch)];
    const std::uint64_t id = next_flow_id_++;
    TraceEvent s = event();
    s.field("ph", "s").field("id", id).field("pid", process_.pid).field("tid", threadTid(l.thread));
    s.time("ts", at(l.start_ns)).field("cat", kFlowCategory).field("name", kFlowName);
    emit(s);
    TraceEvent f = event();
    f.field("ph", "f").field("id", id).field("pid", process_.pid).field("tid", gpu_tid);
    f.time("ts", at(gpu_start_ns)).field("cat", kFlowCategory).field("name", kFlowName).field("bp", "e");
    emit(f);
    ++counts_.flows;
  }

  // The kernel table's row of each kernel name (a name on the host and on a GPU are two rows):
  // the verdicts the analysis reported, not decided again here.
  const analyzer::KernelRow* rowOf(const trace::Kernel& kernel) {
    const bool host = onCpu(kernel.device);
    std::vector<std::int32_t>& cache = host ? host_rows_ : gpu_rows_;
    if (cache.empty()) cache.assign(trace_.strings.size(), -2);
    std::int32_t& row = cache[kernel.name];
    if (row == -2) {
      row = -1;
      const std::string_view name = trace_.str(kernel.name);
      const auto& rows = run_.summary.kernels;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if ((rows[i].verdict.tensor_core == analyzer::TensorCoreUse::kHost) == host && rows[i].name == name) row = static_cast<std::int32_t>(i);
      }
    }
    return row < 0 ? nullptr : &run_.summary.kernels[static_cast<std::size_t>(row)];
  }

  void writeKernels() {
    const analyzer::KernelAttribution& attribution = run_.summary.kernel_attribution;
    const analyzer::OpPerformance& model = run_.summary.op_performance;
    for (std::size_t i = 0; i < trace_.kernels.size(); ++i) {
      const trace::Kernel& k = trace_.kernels[i];
      const std::int64_t tid = streamTid(k.device, k.stream);
      TraceEvent e = slice(trace_.str(k.name), "kernel", tid, k.start_ns, k.end_ns);
      e.beginArgs().field("correlation", k.correlation_id).field("device", k.device).field("stream", k.stream);
      e.field("grid", dims(k.grid)).field("block", dims(k.block));
      // Whose it is, from the per-kernel table (a summary built without one has none).
      const bool attributed = i < attribution.kernels.size();
      if (attributed) {
        const analyzer::KernelOrigin& origin = attribution.originOf(i);
        if (origin.group >= 0) {
          e.field(attribution.groupsOperators() ? "top_operator" : "layer", attribution.origins.label(origin.group));
        }
        if (origin.op >= 0) e.field("op", attribution.origins.label(origin.op));
        if (origin.phase != trace::Phase::kUnknown) e.field("pass", trace::phaseName(origin.phase));
      }
      if (const analyzer::KernelRow* row = rowOf(k)) {
        e.field("tensor_cores", tensorCoreCell(row->verdict.tensor_core));
        e.field("precision", analyzer::precisionName(row->verdict.precision));
        e.field("confidence", analyzer::confidenceName(row->verdict.confidence));
        e.field("rule", row->verdict.rule_id);
        // The hardware counters' word on its name, over all its measured calls (analyzer/counters/).
        if (row->measured_tensor_active) {
          e.field("name_measured_tensor_active", *row->measured_tensor_active);
          e.field("name_measured_tensor_ns", row->measured_tensor_ns);
        }
      } else {
        // Not in the kernel table: the analysis has no verdict.
        e.field("tensor_cores", tensorCoreCell(analyzer::TensorCoreUse::kUnknown));
      }
      // This launch's own measurement, where the counters measured it (NaN: not measured).
      const std::vector<float>& measured = run_.summary.counters.tensor_active_by_kernel;
      if (i < measured.size() && std::isfinite(measured[i])) {
        e.field("measured_tensor_active", static_cast<double>(measured[i]));
      }
      if (attributed && attribution.kernels[i].op_row >= 0) {
        const analyzer::OpRow& op = model.rows[static_cast<std::size_t>(attribution.kernels[i].op_row)];
        // The op call shape's rate over all its calls, not this launch's: named op_* so that a
        // helper kernel of a convolution does not read as running at the convolution's rate.
        if (op.achieved_tflops) e.field("op_achieved_tflops", *op.achieved_tflops);
        if (op.peak_tflops > 0) e.field("op_peak_tflops", op.peak_tflops);
      }
      e.endArgs();
      emit(e);
      ++counts_.kernels;
      writeFlow(k.launch, tid, k.start_ns);
    }
  }

  void writeMemoryOps() {
    for (const trace::MemoryOp& m : trace_.memory_ops) {
      const bool copy = m.kind == trace::MemoryOpKind::kMemcpy;
      const std::int64_t tid = streamTid(m.device, m.stream);
      const std::string name = copy ? fmt::format("Memcpy {} ({} -> {})", trace::copyDirectionName(m.direction),
                                                  trace::memoryKindName(m.src_kind), trace::memoryKindName(m.dst_kind))
                                    : std::string("Memset");
      TraceEvent e = slice(name, copy ? "gpu_memcpy" : "gpu_memset", tid, m.start_ns, m.end_ns);
      e.beginArgs().field("correlation", m.correlation_id).field("bytes", m.bytes).field("device", m.device);
      e.field("stream", m.stream).endArgs();
      emit(e);
      ++counts_.memory_ops;
      writeFlow(m.launch, tid, m.start_ns);
    }
  }

  template <typename Value>
  void counter(std::string_view name, std::string_view series, std::int64_t time_ns, Value value) {
    TraceEvent e = event();
    e.field("ph", "C").field("name", name).field("pid", process_.pid).time("ts", at(time_ns));
    e.beginArgs().field(series, value).endArgs();
    emit(e);
    ++counts_.counter_samples;
  }

  // A per-step value as a step function: each step's value from its start, back to 0 after a step
  // that the next one does not follow at once (and after the last).
  template <typename ValueOf>
  void perStepCounter(std::string_view name, std::string_view series, ValueOf value_of) {
    const auto& steps = run_.summary.step_splits;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      if (steps[i].whole_window) continue;
      const std::optional<double> value = value_of(i);
      if (!value) continue;
      counter(name, series, steps[i].start_ns, *value);
      if (i + 1 == steps.size() || steps[i + 1].start_ns != steps[i].end_ns) counter(name, series, steps[i].end_ns, 0.0);
    }
  }

  void writeCounters() {
    const analyzer::TraceSummary& summary = run_.summary;
    const bool several_processes =
        std::any_of(summary.launch_queue.streams.begin(), summary.launch_queue.streams.end(),
                    [&](const analyzer::StreamQueue& q) { return q.pid != summary.launch_queue.streams.front().pid; });
    for (const analyzer::StreamQueue& queue : summary.launch_queue.streams) {
      const std::string name =
          several_processes ? fmt::format("launch queue · pid {} · GPU {} · stream {}", queue.pid, queue.device, queue.stream)
                            : fmt::format("launch queue · GPU {} · stream {}", queue.device, queue.stream);
      for (const analyzer::QueuePoint& point : queue.points) {
        counter(name, "depth", point.time_ns, static_cast<double>(point.depth));
      }
    }
    perStepCounter("Tensor Core share of kernel time", "percent", [&](std::size_t i) { return tensorCoreShare(i); });
    perStepCounter("exposed data loading", "ms", [&](std::size_t i) -> std::optional<double> {
      return static_cast<double>(summary.step_splits[i].data_ns) / 1e6;
    });
    for (const trace::Counter& c : trace_.counters) {
      if (trace_.str(c.name) == analyzer::kLossScaleCounter) counter("loss scale", "scale", c.time_ns, c.value);
    }
    writeMemoryCounters();
    writeMetricSeries();
  }

  // Each sampled hardware metric of each device (analyzer/counters/), sample for sample: the 0..1
  // share where the analysis knows the metric's unit, the recorded value otherwise. A sample holds
  // its value over [start, end); where the next sample does not follow at once (and after the
  // last), the track returns to 0, as Chrome's counters hold a value until the next one.
  void writeMetricSeries() {
    for (const analyzer::MetricSeries& series : run_.summary.counters.series) {
      const std::string name = seriesTrackName(series);
      const std::string_view key = series.share ? "share" : "value";
      for (std::size_t i = 0; i < series.points.size(); ++i) {
        const analyzer::SeriesPoint& point = series.points[i];
        counter(name, key, point.start_ns, point.value);
        if (i + 1 == series.points.size() || series.points[i + 1].start_ns != point.end_ns) {
          counter(name, key, point.end_ns, 0.0);
        }
      }
    }
  }

  // Each device's memory timeline (analyzer/memory/), sample for sample: allocated, and reserved
  // where the allocator recorded it.
  void writeMemoryCounters() {
    for (const analyzer::DeviceMemory& d : run_.summary.memory.devices) {
      const std::string device = d.kind == trace::DeviceKind::kCpu ? std::string("host") : fmt::format("GPU {}", d.device);
      const std::string allocated = "memory allocated · " + device;
      const std::string reserved = "memory reserved · " + device;
      for (const analyzer::MemorySample& sample : d.timeline) {
        // Whole numbers: a double written short would round the bytes.
        counter(allocated, "bytes", sample.time_ns, sample.allocated_bytes);
        if (sample.reserved_bytes >= 0) counter(reserved, "bytes", sample.time_ns, sample.reserved_bytes);
      }
    }
  }

  TraceEventWriter& writer_;
  PerfettoCounts& counts_;
  std::uint64_t& next_flow_id_;
  const analyzer::RunAnalysis& run_;
  const trace::Trace& trace_;
  const PerfettoProcess& process_;
  std::int64_t shift_ns_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::int64_t> streams_;  // (device, stream) -> tid
  std::vector<std::int32_t> gpu_rows_;   // per kernel name id: its kernel table row; -1 none, -2 not looked up
  std::vector<std::int32_t> host_rows_;
};

}  // namespace

std::optional<std::int64_t> earliestExportedNs(const analyzer::RunAnalysis& run) {
  std::optional<std::int64_t> first;
  const auto see = [&](std::int64_t ns) { first = first ? std::min(*first, ns) : ns; };
  const trace::Trace& t = run.trace;
  for (const auto& k : t.kernels) see(k.start_ns);
  for (const auto& m : t.memory_ops) see(m.start_ns);
  for (const auto& r : t.ranges) see(r.start_ns);
  for (const auto& l : t.launches) see(l.start_ns);
  for (const auto& c : t.counters) {
    if (t.str(c.name) == analyzer::kLossScaleCounter) see(c.time_ns);
  }
  for (const auto& q : run.summary.launch_queue.streams) {
    for (const auto& p : q.points) see(p.time_ns);
  }
  for (const auto& s : run.summary.step_splits) {
    if (!s.whole_window) see(s.start_ns);
  }
  for (const auto& d : run.summary.memory.devices) {
    if (!d.timeline.empty()) see(d.timeline.front().time_ns);
  }
  for (const auto& series : run.summary.counters.series) {
    if (!series.points.empty()) see(series.points.front().start_ns);
  }
  return first;
}

PerfettoExporter::PerfettoExporter(std::ostream& out, std::int64_t origin_ns)
    : writer_(out, fmt::format("\"otherData\":{{\"producer\":\"ampscope export\",\"time_origin_ns\":\"{}\","
                               "\"time_origin_note\":\"ts 0 is this time (ns) on the trace's clock, the job's "
                               "clock for several ranks\"}}",
                               origin_ns)),
      origin_ns_(origin_ns) {}

void PerfettoExporter::addRank(const analyzer::RunAnalysis& run, const PerfettoProcess& process) {
  RankWriter(writer_, counts_, next_flow_id_, run, process, origin_ns_).write();
  ++counts_.processes;
}

void PerfettoExporter::finish() { writer_.finish(); }

}  // namespace ampscope::reports
