#include "trace/db/profile_reader.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "trace/db/kernel_rows.h"
#include "trace/db/metric_rows.h"
#include "trace/db/profile_schema.h"
#include "trace/db/table_reader.h"
#include "trace/db/sqlite_database.h"

namespace ampscope::trace::db {

namespace {

// Checks that a stored string id points into the strings table.
class StringIdCheck {
 public:
  StringIdCheck(const SqliteDatabase& db, const StringTable& strings)
      : db_(db), count_(strings.size()) {}
  Status check(std::string_view table, std::int64_t row, std::string_view column,
               std::int64_t value, StringId& out) const {
    if (value < 0 || static_cast<std::uint64_t>(value) >= count_) {
      return Error{fmt::format("{}: table '{}' row {}: {} = {} is not a string id (0..{})",
                               db_.path(), table, row, column, value, count_ - 1)};
    }
    out = static_cast<StringId>(value);
    return {};
  }

 private:
  const SqliteDatabase& db_;
  std::size_t count_;
};

Status readVersion(SqliteDatabase& db) {
  auto statement = db.prepare("SELECT value FROM ampscope_meta WHERE key = 'schema_version'");
  if (!statement) return statement.error();
  if (!statement->step()) {
    return Error{fmt::format("{}: table 'ampscope_meta' has no 'schema_version' row", db.path())};
  }
  const std::string version(statement->text(0));
  int major = -1;
  const auto [end, ec] = std::from_chars(version.data(), version.data() + version.size(), major);
  if (ec != std::errc() || (end != version.data() + version.size() && *end != '.')) {
    return Error{fmt::format("{}: schema_version '{}' is not of the form MAJOR.MINOR", db.path(),
                             version)};
  }
  if (major > kSchemaMajor) {
    return Error{fmt::format(
        "{}: profile schema version {} is newer than this build of ampscope reads ({}.x); "
        "use a newer ampscope",
        db.path(), version, kSchemaMajor)};
  }
  return {};
}

TraceFormat formatFromName(std::string_view name) {
  for (TraceFormat format : {TraceFormat::kKineto, TraceFormat::kNsightSystems,
                             TraceFormat::kNvprof, TraceFormat::kAmpscope}) {
    if (name == formatName(format)) return format;
  }
  return TraceFormat::kUnknown;
}

template <typename Enum>
Enum enumValue(std::int64_t value) {
  return static_cast<Enum>(static_cast<std::uint8_t>(value));
}

std::uint32_t u32(std::int64_t value) { return static_cast<std::uint32_t>(value); }
std::uint64_t u64(std::int64_t value) { return static_cast<std::uint64_t>(value); }

}  // namespace

bool isProfileDatabase(SqliteDatabase& db) { return db.hasTable(kMetaTable); }

Result<Trace> readProfile(const std::string& path) {
  auto db = SqliteDatabase::open(path, SqliteDatabase::Mode::kReadOnly);
  if (!db) return db.error();
  return readProfile(*db);
}

Result<Trace> readProfile(SqliteDatabase& db) {
  if (!isProfileDatabase(db)) {
    return Error{fmt::format("{}: not an ampscope profile (table 'ampscope_meta' is missing)",
                             db.path())};
  }
  if (Status version = readVersion(db); !version) return version.error();
  db.mapPages(kProfileMappedBytes);

  Trace trace;
  trace.format = TraceFormat::kAmpscope;
  Status status = forEachRow(db, "ampscope_meta", {"key", "value"},
                            [&](std::int64_t, Statement& s) -> Status {
                              if (s.text(0) == "source_format") trace.source_format = formatFromName(s.text(1));
                              if (s.text(0) == "source_detail") trace.format_detail = s.text(1);
                              // Where the run sits in a distributed job; checked as a whole below.
                              for (auto [key, field] : {std::pair<std::string_view, std::int32_t*>{"rank", &trace.distributed.rank},
                                                        {"world_size", &trace.distributed.world_size}}) {
                                if (s.text(0) != key) continue;
                                const std::string_view text = s.text(1);
                                const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *field);
                                if (ec != std::errc() || end != text.data() + text.size()) {
                                  return Error{fmt::format("{}: table 'ampscope_meta' key '{}' is '{}'; expected an integer",
                                                           db.path(), key, text)};
                                }
                              }
                              if (s.text(0) == "backend") trace.distributed.backend = s.text(1);
                              return {};
                            });
  if (!status) return status.error();
  // A rank may be stored without a world size (0: unknown), never a world size without a rank.
  const DistributedInfo& job = trace.distributed;
  if ((job.rank >= 0 || job.world_size != 0) &&
      (job.rank < 0 || job.world_size < 0 || (job.world_size > 0 && job.rank >= job.world_size))) {
    return Error{fmt::format("{}: table 'ampscope_meta' has rank {} of world_size {}; expected 0 <= rank < world_size "
                             "(world_size 0: unknown)",
                             db.path(), job.rank, job.world_size)};
  }

  status = forEachRow(db, "strings", {"id", "value"}, [&](std::int64_t row, Statement& s) -> Status {
    // Ids are dense and in order, so that stored ids stay valid after re-interning.
    const std::int64_t expected = static_cast<std::int64_t>(trace.strings.size());
    if (row == 1 && s.int64(0) == 0) return {};  // the empty string, always present
    if (s.int64(0) != expected || trace.strings.intern(s.text(1)) != expected) {
      return Error{fmt::format("{}: table 'strings' row {}: id {} out of sequence or repeated "
                               "(expected {})", db.path(), row, s.int64(0), expected)};
    }
    return {};
  });
  if (!status) return status.error();
  const StringIdCheck ids(db, trace.strings);

  // Schema 1.0 files lack the columns and table that 1.1 added; they read as their defaults.
  const bool has_device_kind = db.hasColumn("devices", "kind");
  // Schema 1.6 added the clock and the bandwidth; older files read them as unknown (0).
  const bool has_device_clock = db.hasColumn("devices", "sm_clock_khz");
  std::vector<std::string_view> device_columns = {"id", "name_id", "compute_major", "compute_minor",
                                                  "sm_count", "total_memory_bytes"};
  if (has_device_kind) device_columns.push_back("kind");
  if (has_device_kind && has_device_clock) {
    device_columns.push_back("sm_clock_khz");
    device_columns.push_back("memory_bandwidth_bytes_per_s");
  }
  status = forEachRow(db, "devices", device_columns,
                     [&](std::int64_t row, Statement& s) -> Status {
                       Device& d = trace.devices.emplace_back();
                       if (has_device_kind) d.kind = enumValue<DeviceKind>(s.int64(6));
                       if (has_device_kind && has_device_clock) {
                         d.sm_clock_khz = std::max<std::int64_t>(0, s.int64(7));
                         d.memory_bandwidth_bytes_per_s = u64(std::max<std::int64_t>(0, s.int64(8)));
                       }
                       d.id = u32(s.int64(0));
                       d.compute_major = static_cast<std::int32_t>(s.int64(2));
                       d.compute_minor = static_cast<std::int32_t>(s.int64(3));
                       d.sm_count = static_cast<std::int32_t>(s.int64(4));
                       d.total_memory_bytes = u64(s.int64(5));
                       return ids.check("devices", row, "name_id", s.int64(1), d.name);
                     });
  if (!status) return status.error();

  status = forEachRow(db, "threads", {"id", "pid", "tid", "name_id"},
                     [&](std::int64_t row, Statement& s) -> Status {
                       if (s.int64(0) != static_cast<std::int64_t>(trace.threads.size())) {
                         return Error{fmt::format("{}: table 'threads' row {}: id {} out of sequence",
                                                  db.path(), row, s.int64(0))};
                       }
                       Thread& t = trace.threads.emplace_back();
                       t.pid = s.int64(1);
                       t.tid = s.int64(2);
                       return ids.check("threads", row, "name_id", s.int64(3), t.name);
                     });
  if (!status) return status.error();
  const auto threadCheck = [&](std::string_view table, std::int64_t row, std::int64_t value,
                               Index& out) -> Status {
    if (value < kNone || value >= static_cast<std::int64_t>(trace.threads.size())) {
      return Error{fmt::format("{}: table '{}' row {}: thread_id {} is not a thread id", db.path(),
                               table, row, value)};
    }
    out = static_cast<Index>(value);
    return {};
  };

  status = readTableRows(db, "launches", {"start_ns", "end_ns", "correlation_id", "name_id", "thread_id", "cbid", "api"}, trace.launches,
                     [&](std::int64_t row, Statement& s, LaunchCall& l) -> Status {
                       l.start_ns = s.int64(0);
                       l.end_ns = s.int64(1);
                       l.correlation_id = u64(s.int64(2));
                       l.cbid = static_cast<std::int32_t>(s.int64(5));
                       l.api = enumValue<ApiKind>(s.int64(6));
                       if (Status name = ids.check("launches", row, "name_id", s.int64(3), l.name); !name) return name;
                       return threadCheck("launches", row, s.int64(4), l.thread);
                     });
  if (!status) return status.error();

  status = readKernelRows(db, trace);
  if (!status) return status.error();

  // Schema 1.4 adds the process of GPU records; older profiles get it from their launches on import.
  std::vector<std::string_view> memory_columns = {"start_ns", "end_ns", "correlation_id", "bytes", "device", "stream",
                                                  "kind", "direction", "src_kind", "dst_kind"};
  const bool memory_pid = db.hasColumn("memory_ops", "pid");
  if (memory_pid) memory_columns.push_back("pid");
  status = readTableRows(db, "memory_ops", memory_columns, trace.memory_ops,
                     [&](std::int64_t, Statement& s, MemoryOp& m) -> Status {
                       m.start_ns = s.int64(0);
                       m.end_ns = s.int64(1);
                       m.correlation_id = u64(s.int64(2));
                       m.bytes = u64(s.int64(3));
                       m.device = u32(s.int64(4));
                       m.stream = u32(s.int64(5));
                       m.kind = enumValue<MemoryOpKind>(s.int64(6));
                       m.direction = enumValue<CopyDirection>(s.int64(7));
                       m.src_kind = enumValue<MemoryKind>(s.int64(8));
                       m.dst_kind = enumValue<MemoryKind>(s.int64(9));
                       if (memory_pid) m.pid = s.int64(10);
                       return {};
                     });
  if (!status) return status.error();

  std::vector<std::string_view> sync_columns = {"start_ns", "end_ns", "correlation_id", "device", "stream", "kind"};
  const bool sync_pid = db.hasColumn("synchronizations", "pid");
  if (sync_pid) sync_columns.push_back("pid");
  status = readTableRows(db, "synchronizations", sync_columns, trace.synchronizations,
                     [&](std::int64_t, Statement& s, Synchronization& y) -> Status {
                       y.start_ns = s.int64(0);
                       y.end_ns = s.int64(1);
                       y.correlation_id = u64(s.int64(2));
                       y.device = u32(s.int64(3));
                       y.stream = u32(s.int64(4));
                       y.kind = enumValue<SyncKind>(s.int64(5));
                       if (sync_pid) y.pid = s.int64(6);
                       return {};
                     });
  if (!status) return status.error();

  const bool has_nvtx_columns = db.hasColumn("ranges", "domain_id");
  std::vector<std::string_view> range_columns = {"start_ns", "end_ns", "name_id", "thread_id", "kind", "phase", "op_id",
                      "shapes_id", "dtypes_id", "layer_id", "sequence_number", "fwd_thread_tid"};
  if (has_nvtx_columns) range_columns.insert(range_columns.end(), {"domain_id", "category", "payload_id"});
  // Schema 1.2 keeps what the range normaliser read; older profiles are normalised again on import.
  const bool has_text_columns = has_nvtx_columns && db.hasColumn("ranges", "text_form");
  if (has_text_columns) range_columns.insert(range_columns.end(), {"text_form", "module_path_id", "record_op_id"});
  // Schema 1.3 adds the argument values; older profiles have none recorded.
  const bool has_arguments = has_text_columns && db.hasColumn("ranges", "arguments_id");
  if (has_arguments) range_columns.push_back("arguments_id");
  // Schema 1.5 adds the inputs' strides; older profiles have none recorded.
  const bool has_strides = has_arguments && db.hasColumn("ranges", "strides_id");
  if (has_strides) range_columns.push_back("strides_id");
  status = readTableRows(db, "ranges", range_columns, trace.ranges,
                     [&](std::int64_t row, Statement& s, Range& r) -> Status {
                       r.start_ns = s.int64(0);
                       r.end_ns = s.int64(1);
                       r.kind = enumValue<RangeKind>(s.int64(4));
                       r.phase = enumValue<Phase>(s.int64(5));
                       r.sequence_number = s.int64(10);
                       r.fwd_thread_tid = s.int64(11);
                       std::vector<std::pair<int, StringId*>> string_columns = {
                           {2, &r.name}, {6, &r.op}, {7, &r.shapes}, {8, &r.dtypes}, {9, &r.layer}};
                       if (has_nvtx_columns) {
                         r.category = u32(s.int64(13));
                         string_columns.insert(string_columns.end(), {{12, &r.domain}, {14, &r.payload}});
                       }
                       if (has_text_columns) {
                         r.text_form = enumValue<trace::RangeTextForm>(s.int64(15));
                         r.op_id = s.int64(17);
                         string_columns.push_back({16, &r.module_path});
                       }
                       if (has_arguments) string_columns.push_back({18, &r.arguments});
                       if (has_strides) string_columns.push_back({19, &r.strides});
                       for (const auto& [column, field] : string_columns) {
                         Status checked = ids.check("ranges", row, range_columns[static_cast<std::size_t>(column)],
                                                    s.int64(column), *field);
                         if (!checked) return checked;
                       }
                       return threadCheck("ranges", row, s.int64(3), r.thread);
                     });
  if (!status) return status.error();

  status = readTableRows(db, "counters", {"time_ns", "name_id", "step", "value"}, trace.counters,
                     [&](std::int64_t row, Statement& s, Counter& c) -> Status {
                       c.time_ns = s.int64(0);
                       c.step = s.int64(2);
                       c.value = s.real(3);
                       return ids.check("counters", row, "name_id", s.int64(1), c.name);
                     });
  if (!status) return status.error();

  if (db.hasTable("gradient_bins")) {
    status = readTableRows(db, "gradient_bins", {"step", "time_ns", "tensor_id", "exponent", "count"}, trace.gradient_bins,
                           [&](std::int64_t row, Statement& s, GradientBin& b) -> Status {
                             b.step = s.int64(0);
                             b.time_ns = s.int64(1);
                             b.exponent = static_cast<std::int32_t>(s.int64(3));
                             b.count = u64(s.int64(4));
                             return ids.check("gradient_bins", row, "tensor_id", s.int64(2), b.tensor);
                           });
    if (!status) return status.error();
  }

  // Schema 1.7 adds memory events; older profiles have none recorded.
  if (db.hasTable("memory_events")) {
    status = readTableRows(db, "memory_events",
                           {"time_ns", "bytes", "address", "total_allocated", "total_reserved", "device_kind", "device",
                            "thread_id", "pid"},
                           trace.memory_events, [&](std::int64_t row, Statement& s, MemoryEvent& m) -> Status {
                             m.time_ns = s.int64(0);
                             m.bytes = s.int64(1);
                             m.address = u64(s.int64(2));
                             // Anything negative is "not recorded", whatever a writer put there.
                             m.total_allocated = std::max(s.int64(3), MemoryEvent::kNotRecorded);
                             m.total_reserved = std::max(s.int64(4), MemoryEvent::kNotRecorded);
                             m.device_kind = enumValue<DeviceKind>(s.int64(5));
                             m.device = u32(s.int64(6));
                             m.pid = s.int64(8);
                             return threadCheck("memory_events", row, s.int64(7), m.thread);
                           });
    if (!status) return status.error();
  }

  // Schema 1.8 adds hardware metrics; older profiles have none recorded.
  if (Status metrics = readMetricRows(db, trace); !metrics) return metrics.error();

  const bool has_place = db.hasColumn("import_stats", "place");
  std::vector<std::string_view> stat_columns = {"section", "key", "value"};
  if (has_place) stat_columns.push_back("place");
  status = forEachRow(db, "import_stats", stat_columns,
                     [&](std::int64_t, Statement& s) -> Status {
                       ImportStats& stats = trace.import_stats;
                       const std::string_view section = s.text(0);
                       const std::string key(s.text(1));
                       const std::uint64_t value = u64(s.int64(2));
                       if (section == "skipped") stats.skipped[key] = value;
                       else if (section == "not_understood") {
                         stats.not_understood[key] = value;
                         if (has_place && !s.text(3).empty()) stats.first_place[key] = std::string(s.text(3));
                       }
                       else if (section == "lost") stats.lost[key] = value;
                       else if (key == "events_read") stats.events_read = value;
                       else if (key == "events_imported") stats.events_imported = value;
                       else if (key == "gpu_records_without_launch") stats.gpu_records_without_launch = value;
                       else if (key == "dropped_by_collector") stats.dropped_by_collector = value;
                       return {};
                     });
  if (!status) return status.error();
  return trace;
}

}  // namespace ampscope::trace::db
