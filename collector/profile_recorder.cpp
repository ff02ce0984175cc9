#include "collector/profile_recorder.h"

#include <fstream>
#include <thread>

#include <fmt/format.h>
#include <time.h>

#include "collector/collector_clock.h"
#include "collector/nvtx/nvtx_registry.h"
#include "collector/nvtx/nvtx_tool.h"
#include "trace/trace_model.h"

namespace ampscope::collector {

namespace {

std::atomic<ProfileRecorder*> g_active{nullptr};

std::string domainNameOf(std::uint32_t domain) { return NvtxRegistry::instance().domainName(domain); }

// "CPU: <model> (N threads)", the name of the device the CPU backend's ops ran on.
std::string hostDeviceName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  std::string model = "unknown model";
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      if (const auto colon = line.find(':'); colon != std::string::npos) {
        model = line.substr(line.find_first_not_of(' ', colon + 1));
      }
      break;
    }
  }
  return fmt::format("CPU: {} ({} threads)", model, std::thread::hardware_concurrency());
}

}  // namespace

trace::Result<std::unique_ptr<ProfileRecorder>> ProfileRecorder::start(const RecorderOptions& options) {
  if (g_active.load() != nullptr) {
    return trace::Error{fmt::format("{}: a recording is already running in this process ({})", options.path,
                                    g_active.load()->path())};
  }
  auto db = trace::db::createProfileDatabase(options.path);
  if (!db) return db.error();
  std::unique_ptr<ProfileRecorder> recorder(new ProfileRecorder(options, std::move(db).value()));
  auto appender = trace::db::ProfileAppender::create(*recorder->db_);
  if (!appender) return appender.error();
  recorder->appender_ = std::make_unique<trace::db::ProfileAppender>(std::move(appender).value());
  recorder->meta("source_format", trace::formatName(trace::TraceFormat::kAmpscope));
  recorder->meta("source_detail", options.source_detail);
  recorder->meta("clock", collectorClockSource());
  // Threads' logs may hold records from an earlier recording in this process: skip them.
  for (const auto& log : NvtxRegistry::instance().threadLogs()) {
    log->drain([](const NvtxRecord&, std::string_view) {});
    (void)log->takeDropped();  // drops before this recording are not its losses
  }
  g_active.store(recorder.get());
  setNvtxCapture(true);
  recorder->writer_ = std::thread([r = recorder.get()] { r->writerLoop(); });
  return recorder;
}

ProfileRecorder::ProfileRecorder(RecorderOptions options, trace::db::SqliteDatabase db)
    : options_(std::move(options)),
      db_(std::make_unique<trace::db::SqliteDatabase>(std::move(db))),
      assembler_(*this, *this, &domainNameOf) {}

ProfileRecorder::~ProfileRecorder() {
  if (!stopped_) (void)stop();
}

ProfileRecorder* ProfileRecorder::active() { return g_active.load(); }

void ProfileRecorder::addSource(std::unique_ptr<ActivitySource> source) {
  const std::lock_guard lock(queue_mutex_);
  queued_sources_.push_back(std::move(source));
}

void ProfileRecorder::meta(std::string key, std::string value) {
  const std::lock_guard lock(queue_mutex_);
  queued_meta_.emplace_back(std::move(key), std::move(value));
}

void ProfileRecorder::counter(std::string_view name, std::int64_t step, double value) {
  const std::int64_t now = collectorNowNs();
  const std::lock_guard lock(queue_mutex_);
  queued_counters_.push_back({now, std::string(name), step, value});
}

void ProfileRecorder::gradientBin(std::string_view tensor, std::int64_t step, std::int32_t exponent,
                                  std::uint64_t count) {
  const std::int64_t now = collectorNowNs();
  const std::lock_guard lock(queue_mutex_);
  queued_bins_.push_back({now, std::string(tensor), step, exponent, count});
}

void ProfileRecorder::hostMemoryEvent(const trace::MemoryEvent& event, std::int64_t pid, std::int64_t tid) {
  const std::lock_guard lock(queue_mutex_);
  queued_memory_events_.push_back({event, pid, tid});
}

void ProfileRecorder::reportLost(std::string reason, std::uint64_t count) {
  const std::lock_guard lock(queue_mutex_);
  queued_lost_.emplace_back(std::move(reason), count);
}

trace::Status ProfileRecorder::stop() {
  if (stopped_) return error_;
  stopped_ = true;
  setNvtxCapture(false);
  {
    const std::lock_guard lock(wake_mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (writer_.joinable()) writer_.join();
  g_active.store(nullptr);
  if (error_ && !crash_flushed_.load()) {
    // Complete: fold the write-ahead log back so the profile is one self-contained file.
    check(db_->execute("PRAGMA journal_mode=DELETE"));
  }
  return error_;
}

void ProfileRecorder::flushForCrash(std::chrono::milliseconds timeout) {
  if (writer_.get_id() == std::this_thread::get_id()) return;  // the writer itself failed
  setNvtxCapture(false);
  crash_requested_.store(true);
  const timespec pause{0, 5'000'000};
  for (auto waited = std::chrono::milliseconds(0); waited < timeout && !crash_flushed_.load();
       waited += std::chrono::milliseconds(5)) {
    nanosleep(&pause, nullptr);
  }
}

RecorderCounts ProfileRecorder::counts() const {
  RecorderCounts out;
  out.ranges = ranges_written_.load(std::memory_order_relaxed);
  out.kernels = kernels_written_.load(std::memory_order_relaxed);
  out.other_rows = other_rows_written_.load(std::memory_order_relaxed);
  out.metric_rows = metric_rows_written_.load(std::memory_order_relaxed);
  out.lost = lost_total_.load(std::memory_order_relaxed);
  return out;
}

void ProfileRecorder::writerLoop() {
  auto last_write = std::chrono::steady_clock::now();
  std::unique_lock lock(wake_mutex_);
  while (true) {
    // A short poll rather than a pure wait: a signal handler cannot notify a condition variable.
    wake_.wait_for(lock, std::min(options_.flush_interval, std::chrono::milliseconds(20)), [&] { return stopping_; });
    const bool stopping = stopping_;
    lock.unlock();
    const bool crashing = crash_requested_.load();
    if (crashing || stopping || std::chrono::steady_clock::now() - last_write >= options_.flush_interval) {
      writeCycle(crashing || stopping);
      last_write = std::chrono::steady_clock::now();
    }
    if (crashing) {
      // The process is dying: leave the profile as one file, then let the handler go on.
      check(db_->execute("PRAGMA wal_checkpoint(TRUNCATE)"));
      crash_flushed_.store(true);
      return;
    }
    if (stopping) return;
    lock.lock();
  }
}

void ProfileRecorder::check(trace::Status status) {
  if (!status && error_) error_ = std::move(status);
}

void ProfileRecorder::writeCycle(bool final) {
  if (!error_) return;  // after a write error the file keeps what was committed before it
  check(appender_->begin());
  {
    std::vector<std::unique_ptr<ActivitySource>> added;
    {
      const std::lock_guard lock(queue_mutex_);
      added.swap(queued_sources_);
    }
    for (auto& source : added) sources_.push_back(std::move(source));
  }
  if (final) {
    for (auto& source : sources_) source->stop();
  }
  drainThreadLogs();
  for (auto& source : sources_) source->drain(*this);
  writeQueued();
  if (final) {
    assembler_.finish();
    nameThreads();
  }
  writeLost();
  writeTotals();
  check(appender_->commit());
  if (final) sources_.clear();
  // Counted once committed: counts() tells what a reader of the file would find.
  ranges_written_.fetch_add(pending_.ranges, std::memory_order_relaxed);
  kernels_written_.fetch_add(pending_.kernels, std::memory_order_relaxed);
  other_rows_written_.fetch_add(pending_.other_rows, std::memory_order_relaxed);
  metric_rows_written_.fetch_add(pending_.metric_rows, std::memory_order_relaxed);
  if (pending_.lost > 0) lost_total_.store(pending_.lost, std::memory_order_relaxed);
  pending_ = {};
}

void ProfileRecorder::drainThreadLogs() {
  NvtxRegistry& registry = NvtxRegistry::instance();
  std::vector<const ThreadEventLog*> finished;
  for (const auto& log : registry.threadLogs()) {
    // The registry and this copy hold the only references once the log's thread has ended.
    if (log.use_count() == 2) finished.push_back(log.get());
    log->drain([&](NvtxRecord record, std::string_view text) {
      record.time_ns = collectorTicksToNs(record.clock_ticks);
      assembler_.add(log->pid(), log->tid(), record, text);
    });
    lost("NVTX records dropped: no memory for the thread's log", log->takeDropped());
  }
  if (!finished.empty()) registry.dropLogs(finished);
}

void ProfileRecorder::writeQueued() {
  std::vector<std::pair<std::string, std::string>> meta;
  std::vector<QueuedCounter> counters;
  std::vector<QueuedBin> bins;
  std::vector<QueuedMemoryEvent> memory_events;
  std::vector<std::pair<std::string, std::uint64_t>> lost_reports;
  {
    const std::lock_guard lock(queue_mutex_);
    lost_reports.swap(queued_lost_);
    meta.swap(queued_meta_);
    counters.swap(queued_counters_);
    bins.swap(queued_bins_);
    memory_events.swap(queued_memory_events_);
  }
  for (const auto& [key, value] : meta) check(appender_->meta(key, value));
  for (const auto& [reason, count] : lost_reports) lost(reason, count);
  for (const QueuedCounter& c : counters) check(appender_->counter({c.time_ns, intern(c.name), c.step, c.value}));
  for (const QueuedBin& b : bins) check(appender_->gradientBin({b.step, b.time_ns, intern(b.tensor), b.exponent, b.count}));
  pending_.other_rows += counters.size() + bins.size();
  for (QueuedMemoryEvent& queued : memory_events) {
    if (queued.event.device_kind == trace::DeviceKind::kCpu) writeHostDevice();
    queued.event.thread = thread(queued.pid, queued.tid);
    queued.event.pid = queued.pid;
    memoryEvent(queued.event);
  }
}

void ProfileRecorder::writeLost() {
  if (!lost_changed_) return;
  std::uint64_t total = 0;
  for (const auto& [reason, count] : lost_) {
    check(appender_->stat("lost", reason, count));
    total += count;
  }
  check(appender_->stat("totals", "dropped_by_collector", total));
  lost_changed_ = false;
  pending_.lost = total;
}

void ProfileRecorder::writeTotals() {
  // Every row written is a recorded event kept; with what was lost, that is everything read.
  const RecorderCounts committed = counts();
  const std::uint64_t imported = committed.ranges + committed.kernels + committed.other_rows + committed.metric_rows +
                                 pending_.ranges + pending_.kernels + pending_.other_rows + pending_.metric_rows;
  std::uint64_t lost = 0;
  for (const auto& [reason, count] : lost_) lost += count;
  check(appender_->stat("totals", "events_imported", imported));
  check(appender_->stat("totals", "events_read", imported + lost));
}

void ProfileRecorder::nameThreads() {
  const auto names = NvtxRegistry::instance().threadNames();
  if (names.empty()) return;
  auto update = db_->prepare("UPDATE threads SET name_id = ? WHERE id = ?");
  if (!update) return check(update.error());
  for (const auto& [key, index] : thread_ids_) {
    const auto named = names.find(key.second);
    if (named == names.end()) continue;
    update->bind(1, static_cast<std::int64_t>(intern(named->second)));
    update->bind(2, static_cast<std::int64_t>(index));
    check(update->run());
  }
}

trace::StringId ProfileRecorder::intern(std::string_view text) {
  if (text.empty()) return trace::StringTable::kEmpty;
  auto [found, inserted] = string_ids_.try_emplace(std::string(text), static_cast<trace::StringId>(string_ids_.size() + 1));
  if (inserted) {
    if (found->second == 1) check(appender_->string(trace::StringTable::kEmpty, ""));
    check(appender_->string(found->second, text));
  }
  return found->second;
}

trace::Index ProfileRecorder::thread(std::int64_t pid, std::int64_t tid) {
  auto [found, inserted] = thread_ids_.try_emplace({pid, tid}, static_cast<trace::Index>(thread_ids_.size()));
  if (inserted) check(appender_->thread(found->second, trace::Thread{pid, tid, trace::StringTable::kEmpty}));
  return found->second;
}

void ProfileRecorder::device(const trace::Device& device) { check(appender_->device(device)); }

void ProfileRecorder::launch(const trace::LaunchCall& launch) {
  check(appender_->launch(launch));
  ++pending_.other_rows;
}

void ProfileRecorder::kernel(const trace::Kernel& kernel) {
  check(appender_->kernel(kernel));
  ++pending_.kernels;
}

void ProfileRecorder::memoryOp(const trace::MemoryOp& op) {
  check(appender_->memoryOp(op));
  ++pending_.other_rows;
}

void ProfileRecorder::synchronization(const trace::Synchronization& sync) {
  check(appender_->synchronization(sync));
  ++pending_.other_rows;
}

void ProfileRecorder::memoryEvent(const trace::MemoryEvent& event) {
  check(appender_->memoryEvent(event));
  ++pending_.other_rows;
}

void ProfileRecorder::metricSample(const trace::MetricSample& sample) {
  check(appender_->metricSample(sample));
  ++pending_.metric_rows;
}

void ProfileRecorder::kernelMetrics(const trace::KernelMetrics& range) {
  check(appender_->kernelMetrics(range));
  ++pending_.metric_rows;
}

void ProfileRecorder::lost(std::string_view reason, std::uint64_t count) {
  if (count == 0) return;
  lost_[std::string(reason)] += count;
  lost_changed_ = true;
}

void ProfileRecorder::range(const trace::Range& range) {
  check(appender_->range(range));
  ++pending_.ranges;
}

void ProfileRecorder::writeHostDevice() {
  if (host_device_written_) return;
  trace::Device host;
  host.id = 0;
  host.name = intern(hostDeviceName());
  host.kind = trace::DeviceKind::kCpu;
  device(host);
  host_device_written_ = true;
}

void ProfileRecorder::hostOp(std::int64_t start_ns, std::int64_t end_ns, trace::Index thread, trace::StringId name) {
  writeHostDevice();
  if (host_launch_name_ == trace::StringTable::kEmpty) host_launch_name_ = intern("host op");
  // The op runs where it is called: a zero-length "launch" at its start ties it to the
  // enclosing layer range on its thread, as a CUDA launch ties a kernel.
  trace::LaunchCall call;
  call.start_ns = call.end_ns = start_ns;
  call.correlation_id = next_host_correlation_++;
  call.name = host_launch_name_;
  call.thread = thread;
  launch(call);
  trace::Kernel op;
  op.start_ns = start_ns;
  op.end_ns = end_ns;
  op.correlation_id = call.correlation_id;
  op.name = name;
  op.device = 0;
  op.stream = static_cast<std::uint32_t>(thread);
  kernel(op);
}

}  // namespace ampscope::collector
