#pragma once
// GPU activity from CUPTI's Activity API, delivered to an ActivitySink. CUPTI fills buffers that
// this source lends it from a pool; a full (or flushed) buffer comes back through a completion
// callback that only queues it, since CUPTI may call it on an application thread. The recorder's
// writer thread decodes the queue with drain().
//
// The writer thread's part:
//   auto source = GpuActivitySource::start(options);
//     before the program's first CUDA call: CUPTI writes device records when CUDA initialises
//   if (!source) ... source.error().message says why no GPU activity can be recorded
//   loop: (*source)->waitForBuffers(100ms); (*source)->drain(sink);
//         now and then (*source)->flush(), so a crash loses little
//   at the end: cudaDeviceSynchronize() in the program if it can, then
//   (*source)->stop(); (*source)->drain(sink); destroy the source.
//
// CUPTI's callbacks are per process, so one source records at a time. They also cannot be
// unregistered, and CUPTI may deliver a buffer at any time, even after stop(): a buffer that
// comes back after stop() is queued for the next drain(); one that comes back after the source
// is gone is freed unread (drain after stop, before destroying, so none are left out there).
//
// API records carry the calling thread as its system thread id (gettid()) and the process id
// (getpid()), and every timestamp is collectorNowNs(): host ranges recorded with those line up
// with GPU records without any conversion.
//
// No CUDA headers here, so the recorder outside collector/cupti can use it.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "collector/cupti/activity_decoder.h"
#include "trace/result.h"

namespace ampscope::collector {

class ActivitySink;
class CuptiApi;

// What to record. Each maps to the CUPTI activity kinds named.
enum class GpuActivityKind : std::uint32_t {
  kKernel = 1u << 0,           // CONCURRENT_KERNEL (KERNEL would serialise the kernels)
  kMemcpy = 1u << 1,           // MEMCPY and MEMCPY2 (peer to peer)
  kMemset = 1u << 2,           // MEMSET
  kRuntime = 1u << 3,          // RUNTIME: cudaLaunchKernel, cudaMemcpyAsync, ...
  kDriver = 1u << 4,           // DRIVER: cuLaunchKernel, ... (also those the runtime makes)
  kSynchronization = 1u << 5,  // SYNCHRONIZATION, and CONTEXT to tell their device
  kDevice = 1u << 6,           // DEVICE: name, compute capability, SMs, memory
  kMemory = 1u << 7,           // MEMORY2: allocations and frees of device memory
};

// A set of GpuActivityKind: GpuActivityKind::kKernel | GpuActivityKind::kRuntime.
class GpuActivityKinds {
 public:
  constexpr GpuActivityKinds() = default;
  constexpr GpuActivityKinds(GpuActivityKind kind)  // NOLINT: implicit, a kind is a set of one
      : bits_(static_cast<std::uint32_t>(kind)) {}

  // Everything the design's collector records: all of the kinds above.
  static constexpr GpuActivityKinds all() { return GpuActivityKinds(kAllBits); }

  constexpr bool contains(GpuActivityKind kind) const {
    return (bits_ & static_cast<std::uint32_t>(kind)) != 0;
  }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr GpuActivityKinds operator|(GpuActivityKinds other) const {
    return GpuActivityKinds(bits_ | other.bits_);
  }
  constexpr bool operator==(const GpuActivityKinds&) const = default;

 private:
  static constexpr std::uint32_t kAllBits = (1u << 8) - 1;
  constexpr explicit GpuActivityKinds(std::uint32_t bits) : bits_(bits) {}

  std::uint32_t bits_ = 0;
};

constexpr GpuActivityKinds operator|(GpuActivityKind a, GpuActivityKind b) {
  return GpuActivityKinds(a) | GpuActivityKinds(b);
}

struct GpuActivityOptions {
  GpuActivityKinds kinds = GpuActivityKinds::all();
  // Size of each buffer lent to CUPTI. A few MB holds tens of thousands of records: few
  // callbacks, little memory.
  std::size_t buffer_bytes = std::size_t{4} << 20;
  // Buffers allocated at start and recycled after each drain.
  std::size_t pooled_buffers = 8;
  // Most buffers out at once (with CUPTI or waiting for drain). When the pool is empty CUPTI
  // gets a fresh buffer (counted in stats().fresh_buffers); at this limit its request is
  // refused, and CUPTI drops records and counts them, so a stalled writer cannot eat the
  // program's memory.
  std::size_t max_buffers = 64;
};

struct GpuActivityStats {
  std::uint64_t buffers_requested = 0;  // CUPTI's requests for a buffer
  std::uint64_t buffers_completed = 0;  // buffers CUPTI handed back
  std::uint64_t fresh_buffers = 0;      // allocated because the pool was empty
  std::uint64_t refused_requests = 0;   // requests refused at max_buffers
  std::uint64_t dropped_records = 0;    // CUPTI's dropped-record counts read by drain(), summed
  DecodeCounts decoded;                 // what drain() decoded so far
  std::size_t pooled_buffers = 0;       // buffers free in the pool now
  std::size_t outstanding_buffers = 0;  // buffers with CUPTI or queued now
};

// Reasons under which the source reports to ActivitySink::lost (the decoder adds its own).
inline constexpr std::string_view kLostDroppedRecords = "CUPTI dropped records";
inline constexpr std::string_view kLostUncountedDrops = "CUPTI dropped-record counts that could not be read";
inline constexpr std::string_view kLostDiscardedBuffers = "CUPTI buffers discarded for want of memory";

enum class FlushMode : std::uint8_t {
  kCompleted,  // buffers whose records are all complete (cheap; fine at a regular interval)
  kForced,     // every buffer, incomplete records included (their missing times are counted)
};

class GpuActivitySource {
 public:
  // Starts recording through libcupti: registers the callbacks and enables options.kinds.
  // Fails, with a message that says no GPU activity can be recorded and why, where CUPTI cannot
  // start (no driver, no GPU, another profiler attached), and where another source is recording
  // in this process.
  static trace::Result<std::unique_ptr<GpuActivitySource>> start(const GpuActivityOptions& options = {});
  // The same through any CuptiApi (the tests' fake). Callers include cupti_api.h.
  static trace::Result<std::unique_ptr<GpuActivitySource>> start(std::unique_ptr<CuptiApi> api,
                                                                 const GpuActivityOptions& options);

  ~GpuActivitySource();  // stops if still recording; see the header comment about late buffers
  GpuActivitySource(const GpuActivitySource&) = delete;
  GpuActivitySource& operator=(const GpuActivitySource&) = delete;

  // Decodes the buffers CUPTI has handed back so far into sink, recycles them, and reports the
  // records CUPTI dropped (cuptiActivityGetNumDroppedRecords). Call from one thread (the
  // writer's); CUPTI's threads never wait on it.
  DecodeCounts drain(ActivitySink& sink);
  // Waits until a completed buffer is queued, up to timeout; true when one is.
  bool waitForBuffers(std::chrono::milliseconds timeout);
  // Asks CUPTI to hand back its buffers now (cuptiActivityFlushAll); they are queued for drain().
  trace::Status flush(FlushMode mode = FlushMode::kCompleted);
  // Disables the kinds and force-flushes. Records CUPTI still delivers are queued for drain(),
  // which also reads the last dropped count. Calling it again does nothing.
  trace::Status stop();

  bool recording() const { return recording_; }
  GpuActivityStats stats() const;

 private:
  struct Callbacks;  // CUPTI's C callbacks, in the .cpp where the CUPTI types are
  struct CompletedBuffer {
    std::uint8_t* data = nullptr;
    std::size_t size_bytes = 0;   // as lent to CUPTI
    std::size_t valid_bytes = 0;  // filled with records
    bool pooled = false;          // lent by this source (else left over from an earlier one)
  };

  GpuActivitySource(std::unique_ptr<CuptiApi> api, const GpuActivityOptions& options);
  trace::Status begin();
  void requestBuffer(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records);
  void completeBuffer(std::uint8_t* buffer, std::size_t size, std::size_t valid_bytes);
  void recycle(const std::vector<CompletedBuffer>& buffers);

  std::unique_ptr<CuptiApi> api_;
  const GpuActivityOptions options_;
  std::vector<std::uint32_t> enabled_kinds_;  // CUpti_ActivityKind values, in enabling order
  bool recording_ = false;

  std::mutex drain_mutex_;  // one drain at a time: the decoder is not thread-safe
  ActivityDecoder decoder_;

  // Shared with CUPTI's callback threads.
  mutable std::mutex mutex_;
  std::condition_variable completed_cv_;
  std::vector<std::uint8_t*> free_;               // pooled buffers ready to lend
  std::unordered_set<std::uint8_t*> outstanding_;  // lent and not yet recycled
  std::deque<CompletedBuffer> completed_;          // waiting for drain()
  std::uint64_t pending_discarded_ = 0;            // buffers that could not be queued
  GpuActivityStats stats_;
};

}  // namespace ampscope::collector
