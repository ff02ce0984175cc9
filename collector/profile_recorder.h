#pragma once
// One recording: the profile database being written, the background writer thread that fills it,
// and the sinks the program's threads feed. NVTX records and CUPTI buffers are only queued on the
// program's threads; every decode, string interning and SQLite write happens on the writer
// thread, which commits a transaction every flush interval so that a crash loses at most that
// much and what was committed stays readable (WAL).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "collector/activity_sink.h"
#include "collector/activity_source.h"
#include "collector/nvtx/nvtx_range_assembler.h"
#include "trace/db/profile_appender.h"
#include "trace/db/sqlite_database.h"
#include "trace/result.h"

namespace ampscope::collector {

struct RecorderOptions {
  std::string path;
  std::string source_detail;  // what was recorded, e.g. the command line
  std::chrono::milliseconds flush_interval{100};
};

// Rows written so far, for messages and benchmarks.
struct RecorderCounts {
  std::uint64_t ranges = 0;
  std::uint64_t kernels = 0;
  std::uint64_t other_rows = 0;  // launches, copies, syncs, counters, bins, memory events
  std::uint64_t metric_rows = 0;  // hardware metric samples and per-kernel ranges
  std::uint64_t lost = 0;
};

class ProfileRecorder final : public ActivitySink, private NvtxRangeAssembler::Output {
 public:
  // Creates the profile (replacing any file at path), starts the writer thread and turns NVTX
  // capture on. One recording per process at a time.
  static trace::Result<std::unique_ptr<ProfileRecorder>> start(const RecorderOptions& options);
  ~ProfileRecorder() override;
  ProfileRecorder(const ProfileRecorder&) = delete;
  ProfileRecorder& operator=(const ProfileRecorder&) = delete;

  // Thread-safe: a source drained on the writer thread from now on.
  void addSource(std::unique_ptr<ActivitySource> source);
  // Thread-safe, queued: an ampscope_meta row, a per-step counter, a gradient histogram bin.
  void meta(std::string key, std::string value);
  void counter(std::string_view name, std::int64_t step, double value);
  void gradientBin(std::string_view tensor, std::int64_t step, std::int32_t exponent, std::uint64_t count);
  // Thread-safe, queued: an allocation or free the program made on its thread (pid, tid), at
  // event.time_ns on the collector's clock. event.thread is ignored: the writer fills it from
  // (pid, tid). A host (DeviceKind::kCpu) event is on device 0, the host device of host ops.
  void hostMemoryEvent(const trace::MemoryEvent& event, std::int64_t pid, std::int64_t tid);
  // Thread-safe, queued: records lost or a note about what could not be recorded, by reason
  // (import_stats "lost"), from outside the writer thread; lost() is the writer's own.
  void reportLost(std::string reason, std::uint64_t count);

  // Stops capture, writes everything still queued, folds the log into the file. Returns the
  // first error the writer met (the file then holds what was committed before it).
  trace::Status stop();
  // For fatal-signal handlers: has the writer commit what it holds and waits up to timeout.
  // Async-signal-tolerant: sets flags and polls; never takes a lock.
  void flushForCrash(std::chrono::milliseconds timeout);

  const std::string& path() const { return options_.path; }
  RecorderCounts counts() const;
  // The recorder that is running in this process, or nullptr.
  static ProfileRecorder* active();

  // ActivitySink (writer thread).
  trace::StringId intern(std::string_view text) override;
  trace::Index thread(std::int64_t pid, std::int64_t tid) override;
  void device(const trace::Device& device) override;
  void launch(const trace::LaunchCall& launch) override;
  void kernel(const trace::Kernel& kernel) override;
  void memoryOp(const trace::MemoryOp& op) override;
  void synchronization(const trace::Synchronization& sync) override;
  void memoryEvent(const trace::MemoryEvent& event) override;
  void metricSample(const trace::MetricSample& sample) override;
  void kernelMetrics(const trace::KernelMetrics& range) override;
  void lost(std::string_view reason, std::uint64_t count) override;

 private:
  struct QueuedCounter {
    std::int64_t time_ns;
    std::string name;
    std::int64_t step;
    double value;
  };
  struct QueuedMemoryEvent {
    trace::MemoryEvent event;
    std::int64_t pid;
    std::int64_t tid;
  };
  struct QueuedBin {
    std::int64_t time_ns;
    std::string tensor;
    std::int64_t step;
    std::int32_t exponent;
    std::uint64_t count;
  };

  ProfileRecorder(RecorderOptions options, trace::db::SqliteDatabase db);
  void writerLoop();
  void writeCycle(bool final);
  void drainThreadLogs();
  void writeQueued();
  void writeLost();
  void writeTotals();
  void nameThreads();
  // The host's device row (device 0, kind CPU), written once before the first host record.
  void writeHostDevice();
  void check(trace::Status status);
  // NvtxRangeAssembler::Output
  void range(const trace::Range& range) override;
  void hostOp(std::int64_t start_ns, std::int64_t end_ns, trace::Index thread, trace::StringId name) override;

  RecorderOptions options_;
  std::unique_ptr<trace::db::SqliteDatabase> db_;
  std::unique_ptr<trace::db::ProfileAppender> appender_;
  NvtxRangeAssembler assembler_;

  // Writer-thread state.
  std::unordered_map<std::string, trace::StringId> string_ids_;
  std::map<std::pair<std::int64_t, std::int64_t>, trace::Index> thread_ids_;
  std::map<std::string, std::uint64_t> lost_;
  bool lost_changed_ = false;
  bool host_device_written_ = false;
  std::uint64_t next_host_correlation_ = std::uint64_t{1} << 48;  // clear of CUPTI's ids
  trace::StringId host_launch_name_ = trace::StringTable::kEmpty;
  std::vector<std::unique_ptr<ActivitySource>> sources_;
  trace::Status error_;
  // Rows appended in the current cycle (writer thread), published after each commit.
  RecorderCounts pending_;
  std::atomic<std::uint64_t> ranges_written_{0}, kernels_written_{0}, other_rows_written_{0}, metric_rows_written_{0},
      lost_total_{0};

  // Shared with the program's threads.
  std::mutex queue_mutex_;
  std::vector<std::unique_ptr<ActivitySource>> queued_sources_;
  std::vector<std::pair<std::string, std::string>> queued_meta_;
  std::vector<QueuedCounter> queued_counters_;
  std::vector<QueuedBin> queued_bins_;
  std::vector<QueuedMemoryEvent> queued_memory_events_;
  std::vector<std::pair<std::string, std::uint64_t>> queued_lost_;

  std::mutex wake_mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::atomic<bool> crash_requested_{false};
  std::atomic<bool> crash_flushed_{false};
  bool stopped_ = false;
  std::thread writer_;
};

}  // namespace ampscope::collector
