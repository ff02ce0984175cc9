#include "analyzer/import/nsight/nsys_gpu_metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "analyzer/import/nsight/foreign_strings.h"
#include "analyzer/import/nsight/nsys_rows.h"
#include "trace/db/sqlite_database.h"

namespace ampscope::analyzer::import {

namespace {

using trace::Status;
using trace::db::SqliteDatabase;
using trace::db::Statement;

constexpr const char* kMetrics = "GPU_METRICS";
constexpr const char* kMetricNames = "TARGET_INFO_GPU_METRICS";
constexpr const char* kGpus = "TARGET_INFO_GPU";
constexpr const char* kGenericEvents = "GENERIC_EVENTS";
constexpr const char* kGenericTypes = "GENERIC_EVENT_TYPES";
constexpr const char* kGenericSources = "GENERIC_EVENT_SOURCES";
// Nsight's default sampling frequency (--gpu-metrics-frequency, 10 kHz), for an export that does
// not record the one it used.
constexpr std::int64_t kDefaultFrequencyHz = 10'000;

// A GPU metric type's id (typeId) is a serialized GlobalId like globalTid: its top 16 bits are the
// hardware and VM ids (TARGET_INFO_GPU.vmId has the same), its low 8 bits Nsight's id of the GPU
// (TARGET_INFO_GPU.id), as NVIDIA's gpu_metric_util_map recipe reads it (typeId & 0xFF).
std::uint64_t machineBits(std::int64_t global_id) { return static_cast<std::uint64_t>(global_id) >> 48; }
std::int64_t nsysGpuId(std::int64_t type_id) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(type_id) & 0xFFu);
}

// The export's GPUs by Nsight's id, each with the device ordinal the trace's devices and kernels
// carry (cuDevice where recorded).
class GpuOrdinals {
 public:
  Status load(SqliteDatabase& db) {
    if (!db.hasTable(kGpus)) return {};
    const NsysColumns c(db, kGpus, {"id"}, {"vmId", "cuDevice"});
    return trace::db::forEachRow(db, kGpus, c.names(), [&](std::int64_t, Statement& s) -> Status {
      gpus_.push_back({.machine = machineBits(valueOr(s, c["vmId"], 0)), .id = s.int64(0),
                       .ordinal = deviceOrdinal(s, c["cuDevice"], s.int64(0))});
      return {};
    });
  }

  // The ordinal of the GPU a metric type samples: the row of its VM, else the first of its id.
  std::optional<std::uint32_t> find(std::int64_t type_id) const {
    const Gpu* same_id = nullptr;
    for (const Gpu& gpu : gpus_) {
      if (gpu.id != nsysGpuId(type_id)) continue;
      if (gpu.machine == machineBits(type_id)) return gpu.ordinal;
      if (same_id == nullptr) same_id = &gpu;
    }
    return same_id != nullptr ? std::optional<std::uint32_t>(same_id->ordinal) : std::nullopt;
  }

 private:
  struct Gpu {
    std::uint64_t machine = 0;
    std::int64_t id = 0;
    std::uint32_t ordinal = 0;
  };
  std::vector<Gpu> gpus_;
};

// Checks each sample a table gives and keeps those that can be placed; the others are counted with
// their row under a reason that names the table.
class SampleSink {
 public:
  SampleSink(std::string_view table, trace::Trace& out) : table_(table), out_(out) {}

  void add(std::int64_t row, std::optional<std::int64_t> time_ns, std::optional<std::uint32_t> device,
           trace::StringId metric, std::optional<double> value) {
    ++out_.import_stats.events_read;
    if (!time_ns) return leftOut(row, "without a time on the session's timeline");
    if (!device) return leftOut(row, fmt::format("of a GPU that {} does not list", kGpus));
    if (!value || !std::isfinite(*value)) return leftOut(row, "whose value is not a number");
    // A negative value is an unsigned 32-bit counter that GPU_METRICS wrote as signed, a fault
    // NVIDIA acknowledges; seen on clock frequencies of samples taken before the session's start,
    // whose unsigned value is no clock the GPU can run at either.
    if (*value < 0) return leftOut(row, "whose value is negative: an unsigned counter the export wrote as signed");
    // No end yet (end_ns = start_ns): closeSampleIntervals gives it one. 0 would not do: samples
    // taken before the session's start have negative times.
    out_.metric_samples.push_back({.start_ns = *time_ns, .end_ns = *time_ns, .device = *device, .metric = metric,
                                   .value = *value});
    ++out_.import_stats.events_imported;
  }

  // A row read but not a sample that can be placed.
  void reject(std::int64_t row, std::string_view why) {
    ++out_.import_stats.events_read;
    leftOut(row, why);
  }

 private:
  void leftOut(std::int64_t row, std::string_view why) {
    out_.import_stats.notUnderstood(fmt::format("{} GPU metric samples {} (left out)", table_, why), rowPlace(table_, row));
  }

  std::string_view table_;
  trace::Trace& out_;
};

// What one (typeId, metricId) of TARGET_INFO_GPU_METRICS names: the metric, and its GPU's ordinal.
struct Series {
  trace::StringId metric = trace::StringTable::kEmpty;
  std::optional<std::uint32_t> device;
};

// True when table has every one of columns; else counts the table's samples as not understood
// (another Nsight version's columns), naming the first column missing: the rest of the file is read.
bool hasColumns(SqliteDatabase& db, std::string_view table, std::initializer_list<std::string_view> columns,
                trace::Trace& out) {
  const std::vector<std::string> present = db.columns(table);
  for (std::string_view column : columns) {
    if (std::find(present.begin(), present.end(), column) != present.end()) continue;
    out.import_stats.notUnderstood(
        fmt::format("{} without column '{}': its GPU metric samples are not read", table, column),
        fmt::format("table '{}'", table));
    return false;
  }
  return true;
}

// Nsight Systems 2023.x and later: one GPU_METRICS row per metric per sample.
Status readMetricTable(SqliteDatabase& db, const GpuOrdinals& gpus, trace::Trace& out) {
  if (!hasColumns(db, kMetrics, {"timestamp", "typeId", "metricId", "value"}, out)) return {};
  std::map<std::pair<std::int64_t, std::int64_t>, Series> series;
  if (db.hasTable(kMetricNames) && hasColumns(db, kMetricNames, {"typeId", "metricId", "metricName"}, out)) {
    const Status named = trace::db::forEachRow(
        db, kMetricNames, {"typeId", "metricId", "metricName"}, [&](std::int64_t, Statement& s) -> Status {
          series.try_emplace({s.int64(0), s.int64(1)}, Series{out.strings.intern(s.text(2)), gpus.find(s.int64(0))});
          return {};
        });
    if (!named) return named;
  }
  // Millions of rows in a long recording: room for all of them at once, not twice that while the
  // vector doubles.
  if (auto count = db.prepare(fmt::format("SELECT count(*) FROM {}", kMetrics)); count && count->step()) {
    const auto rows = static_cast<std::size_t>(std::max<std::int64_t>(0, count->int64(0)));
    out.metric_samples.reserve(out.metric_samples.size() + rows);
  }
  SampleSink sink(kMetrics, out);
  return trace::db::forEachRow(
      db, kMetrics, {"timestamp", "typeId", "metricId", "value"}, [&](std::int64_t row, Statement& s) -> Status {
        const auto found = series.find({s.int64(1), s.int64(2)});
        if (found == series.end()) {
          sink.reject(row, fmt::format("whose typeId and metricId {} does not name", kMetricNames));
          return {};
        }
        sink.add(row, s.isNull(0) ? std::nullopt : std::optional<std::int64_t>(s.int64(0)), found->second.device,
                 found->second.metric, s.isNull(3) ? std::nullopt : std::optional<double>(s.real(3)));
        return {};
      });
}

// "52" as 52; nullopt for text that is not a number.
std::optional<double> numberIn(std::string_view text) {
  double value = 0.0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// A GENERIC_EVENTS type of Nsight's GPU metrics source: its GPU, and whether the source's clock is
// the session's (then rawTimestamp is already a session time).
struct GenericType {
  std::optional<std::uint32_t> device;
  bool raw_is_session_time = false;
};

// Exports of Nsight Systems before GPU_METRICS: each sample is one GENERIC_EVENTS row of a type
// whose source is named "GpuMetrics", its data a JSON object of metric name to value as text
// ({"SM Active": "52", ...}). SQLite's JSON functions take the object apart.
Status readGenericEvents(SqliteDatabase& db, const GpuOrdinals& gpus, trace::Trace& out) {
  if (!db.hasTable(kGenericEvents) || !db.hasTable(kGenericTypes) || !db.hasTable(kGenericSources)) return {};
  SampleSink sink(kGenericEvents, out);
  auto types_query = db.prepare(fmt::format(
      "SELECT t.typeId, json_extract(s.data, '$.TimeSource') FROM {} t JOIN {} s ON s.sourceId = t.sourceId "
      "WHERE json_extract(s.data, '$.Name') = 'GpuMetrics'",
      kGenericTypes, kGenericSources));
  if (!types_query) {  // a schema of another shape, or an SQLite built without JSON functions
    out.import_stats.notUnderstood(fmt::format("{} GPU metric types that could not be read (left out): {}",
                                               kGenericTypes, types_query.error().message),
                                   fmt::format("table '{}'", kGenericTypes));
    return {};
  }
  std::map<std::int64_t, GenericType> types;
  while (types_query->step()) {
    types[types_query->int64(0)] = {gpus.find(types_query->int64(0)), types_query->text(1) == "SessionNs"};
  }
  if (Status status = types_query->status(); !status) return status;
  if (types.empty()) return {};
  std::string type_ids;
  for (const auto& [type_id, type] : types) type_ids += fmt::format("{}{}", type_ids.empty() ? "" : ",", type_id);
  // A row whose data is no JSON object yields one row with a NULL key, counted below, instead of
  // an error that would stop the read.
  constexpr const char* kObjectOrNull = "CASE WHEN json_valid(e.data) THEN CASE WHEN json_type(e.data) = 'object' "
                                        "THEN e.data END END";
  auto samples = db.prepare(fmt::format(
      "SELECT e.rowid, e.timestamp, e.rawTimestamp, e.typeId, j.key, j.value FROM {} e LEFT JOIN json_each({}) j "
      "WHERE e.typeId IN ({}) ORDER BY e.rowid",
      kGenericEvents, kObjectOrNull, type_ids));
  if (!samples) {
    out.import_stats.notUnderstood(fmt::format("{} GPU metric samples that could not be read (left out): {}",
                                               kGenericEvents, samples.error().message),
                                   fmt::format("table '{}'", kGenericEvents));
    return {};
  }
  while (samples->step()) {
    const Statement& s = *samples;
    if (s.isNull(4)) {
      sink.reject(s.int64(0), "whose data is no JSON object of metric values");
      continue;
    }
    const GenericType& type = types[s.int64(3)];
    std::optional<std::int64_t> time_ns;
    if (!s.isNull(1)) {
      time_ns = s.int64(1);
    } else if (type.raw_is_session_time && !s.isNull(2)) {
      time_ns = s.int64(2);
    }
    sink.add(s.int64(0), time_ns, type.device, out.strings.intern(s.text(4)), numberIn(s.text(5)));
  }
  return samples->status();
}

// The period the GPU was sampled at, from the frequency the capture recorded. Only the last sample
// of a series that has no other takes it: the others end where the next begins, the period the
// hardware kept (on Turing and GA100 it counts SYS clock cycles, not time).
std::int64_t samplingPeriodNs(SqliteDatabase& db) {
  std::int64_t frequency_hz = kDefaultFrequencyHz;
  if (db.hasTable("META_DATA_CAPTURE")) {
    auto option = db.prepare("SELECT value FROM META_DATA_CAPTURE WHERE name = 'GPU_METRICS_OPTIONS:SAMPLING_FREQUENCY'");
    if (option && option->step() && option->int64(0) > 0) frequency_hz = option->int64(0);
  }
  return std::max<std::int64_t>(1, 1'000'000'000 / frequency_hz);
}

}  // namespace

Status readGpuMetrics(SqliteDatabase& db, trace::Trace& out) {
  const bool metric_table = db.hasTable(kMetrics);
  if (!metric_table && !db.hasTable(kGenericEvents)) return {};
  GpuOrdinals gpus;
  if (Status loaded = gpus.load(db); !loaded) return loaded;
  const std::size_t before = out.metric_samples.size();
  // Exports that have GPU_METRICS repeat its samples in GENERIC_EVENTS: one of the two is read.
  const Status read = metric_table ? readMetricTable(db, gpus, out) : readGenericEvents(db, gpus, out);
  if (!read) return read;
  // Each sample's time is the start of its period: a sample covers [its time, the next sample's).
  // Measured on A100 exports (docs/formats/nsight_systems.md, "GPU metrics").
  if (out.metric_samples.size() > before) trace::closeSampleIntervals(out.metric_samples, false, samplingPeriodNs(db));
  return {};
}

}  // namespace ampscope::analyzer::import
