#include "analyzer/import/kineto/kineto_importer.h"

#include <algorithm>

#include <fmt/format.h>

#include "analyzer/import/byte_source.h"
#include "analyzer/import/kineto/chrome_trace_stream.h"
#include "analyzer/import/kineto/kineto_parallel_parse.h"
#include "analyzer/import/kineto/kineto_values.h"
#include "analyzer/normalise/range_normaliser.h"

namespace ampscope::analyzer::import {

namespace {

// A Chrome trace of another tool (TensorFlow's trace viewer, a browser's) has trace events, none
// of which a PyTorch profiler writes: an empty analysis of it would say nothing true, so it is
// refused, naming what it holds. A profiler session that recorded no activity (no events, or only
// Kineto's own metadata and flow events) is read.
trace::Status someEventRead(const std::string& path, const trace::Trace& out) {
  const trace::ImportStats& stats = out.import_stats;
  if (stats.events_imported > 0 || !out.devices.empty()) return {};
  std::string kinds;
  std::size_t listed = 0;
  for (const auto& [reason, count] : stats.not_understood) {
    if (reason.starts_with("top-level") || listed == 4) continue;
    kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", count, reason);
    ++listed;
  }
  if (kinds.empty()) return {};
  return trace::Error{fmt::format("{}: none of its {} trace events is one a PyTorch profiler (Kineto) trace holds "
                                  "({}): a Chrome trace of another tool?",
                                  path, stats.events_read, kinds)};
}

// Kineto times are relative to baseTimeNanoseconds where the file gives one.
void addBaseTime(trace::Trace& out, std::int64_t base_ns) {
  if (base_ns == 0) return;
  for (auto& e : out.kernels) { e.start_ns += base_ns; e.end_ns += base_ns; }
  for (auto& e : out.launches) { e.start_ns += base_ns; e.end_ns += base_ns; }
  for (auto& e : out.memory_ops) { e.start_ns += base_ns; e.end_ns += base_ns; }
  for (auto& e : out.synchronizations) { e.start_ns += base_ns; e.end_ns += base_ns; }
  for (auto& e : out.ranges) { e.start_ns += base_ns; e.end_ns += base_ns; }
  for (auto& e : out.communication_messages) e.start_ns += base_ns;
  for (auto& e : out.memory_events) e.time_ns += base_ns;
  for (auto& e : out.kernel_metrics) { e.start_ns += base_ns; e.end_ns += base_ns; }
  for (auto& e : out.metric_samples) e.start_ns += base_ns;  // their ends are not given yet
}

}  // namespace

trace::Result<trace::Trace> importKineto(ByteSource& source, const ImportOptions& options,
                                         const StageCallback& stage_done) {
  return importKineto(source, options, KinetoParallelParse::kDefaultBatchBytes, stage_done);
}

trace::Result<trace::Trace> importKineto(ByteSource& source, const ImportOptions& options, std::size_t batch_bytes,
                                         const StageCallback& stage_done) {
  trace::Trace out;
  out.format = trace::TraceFormat::kKineto;
  out.source_format = trace::TraceFormat::kKineto;
  KinetoParallelParse events(source.path(), out, options.threads, batch_bytes);
  if (!source.compressed()) events.expectDocumentBytes(source.fileBytes());
  ChromeTraceStream stream(source);
  stream.setMappedElementsHandler(
      [&](const MappedElements& elements) { return events.readMappedElements(elements, options.progress); });
  const trace::Status streamed =
      stream.run([&](const TraceEventText& text) { return events.add(text); }, options.progress);
  const trace::Status parsed = events.finish();
  // A file that changed under the reader (pages lost under the mapping read as zeros): whatever
  // failed or passed after that is not the file's doing.
  if (trace::Status unchanged = source.unchangedWhileRead(); !unchanged) return unchanged.error();
  // A bad event comes before whatever stopped the stream (the stream stops at the first).
  if (!parsed) return parsed.error();
  if (!streamed) return streamed.error();
  stageDone(stage_done, "events parsed");
  if (!stream.sawEventsArray()) {
    // PyTorch's execution trace (ExecutionTraceObserver, what param's et_replay and Chakra read)
    // is a graph of "nodes" with their inputs: the ops, not their times on the GPU.
    const bool execution_trace = std::any_of(stream.members().begin(), stream.members().end(),
                                             [](const auto& member) { return member.first == "nodes"; });
    return trace::Error{fmt::format("{}: a JSON object without a \"traceEvents\" array{}; expected a PyTorch profiler "
                                    "(Kineto) trace",
                                    source.path(),
                                    execution_trace ? " (a PyTorch execution trace: its \"nodes\" hold the ops, not "
                                                      "their times; record the run with torch.profiler)"
                                                    : "")};
  }
  TopLevelInfo info;
  if (trace::Status read = readTopLevel(source.path(), stream.members(), out, info); !read) {
    return read.error();
  }
  if (trace::Status readable = someEventRead(source.path(), out); !readable) return readable.error();
  events.nameThreads();
  addBaseTime(out, info.base_time_ns);
  // Kineto writes a PM sample's start alone (ChromeTraceLogger::handleCounterEvent): each sample
  // lasts until the next of its device and metric. The sampling period is not in the file, so a
  // series' last sample lasts as long as the period between its first two, and a lone sample no time.
  trace::closeSampleIntervals(out.metric_samples, /*end_at_start=*/false, /*last_period_ns=*/0);
  out.format_detail = kinetoSchemaDescription(events.saw2021Categories(), info);
  // A Kineto file is one process's profiler session: its GPU events' pid is the device, and their
  // correlation ids are that process's.
  out.assignLaunchingProcesses();
  out.sortByTime(threadsToUse(options.threads));
  stageDone(stage_done, "sorted by time");
  normaliseRanges(out, threadsToUse(options.threads));
  stageDone(stage_done, "ranges normalised");
  return out;
}

}  // namespace ampscope::analyzer::import
