#include "analyzer/import/kineto/kineto_event_parser.h"

#include <simdjson.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "analyzer/import/kineto/chrome_trace_stream.h"
#include "analyzer/import/kineto/json_value_end.h"
#include "analyzer/import/kineto/kineto_memory_event.h"
#include "analyzer/import/kineto/kineto_metric_events.h"
#include "analyzer/import/kineto/kineto_parser_tables.h"
#include "analyzer/import/kineto/kineto_value_readers.h"
#include "analyzer/import/kineto/kineto_values.h"

namespace ampscope::analyzer::import {

namespace {

namespace od = simdjson::ondemand;
using trace::Error;
using trace::Status;

// The fields of one trace event that ampscope uses. Views point into the parser's buffers and
// are valid until the next event is parsed.
struct EventFields {
  std::string_view ph, cat, name;
  std::int64_t ts_ns = 0;
  std::int64_t dur_ns = 0;
  bool has_ts = false;
  bool has_dur = false;
  IdValue pid, tid;
  // args
  std::int64_t correlation = 0;
  std::int64_t device = -1;
  std::int64_t stream = -1;
  std::int64_t cbid = 0;
  std::int64_t registers = 0;
  std::int64_t shared_memory = 0;
  std::int64_t bytes = 0;
  std::int64_t sequence = -1;
  std::int64_t fwd_tid = 0;
  std::array<std::uint32_t, 3> grid{};
  std::array<std::uint32_t, 3> block{};
  std::string_view input_dims, input_strides, input_type, concrete_inputs, module_hierarchy, arg_name;
  // A communication op's message (record_param_comms): trace::CommunicationMessage.
  std::string_view collective_name, comm_dtype, group_name, group_ranks;
  std::int64_t in_elements = -1;
  std::int64_t out_elements = -1;
  std::int64_t group_size = -1;
  KinetoMemoryArgs memory;  // a "[memory]" event's
  bool hasMessage() const {
    return !collective_name.empty() || in_elements >= 0 || out_elements >= 0 || group_size >= 0 || !group_name.empty();
  }
};

// Reads events into records of its own trace (out_), whose string table and thread table grow
// from batch to batch while its record vectors are handed over with each batch.
class EventReader {
 public:
  explicit EventReader(std::string path) : path_(std::move(path)) {}

  ParsedBatch parse(const EventBatch& batch);

 private:
  Status handle(const TraceEventText& text) {
    ++out_.import_stats.events_read;
    metric_args_.clear();
    EventFields event;
    if (Status parsed = parseEvent(text, event); !parsed) return parsed;
    return dispatch(text, event);
  }
  Status handle(const TraceEventText& text, od::object object) {
    ++out_.import_stats.events_read;
    metric_args_.clear();
    EventFields event;
    if (Status parsed = readFields(text, object, event); !parsed) return parsed;
    return dispatch(text, event);
  }

  void readElements(const EventBatch& batch, ParsedBatch& parsed);
  void readChunk(const EventBatch& batch, ParsedBatch& parsed);
  // The chunk in chunk_text_[0, length) as one array: every element handled, or the first
  // error (a wrong guess of the chunk's end, or a bad element).
  Status readChunkArray(const GuessedChunk& chunk, std::size_t length, std::uint64_t& elements);

  // Keeps a communication op's message beside its range (trace::CommunicationMessage).
  void addMessage(const trace::Range& range, const EventFields& event);
  // A "[memory]" instant event: an allocation or free (kineto_memory_event.h).
  Status addMemoryEvent(const TraceEventText& text, const EventFields& event);
  [[gnu::cold]] [[gnu::noinline]] void noteMemoryProblems(const TraceEventText& text, const MemoryEventReading& reading);
  // Hardware counters (kineto_metric_events.h): a range-profiler event, a PM-sampling sample.
  Status addKernelMetrics(const TraceEventText& text, const EventFields& event);
  Status addMetricSample(const TraceEventText& text, const EventFields& event);

  Error eventError(const TraceEventText& text, std::string_view what) const {
    return Error{fmt::format("{}: traceEvents element #{} at byte offset {}: {}", path_, text.index,
                             text.byte_offset, what)};
  }
  Status parseEvent(const TraceEventText& text, EventFields& event);
  Status readFields(const TraceEventText& text, od::object object, EventFields& event);
  Status parseArgs(const TraceEventText& text, od::object args, EventFields& event);
  Status dispatch(const TraceEventText& text, const EventFields& event);
  // Why an event of span cannot be placed in time; empty when it can.
  std::string_view unusableTimes(const EventFields& event) const;
  // Where an event lies, for import_stats.first_place: the same text whether the event was read
  // on its own or in a guessed chunk.
  static std::string placeOf(const TraceEventText& text) {
    return fmt::format("traceEvents element at byte offset {}", text.byte_offset);
  }
  // Counts a value of a type or range the format does not document (`prefix` "args." for an
  // argument), which was consumed and left out; the event is kept.
  [[gnu::cold]] [[gnu::noinline]] void noteUnexpectedValue(const TraceEventText& text, std::string_view prefix, std::string_view key,
                           simdjson::error_code error) {
    const char* what = error == simdjson::NUMBER_OUT_OF_RANGE ? "a number out of range"
                                                              : "a value of another type than documented";
    not_understood_.add(fmt::format("{}\"{}\" holding {} (the value is left out, the event kept)", prefix, key, what),
                        [&] { return placeOf(text); });
  }
  trace::Index cpuThread(const EventFields& event) {
    return out_.threadIndex(event.pid.number, event.tid.number);
  }
  void noteCategory(std::string_view cat) {
    if (isWord(cat, "Kernel") || isWord(cat, "Operator") || isWord(cat, "Runtime")) saw_2021_categories_ = true;
  }

  const std::string path_;
  trace::Trace out_;
  od::parser parser_;
  bool saw_2021_categories_ = false;
  std::string stats_key_;
  ReasonCounts skipped_;
  ReasonCounts not_understood_;
  CompactTextIds compact_text_ids_;
  std::vector<std::pair<ThreadKey, std::string>> thread_names_;
  std::vector<char> chunk_text_;  // a guessed chunk's elements between '[' and ']', then padding
  // The args members that no field of EventFields takes, kept where the event's category holds
  // metrics (or is not known yet when its args are read).
  bool keep_metric_args_ = false;
  std::vector<MetricArg> metric_args_;
};

Status EventReader::parseArgs(const TraceEventText& text, od::object args, EventFields& event) {
  for (auto field : args) {
    std::string_view key;
    od::value value;
    if (auto error = field.unescaped_key().get(key)) {
      return eventError(text, fmt::format("bad key in args: {}", simdjson::error_message(error)));
    }
    if (auto error = field.value().get(value)) {
      return eventError(text, fmt::format("bad value of args.\"{}\": {}", key,
                                          simdjson::error_message(error)));
    }
    simdjson::error_code error = simdjson::SUCCESS;
    if (isWord(key, "correlation")) error = readInt(value, event.correlation);
    else if (isWord(key, "device")) error = readInt(value, event.device);
    else if (isWord(key, "stream")) error = readInt(value, event.stream);
    else if (isWord(key, "cbid")) error = readInt(value, event.cbid);
    else if (isWord(key, "registers per thread")) error = readInt(value, event.registers);
    else if (isWord(key, "shared memory")) error = readInt(value, event.shared_memory);
    else if (isWord(key, "bytes")) error = readInt(value, event.bytes);
    else if (isWord(key, "Sequence number")) error = readInt(value, event.sequence);
    else if (isWord(key, "Fwd thread id")) error = readInt(value, event.fwd_tid);
    else if (isWord(key, "grid")) error = readDim3(value, event.grid);
    else if (isWord(key, "block")) error = readDim3(value, event.block);
    else if (isWord(key, "Input Dims")) error = rawArray(value, event.input_dims);
    else if (isWord(key, "Input Strides")) error = rawArray(value, event.input_strides);
    else if (isWord(key, "Input type")) error = rawArray(value, event.input_type);
    else if (isWord(key, "Concrete Inputs")) error = rawArray(value, event.concrete_inputs);
    else if (isWord(key, "Module Hierarchy")) error = readString(value, event.module_hierarchy);
    else if (isWord(key, "name")) error = readString(value, event.arg_name);
    else if (isWord(key, "Collective name")) error = readString(value, event.collective_name);
    else if (isWord(key, "dtype")) error = readTextOrRaw(value, event.comm_dtype);
    else if (isWord(key, "In msg nelems")) error = readInt(value, event.in_elements);
    else if (isWord(key, "Out msg nelems")) error = readInt(value, event.out_elements);
    else if (isWord(key, "Group size")) error = readInt(value, event.group_size);
    else if (isWord(key, "Process Group Name")) error = readTextOrRaw(value, event.group_name);
    else if (isWord(key, "Process Group Ranks")) error = readTextOrRaw(value, event.group_ranks);
    else if (isWord(key, "Bytes")) error = readScalar(value, event.memory.bytes);
    else if (isWord(key, "Device Type")) error = readScalar(value, event.memory.device_type);
    else if (isWord(key, "Device Id")) error = readScalar(value, event.memory.device_id);
    else if (isWord(key, "Addr")) error = readScalar(value, event.memory.address);
    else if (isWord(key, "Total Allocated")) error = readScalar(value, event.memory.total_allocated);
    else if (isWord(key, "Total Reserved")) error = readScalar(value, event.memory.total_reserved);
    else if (keep_metric_args_) {
      MetricArg& arg = metric_args_.emplace_back();
      arg.key = key;
      error = readMetricArg(value, arg.value);
    } else {
      error = skipValue(value);
    }
    if (isUnexpectedValue(error)) {
      noteUnexpectedValue(text, "args.", key, error);
    } else if (error) {
      return eventError(text, fmt::format("args.\"{}\" has an unexpected value: {}", key,
                                          simdjson::error_message(error)));
    }
  }
  return {};
}

Status EventReader::parseEvent(const TraceEventText& text, EventFields& event) {
  const simdjson::padded_string_view json(text.json.data(), text.json.size(), text.padded_capacity);
  od::document document;
  if (auto error = parser_.iterate(json).get(document)) {
    return eventError(text, fmt::format("not valid JSON: {}", simdjson::error_message(error)));
  }
  od::object object;
  if (auto error = document.get_object().get(object)) {
    return eventError(text, fmt::format("not a JSON object: {}", simdjson::error_message(error)));
  }
  if (Status read = readFields(text, object, event); !read) return read;
  // The object must close where the element ends: the stream found that end by its own count
  // of brackets, and a parse that closes elsewhere has read another JSON than the stream saw.
  const char* location = nullptr;
  if (document.current_location().get(location) != simdjson::OUT_OF_BOUNDS) {
    return eventError(text, "not valid JSON: the object does not end where its brackets close");
  }
  return {};
}

Status EventReader::readFields(const TraceEventText& text, od::object object, EventFields& event) {
  for (auto field : object) {
    std::string_view key;
    od::value value;
    if (auto error = field.unescaped_key().get(key)) {
      return eventError(text, fmt::format("bad key: {}", simdjson::error_message(error)));
    }
    if (auto error = field.value().get(value)) {
      return eventError(text, fmt::format("bad value of \"{}\": {}", key,
                                          simdjson::error_message(error)));
    }
    simdjson::error_code error = simdjson::SUCCESS;
    if (isWord(key, "ph")) error = readString(value, event.ph);
    else if (isWord(key, "cat")) error = readString(value, event.cat);
    else if (isWord(key, "name")) error = readString(value, event.name);
    else if (isWord(key, "ts")) {
      if (!(error = readMicroseconds(value, event.ts_ns))) event.has_ts = true;
    } else if (isWord(key, "dur")) {
      if (!(error = readMicroseconds(value, event.dur_ns))) event.has_dur = true;
    } else if (isWord(key, "pid")) error = readId(value, event.pid);
    else if (isWord(key, "tid")) error = readId(value, event.tid);
    else if (isWord(key, "args")) {
      keep_metric_args_ = event.cat.empty() || holdsMetricArgs(event.cat);
      od::object args;
      if (!(error = value.get_object().get(args))) {
        if (Status parsed = parseArgs(text, args, event); !parsed) return parsed;
      } else if (error == simdjson::INCORRECT_TYPE) {
        error = skipValue(value);  // left unread by the failed read
        if (!error) error = simdjson::INCORRECT_TYPE;
      }
    } else {
      error = skipValue(value);
    }
    if (isUnexpectedValue(error)) {
      noteUnexpectedValue(text, "", key, error);
    } else if (error) {
      return eventError(text, fmt::format("\"{}\" has an unexpected value: {}", key,
                                          simdjson::error_message(error)));
    }
  }
  return {};
}

std::string_view EventReader::unusableTimes(const EventFields& event) const {
  if (!event.has_ts) return "without a readable \"ts\"";
  if (!event.has_dur) return "without a readable \"dur\"";
  if (event.dur_ns < 0) return "with a negative \"dur\"";
  // Each of ts and dur fits 64-bit nanoseconds on its own (microsecondsToNs), their sum may not:
  // the end is ts + dur (found by the kineto fuzz harness; signed overflow is undefined).
  if (event.ts_ns > 0 && event.dur_ns > std::numeric_limits<std::int64_t>::max() - event.ts_ns) {
    return "ending past the largest timestamp";
  }
  return {};
}

Status EventReader::dispatch(const TraceEventText& text, const EventFields& event) {
  if (event.ph.empty()) {
    not_understood_.add("event without \"ph\"", [&] { return placeOf(text); });
    return {};
  }
  const char ph = event.ph[0];
  if (ph == 's' || ph == 'f' || ph == 't') {
    skipped_.add("flow events (links re-derived from correlation ids)");
    return {};
  }
  if (ph == 'i' || ph == 'I') {
    if (isWord(event.name, "[memory]")) return addMemoryEvent(text, event);
    // The profiler's marks ("Iteration Start: ...", "[OutOfMemory]" with the size it failed to
    // allocate, which changes nothing in memory): counted by name, the key built in place.
    stats_key_.assign("instant events '").append(event.name).append("'");
    skipped_.add(stats_key_);
    return {};
  }
  if (ph == 'M') {
    if (isWord(event.name, "thread_name") && event.pid.present && event.tid.present) {
      thread_names_.emplace_back(ThreadKey{event.pid.number, event.tid.number}, std::string(event.arg_name));
    }
    skipped_.add("metadata events");
    return {};
  }
  if (ph == 'C' && isWord(event.cat, "hardware_counters")) return addMetricSample(text, event);
  if (ph != 'X') {
    not_understood_.add(fmt::format("events with phase '{}'", event.ph), [&] { return placeOf(text); });
    return {};
  }
  noteCategory(event.cat);
  const EventCategory category = categoryOf(event.cat);
  if (category == EventCategory::kIgnored) {
    skipped_.add(fmt::format("'{}' events", event.cat));
    return {};
  }
  if (category == EventCategory::kUnknown) {
    not_understood_.add(fmt::format("events of category '{}'", event.cat), [&] { return placeOf(text); });
    return {};
  }
  if (const std::string_view unusable = unusableTimes(event); !unusable.empty()) {
    // An event that cannot be placed in time is left out; the rest of the trace is read.
    not_understood_.add(fmt::format("'{}' events {} (left out)", event.cat, unusable), [&] { return placeOf(text); });
    return {};
  }
  if (category == EventCategory::kProfilerRange) return addKernelMetrics(text, event);
  const std::int64_t start = event.ts_ns;
  const std::int64_t end = event.ts_ns + event.dur_ns;
  const auto name = out_.strings.intern(event.name);
  const auto device = static_cast<std::uint32_t>(event.device >= 0 ? event.device : event.pid.number);
  const auto stream = static_cast<std::uint32_t>(event.stream >= 0 ? event.stream : event.tid.number);
  const auto correlation = static_cast<std::uint64_t>(event.correlation);

  switch (category) {
    case EventCategory::kKernel: {
      trace::Kernel& k = out_.kernels.emplace_back();
      k.start_ns = start;
      k.end_ns = end;
      k.correlation_id = correlation;
      k.name = name;
      k.device = device;
      k.stream = stream;
      k.grid = event.grid;
      k.block = event.block;
      k.registers_per_thread = static_cast<std::uint32_t>(event.registers);
      k.shared_memory_bytes = static_cast<std::uint32_t>(event.shared_memory);
      break;
    }
    case EventCategory::kMemcpy:
    case EventCategory::kMemset: {
      trace::MemoryOp& m = out_.memory_ops.emplace_back();
      m.start_ns = start;
      m.end_ns = end;
      m.correlation_id = correlation;
      m.bytes = static_cast<std::uint64_t>(event.bytes);
      m.device = device;
      m.stream = stream;
      m.kind = category == EventCategory::kMemcpy ? trace::MemoryOpKind::kMemcpy
                                                  : trace::MemoryOpKind::kMemset;
      describeMemoryOp(event.name, m);
      break;
    }
    case EventCategory::kRuntime:
    case EventCategory::kDriver: {
      trace::LaunchCall& l = out_.launches.emplace_back();
      l.start_ns = start;
      l.end_ns = end;
      l.correlation_id = correlation;
      l.name = name;
      l.thread = cpuThread(event);
      l.cbid = static_cast<std::int32_t>(event.cbid);
      l.api = category == EventCategory::kDriver ? trace::ApiKind::kDriver : trace::ApiKind::kRuntime;
      break;
    }
    case EventCategory::kSync: {
      trace::Synchronization& y = out_.synchronizations.emplace_back();
      y.start_ns = start;
      y.end_ns = end;
      y.correlation_id = correlation;
      y.device = device;
      y.stream = stream;
      y.kind = syncKindFromName(event.name);
      break;
    }
    case EventCategory::kOperator:
    case EventCategory::kAnnotation:
    case EventCategory::kPython:
    case EventCategory::kGpuAnnotation: {
      trace::Range& r = out_.ranges.emplace_back();
      r.start_ns = start;
      r.end_ns = end;
      r.name = name;
      r.thread = cpuThread(event);
      r.kind = rangeKindOf(category);
      if (!event.input_dims.empty()) r.shapes = compact_text_ids_.intern(event.input_dims, out_.strings);
      if (!event.input_strides.empty()) r.strides = compact_text_ids_.intern(event.input_strides, out_.strings);
      if (!event.input_type.empty()) r.dtypes = compact_text_ids_.intern(event.input_type, out_.strings);
      if (!event.concrete_inputs.empty()) r.arguments = compact_text_ids_.intern(event.concrete_inputs, out_.strings);
      if (!event.module_hierarchy.empty()) r.module_path = out_.strings.intern(event.module_hierarchy);
      r.sequence_number = event.sequence;
      r.fwd_thread_tid = event.fwd_tid;
      if (category == EventCategory::kOperator && event.hasMessage()) addMessage(r, event);
      break;
    }
    case EventCategory::kProfilerRange:  // above
    case EventCategory::kIgnored:
    case EventCategory::kUnknown:
      break;
  }
  ++out_.import_stats.events_imported;
  return {};
}

void EventReader::addMessage(const trace::Range& range, const EventFields& event) {
  trace::CommunicationMessage& m = out_.communication_messages.emplace_back();
  m.thread = range.thread;
  m.start_ns = range.start_ns;
  if (!event.collective_name.empty()) m.collective = out_.strings.intern(event.collective_name);
  if (!event.comm_dtype.empty()) m.dtype = out_.strings.intern(event.comm_dtype);
  m.in_elements = event.in_elements;
  m.out_elements = event.out_elements;
  // A group of more than 2^31 ranks is no group: left unknown.
  if (event.group_size > 0 && event.group_size <= std::numeric_limits<std::int32_t>::max()) {
    m.group_size = static_cast<std::int32_t>(event.group_size);
  }
  if (!event.group_name.empty()) m.group = out_.strings.intern(event.group_name);
  if (!event.group_ranks.empty()) m.group_ranks = out_.strings.intern(event.group_ranks);
}

Status EventReader::addMemoryEvent(const TraceEventText& text, const EventFields& event) {
  if (!event.has_ts) {
    not_understood_.add("'[memory]' events without a readable \"ts\" (left out)", [&] { return placeOf(text); });
    return {};
  }
  trace::MemoryEvent m;
  const MemoryEventReading reading = readMemoryArgs(event.memory, m);
  if (reading.problems != 0) noteMemoryProblems(text, reading);
  if (!reading.usable) return {};
  m.time_ns = event.ts_ns;
  // The allocating thread, as the other host events name it.
  if (event.pid.present) m.pid = event.pid.number;
  if (event.pid.present && event.tid.present) m.thread = cpuThread(event);
  out_.memory_events.push_back(m);
  ++out_.import_stats.events_imported;
  return {};
}

void EventReader::noteMemoryProblems(const TraceEventText& text, const MemoryEventReading& reading) {
  for (int problem = 0; problem < kMemoryArgProblems; ++problem) {
    const auto which = static_cast<MemoryArgProblem>(problem);
    if (reading.has(which)) {
      not_understood_.add(memoryArgProblemReason(which, reading.device_type), [&] { return placeOf(text); });
    }
  }
}

Status EventReader::addKernelMetrics(const TraceEventText& text, const EventFields& event) {
  // The range profiler writes the device as the event's pid, and since 2025 the launch's correlation.
  const ProfilerRangeEvent range{event.name, event.ts_ns, event.ts_ns + event.dur_ns,
                                 static_cast<std::uint32_t>(event.device >= 0 ? event.device : event.pid.number),
                                 static_cast<std::uint64_t>(event.correlation), metric_args_};
  const ProfilerRangeReading reading = readProfilerRange(range, out_.strings, out_.kernel_metrics);
  if (reading.whole_session) {
    skipped_.add(kWholeSessionRange);
    return {};
  }
  for (std::size_t i = 0; i < reading.not_numbers; ++i) not_understood_.add(kRangeValueNotANumber, [&] { return placeOf(text); });
  ++out_.import_stats.events_imported;
  return {};
}

Status EventReader::addMetricSample(const TraceEventText& text, const EventFields& event) {
  const CounterEvent counter{event.name, event.has_ts, event.ts_ns, event.pid.label, metric_args_};
  if (const std::string_view left_out = readCounterSample(counter, out_.strings, out_.metric_samples); !left_out.empty()) {
    not_understood_.add(left_out, [&] { return placeOf(text); });
    return {};
  }
  ++out_.import_stats.events_imported;
  return {};
}

void EventReader::readElements(const EventBatch& batch, ParsedBatch& parsed) {
  if (!batch.events.empty()) parsed.document_end = batch.events.back().byte_offset + batch.events.back().size;
  for (const EventSpan& span : batch.events) {
    const TraceEventText text{std::string_view(batch.text + span.offset, span.size),
                              batch.readable - span.offset, span.byte_offset, span.index};
    if (Status handled = handle(text); !handled) {
      parsed.error = handled.error();
      break;
    }
  }
}

void EventReader::readChunk(const EventBatch& batch, ParsedBatch& parsed) {
  // Copied between brackets, the chunk is one JSON array that simdjson indexes in one pass,
  // where element by element each would be indexed on its own after a scan for its end.
  const GuessedChunk& chunk = *batch.chunk;
  const std::size_t length = chunk.size + 2;
  if (chunk_text_.size() < length + simdjson::SIMDJSON_PADDING) chunk_text_.resize(length + simdjson::SIMDJSON_PADDING);
  chunk_text_[0] = '[';
  std::memcpy(chunk_text_.data() + 1, batch.text, chunk.size);
  chunk_text_[length - 1] = ']';
  std::memset(chunk_text_.data() + length, 0, simdjson::SIMDJSON_PADDING);
  parsed.document_end = chunk.byte_offset + chunk.size;
  if (Status read = readChunkArray(chunk, length, parsed.elements); !read) parsed.error = read.error();
}

Status EventReader::readChunkArray(const GuessedChunk& chunk, std::size_t length, std::uint64_t& elements) {
  // Errors here are never shown: the elements are then read again one by one, which names the
  // bad one (KinetoParallelParse).
  const auto wrong = [&](std::string_view what, simdjson::error_code error) {
    return Error{fmt::format("{}: the chunk guessed at byte offset {} is not whole elements: {}: {}", path_,
                             chunk.byte_offset, what, simdjson::error_message(error))};
  };
  od::document document;
  if (auto error = parser_.iterate(simdjson::padded_string_view(chunk_text_.data(), length, chunk_text_.size()))
                       .get(document)) {
    return wrong("not valid JSON", error);
  }
  od::array array;
  if (auto error = document.get_array().get(array)) return wrong("not an array", error);
  // chunk_text_[1] is the chunk's first byte in the document.
  const char* const chunk_start = chunk_text_.data() + 1;
  for (auto element : array) {
    const char* start = nullptr;
    if (auto error = element.current_location().get(start)) return wrong("an element has no place", error);
    od::object object;
    if (auto error = element.get_object().get(object)) return wrong("an element is not an object", error);
    // The element's place in the document; its index is not known here (an error sends the
    // chunk back to be read element by element, which knows it).
    const TraceEventText text{std::string_view(), 0,
                              chunk.byte_offset + static_cast<std::uint64_t>(start - chunk_start), elements};
    if (Status handled = handle(text, object); !handled) return handled;
    ++elements;
  }
  // The array must end at the chunk's end: when the guess cut an element short, an earlier
  // bracket can close what simdjson took for the array.
  const char* location = nullptr;
  if (document.current_location().get(location) != simdjson::OUT_OF_BOUNDS) {
    return wrong("text follows the elements", simdjson::TAPE_ERROR);
  }
  return {};
}

ParsedBatch EventReader::parse(const EventBatch& batch) {
  ParsedBatch parsed;
  parsed.first_new_string = static_cast<trace::StringId>(out_.strings.size());
  parsed.first_new_thread = out_.threads.size();
  if (batch.chunk) readChunk(batch, parsed);
  else readElements(batch, parsed);
  parsed.kernels = std::exchange(out_.kernels, {});
  parsed.launches = std::exchange(out_.launches, {});
  parsed.memory_ops = std::exchange(out_.memory_ops, {});
  parsed.synchronizations = std::exchange(out_.synchronizations, {});
  parsed.ranges = std::exchange(out_.ranges, {});
  parsed.memory_events = std::exchange(out_.memory_events, {});
  parsed.communication_messages = std::exchange(out_.communication_messages, {});
  parsed.kernel_metrics = std::exchange(out_.kernel_metrics, {});
  parsed.metric_samples = std::exchange(out_.metric_samples, {});
  skipped_.moveCountsInto(out_.import_stats.skipped);
  not_understood_.moveNotUnderstoodInto(out_.import_stats);
  parsed.stats = std::exchange(out_.import_stats, {});
  for (std::size_t id = parsed.first_new_string; id < out_.strings.size(); ++id) {
    parsed.new_strings.emplace_back(out_.strings.view(static_cast<trace::StringId>(id)));
  }
  for (std::size_t i = parsed.first_new_thread; i < out_.threads.size(); ++i) {
    parsed.new_threads.emplace_back(out_.threads[i].pid, out_.threads[i].tid);
  }
  parsed.thread_names = std::exchange(thread_names_, {});
  parsed.saw_2021_categories = std::exchange(saw_2021_categories_, false);
  return parsed;
}

}  // namespace

struct KinetoEventParser::State : EventReader {
  using EventReader::EventReader;
};

KinetoEventParser::KinetoEventParser(std::string path) : state_(std::make_unique<State>(std::move(path))) {}
KinetoEventParser::~KinetoEventParser() = default;

ParsedBatch KinetoEventParser::parse(const EventBatch& batch) { return state_->parse(batch); }

}  // namespace ampscope::analyzer::import
