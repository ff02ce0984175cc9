#include "trace/db/profile_writer.h"

#include <numeric>

#include "trace/db/profile_appender.h"
#include "trace/db/sqlite_database.h"

namespace ampscope::trace::db {

ProfileWriter::ProfileWriter(std::unique_ptr<SqliteDatabase> db) : db_(std::move(db)) {}
ProfileWriter::ProfileWriter(ProfileWriter&&) noexcept = default;
ProfileWriter& ProfileWriter::operator=(ProfileWriter&&) noexcept = default;
ProfileWriter::~ProfileWriter() = default;

Result<ProfileWriter> ProfileWriter::create(const std::string& path) {
  auto db = createProfileDatabase(path);
  if (!db) return db.error();
  return ProfileWriter(std::make_unique<SqliteDatabase>(std::move(db).value()));
}

namespace {

// Appends rows, committing every kRowsPerTransaction rows so the WAL stays small and a crash
// loses at most one batch.
class BatchedAppend {
 public:
  explicit BatchedAppend(ProfileAppender& appender) : appender_(appender) {}
  template <typename Rows, typename AppendRow>
  Status rows(const Rows& rows, AppendRow appendRow) {
    for (const auto& row : rows) {
      if (Status appended = appendRow(row); !appended) return appended;
      if (++in_transaction_ == ProfileWriter::kRowsPerTransaction) {
        if (Status committed = appender_.commit(); !committed) return committed;
        if (Status begun = appender_.begin(); !begun) return begun;
        in_transaction_ = 0;
      }
    }
    return {};
  }

 private:
  ProfileAppender& appender_;
  std::size_t in_transaction_ = 0;
};

Status appendTrace(ProfileAppender& out, const Trace& trace) {
  for (const auto& [key, value] : {std::pair<std::string_view, std::string_view>{"source_format", formatName(trace.source_format)},
                                   {"source_detail", trace.format_detail}}) {
    if (Status stored = out.meta(key, value); !stored) return stored;
  }
  if (trace.distributed.rankKnown()) {
    const std::string rank = std::to_string(trace.distributed.rank);
    const std::string world_size = std::to_string(trace.distributed.world_size);
    for (const auto& [key, value] : {std::pair<std::string_view, std::string_view>{"rank", rank},
                                     {"world_size", world_size}, {"backend", trace.distributed.backend}}) {
      if (Status stored = out.meta(key, value); !stored) return stored;
    }
  }
  BatchedAppend batch(out);
  std::vector<StringId> string_ids(trace.strings.size());
  std::iota(string_ids.begin(), string_ids.end(), StringId{0});
  Status status = batch.rows(string_ids, [&](StringId id) { return out.string(id, trace.str(id)); });
  if (status) status = batch.rows(trace.devices, [&](const Device& d) { return out.device(d); });
  std::vector<Index> thread_ids(trace.threads.size());
  std::iota(thread_ids.begin(), thread_ids.end(), Index{0});
  if (status) {
    status = batch.rows(thread_ids, [&](Index id) { return out.thread(id, trace.threads[static_cast<std::size_t>(id)]); });
  }
  if (status) status = batch.rows(trace.launches, [&](const LaunchCall& l) { return out.launch(l); });
  if (status) status = batch.rows(trace.kernels, [&](const Kernel& k) { return out.kernel(k); });
  if (status) status = batch.rows(trace.memory_ops, [&](const MemoryOp& m) { return out.memoryOp(m); });
  if (status) status = batch.rows(trace.synchronizations, [&](const Synchronization& y) { return out.synchronization(y); });
  if (status) status = batch.rows(trace.ranges, [&](const Range& r) { return out.range(r); });
  if (status) status = batch.rows(trace.memory_events, [&](const MemoryEvent& m) { return out.memoryEvent(m); });
  if (status) status = batch.rows(trace.metric_samples, [&](const MetricSample& m) { return out.metricSample(m); });
  if (status) status = batch.rows(trace.kernel_metrics, [&](const KernelMetrics& k) { return out.kernelMetrics(k); });
  if (status) status = batch.rows(trace.counters, [&](const Counter& c) { return out.counter(c); });
  if (status) status = batch.rows(trace.gradient_bins, [&](const GradientBin& b) { return out.gradientBin(b); });
  if (status) {
    status = batch.rows(statRows(trace.import_stats),
                        [&](const StatRow& row) { return out.stat(row.section, row.key, row.value, row.place); });
  }
  return status;
}

}  // namespace

Status ProfileWriter::write(const Trace& trace) {
  auto appender = ProfileAppender::create(*db_);
  if (!appender) return appender.error();
  if (Status begun = appender->begin(); !begun) return begun;
  if (Status appended = appendTrace(*appender, trace); !appended) return appended;
  if (Status committed = appender->commit(); !committed) return committed;
  // Complete: fold the write-ahead log into the file so the profile is one self-contained file.
  return db_->execute("PRAGMA journal_mode=DELETE");
}

Status writeProfile(const std::string& path, const Trace& trace) {
  auto writer = ProfileWriter::create(path);
  if (!writer) return writer.error();
  return writer->write(trace);
}

}  // namespace ampscope::trace::db
