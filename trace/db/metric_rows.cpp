#include "trace/db/metric_rows.h"

#include <fmt/format.h>

#include <string_view>
#include <vector>

#include "trace/db/sqlite_database.h"
#include "trace/db/table_reader.h"

namespace ampscope::trace::db {

namespace {

// One row of kernel_metric_values, checked, before it joins its range.
struct ValueRow {
  std::int64_t range_id = 0;
  MetricValue value;
};

class IdCheck {
 public:
  IdCheck(const SqliteDatabase& db, const Trace& trace) : db_(db), strings_(static_cast<std::int64_t>(trace.strings.size())) {}

  Status string(std::string_view table, std::int64_t row, std::string_view column, std::int64_t value,
                StringId& out) const {
    if (value < 0 || value >= strings_) {
      return Error{fmt::format("{}: table '{}' row {}: {} = {} is not a string id (0..{})", db_.path(), table, row,
                               column, value, strings_ - 1)};
    }
    out = static_cast<StringId>(value);
    return {};
  }

 private:
  const SqliteDatabase& db_;
  std::int64_t strings_;
};

Status readSamples(SqliteDatabase& db, const IdCheck& ids, Trace& trace) {
  return readTableRows(db, "metric_samples", {"start_ns", "end_ns", "device", "metric_id", "value"},
                       trace.metric_samples, [&](std::int64_t row, Statement& s, MetricSample& m) -> Status {
                         m.start_ns = s.int64(0);
                         m.end_ns = s.int64(1);
                         m.device = static_cast<std::uint32_t>(s.int64(2));
                         m.value = s.real(4);
                         return ids.string("metric_samples", row, "metric_id", s.int64(3), m.metric);
                       });
}

Status readRanges(SqliteDatabase& db, const IdCheck& ids, Trace& trace) {
  return forEachRow(
      db, "kernel_metrics",
      {"id", "start_ns", "end_ns", "kernel_name_id", "correlation_id", "device", "pid", "times_measured"},
      [&](std::int64_t row, Statement& s) -> Status {
        // Dense ids in order, so that kernel_metric_values can name a range by its index.
        if (s.int64(0) != static_cast<std::int64_t>(trace.kernel_metrics.size())) {
          return Error{fmt::format("{}: table 'kernel_metrics' row {}: id {} out of sequence (expected {})", db.path(),
                                   row, s.int64(0), trace.kernel_metrics.size())};
        }
        const std::int64_t measured = s.int64(7);
        if (measured != 0 && measured != 1) {
          return Error{fmt::format("{}: table 'kernel_metrics' row {}: times_measured = {}; expected 0 or 1",
                                   db.path(), row, measured)};
        }
        KernelMetrics& k = trace.kernel_metrics.emplace_back();
        k.start_ns = s.int64(1);
        k.end_ns = s.int64(2);
        k.correlation_id = static_cast<std::uint64_t>(s.int64(4));
        k.device = static_cast<std::uint32_t>(s.int64(5));
        k.pid = s.int64(6);
        k.times_measured = measured == 1;
        return ids.string("kernel_metrics", row, "kernel_name_id", s.int64(3), k.kernel_name);
      });
}

Status readValues(SqliteDatabase& db, const IdCheck& ids, Trace& trace) {
  const auto range_count = static_cast<std::int64_t>(trace.kernel_metrics.size());
  std::vector<ValueRow> rows;
  Status status = readTableRows(db, "kernel_metric_values", {"range_id", "metric_id", "value"}, rows,
                                [&](std::int64_t row, Statement& s, ValueRow& v) -> Status {
                                  v.range_id = s.int64(0);
                                  if (v.range_id < 0 || v.range_id >= range_count) {
                                    return Error{fmt::format(
                                        "{}: table 'kernel_metric_values' row {}: range_id = {} is not a "
                                        "kernel_metrics id (0..{})",
                                        db.path(), row, v.range_id, range_count - 1)};
                                  }
                                  v.value.value = s.real(2);
                                  return ids.string("kernel_metric_values", row, "metric_id", s.int64(1),
                                                    v.value.metric);
                                });
  if (!status) return status;
  // A range's values keep the order they were written in.
  for (const ValueRow& v : rows) trace.kernel_metrics[static_cast<std::size_t>(v.range_id)].values.push_back(v.value);
  return {};
}

}  // namespace

Status readMetricRows(SqliteDatabase& db, Trace& trace) {
  const IdCheck ids(db, trace);
  if (db.hasTable("metric_samples")) {
    if (Status read = readSamples(db, ids, trace); !read) return read;
  }
  if (db.hasTable("kernel_metrics")) {
    if (Status read = readRanges(db, ids, trace); !read) return read;
    if (db.hasTable("kernel_metric_values")) {
      if (Status read = readValues(db, ids, trace); !read) return read;
    }
  }
  return {};
}

}  // namespace ampscope::trace::db
