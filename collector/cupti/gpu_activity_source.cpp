#include "collector/cupti/gpu_activity_source.h"

#include <algorithm>
#include <new>
#include <utility>

#include <fmt/format.h>

#include "collector/activity_sink.h"
#include "collector/collector_clock.h"
#include "collector/cupti/cupti_api.h"
#include "collector/cupti/real_cupti_api.h"

namespace ampscope::collector {

namespace {

// CUPTI wants buffers aligned to its record alignment (ACTIVITY_RECORD_ALIGNMENT, 8 bytes).
constexpr std::align_val_t kBufferAlignment{8};
constexpr std::size_t kMinBufferBytes = 4096;

// Every buffer lent to CUPTI comes from here, whichever source lent it, so a buffer CUPTI hands
// back after its source is gone can still be freed correctly.
std::uint8_t* allocateBuffer(std::size_t bytes) {
  return static_cast<std::uint8_t*>(::operator new(bytes, kBufferAlignment, std::nothrow));
}
void releaseBuffer(std::uint8_t* buffer) { ::operator delete(buffer, kBufferAlignment); }

std::vector<CUpti_ActivityKind> cuptiKinds(GpuActivityKinds kinds) {
  std::vector<CUpti_ActivityKind> out;
  if (kinds.contains(GpuActivityKind::kDevice)) out.push_back(CUPTI_ACTIVITY_KIND_DEVICE);
  // Context records come before the synchronizations that need their device.
  if (kinds.contains(GpuActivityKind::kSynchronization)) out.push_back(CUPTI_ACTIVITY_KIND_CONTEXT);
  if (kinds.contains(GpuActivityKind::kRuntime)) out.push_back(CUPTI_ACTIVITY_KIND_RUNTIME);
  if (kinds.contains(GpuActivityKind::kDriver)) out.push_back(CUPTI_ACTIVITY_KIND_DRIVER);
  if (kinds.contains(GpuActivityKind::kKernel)) out.push_back(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (kinds.contains(GpuActivityKind::kMemcpy)) {
    out.push_back(CUPTI_ACTIVITY_KIND_MEMCPY);
    out.push_back(CUPTI_ACTIVITY_KIND_MEMCPY2);
  }
  if (kinds.contains(GpuActivityKind::kMemset)) out.push_back(CUPTI_ACTIVITY_KIND_MEMSET);
  if (kinds.contains(GpuActivityKind::kSynchronization)) out.push_back(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  if (kinds.contains(GpuActivityKind::kMemory)) out.push_back(CUPTI_ACTIVITY_KIND_MEMORY2);
  return out;
}

trace::Status checkOptions(const GpuActivityOptions& options) {
  if (options.kinds.empty()) {
    return trace::Error{"GPU activity options: no activity kind chosen; choose at least one GpuActivityKind"};
  }
  if (options.buffer_bytes < kMinBufferBytes || options.buffer_bytes % 8 != 0) {
    return trace::Error{fmt::format("GPU activity options: buffer_bytes is {}; expected a multiple of 8 of at "
                                    "least {} (CUPTI's records are 8-byte aligned and up to a few hundred bytes)",
                                    options.buffer_bytes, kMinBufferBytes)};
  }
  if (options.max_buffers == 0 || options.pooled_buffers > options.max_buffers) {
    return trace::Error{fmt::format("GPU activity options: pooled_buffers is {} and max_buffers {}; expected "
                                    "1 <= max_buffers and pooled_buffers <= max_buffers",
                                    options.pooled_buffers, options.max_buffers)};
  }
  return {};
}

}  // namespace

// CUPTI's callbacks take no user pointer, so they reach the one recording source through a
// process-wide pointer. Its mutex is held while a callback uses the source and while the source
// is unhooked, so a callback never sees a source being destroyed. Both are leaked on purpose:
// CUPTI may call back during exit, after function-local statics would have been destroyed.
struct GpuActivitySource::Callbacks {
  static std::mutex& mutex() {
    static auto* const mutex = new std::mutex;
    return *mutex;
  }
  static GpuActivitySource*& active() {
    static auto* const active = new GpuActivitySource*(nullptr);
    return *active;
  }

  static uint64_t CUPTIAPI timestamp() { return static_cast<uint64_t>(collectorNowNs()); }

  static void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    const std::lock_guard lock(mutex());
    if (active() == nullptr) {  // nobody to drain it: refuse, CUPTI counts what it drops
      *buffer = nullptr;
      *size = 0;
      *max_records = 0;
      return;
    }
    active()->requestBuffer(buffer, size, max_records);
  }

  // No CUPTI call in here: CUPTI may hold its own locks around the callbacks, and one of its
  // calls made under this mutex could wait on a thread that waits for the mutex. The dropped
  // count (one global queue since CUDA 6; the context and stream given here are always null)
  // is read by drain() instead.
  static void CUPTIAPI completed(CUcontext /*context*/, uint32_t /*stream_id*/, uint8_t* buffer, size_t size,
                                 size_t valid_size) {
    if (buffer == nullptr) return;
    const std::lock_guard lock(mutex());
    if (active() == nullptr) {  // its source is gone; see the header
      releaseBuffer(buffer);
      return;
    }
    active()->completeBuffer(buffer, size, valid_size);
  }
};

trace::Result<std::unique_ptr<GpuActivitySource>> GpuActivitySource::start(const GpuActivityOptions& options) {
  return start(std::make_unique<RealCuptiApi>(), options);
}

trace::Result<std::unique_ptr<GpuActivitySource>> GpuActivitySource::start(std::unique_ptr<CuptiApi> api,
                                                                           const GpuActivityOptions& options) {
  if (api == nullptr) return trace::Error{"GpuActivitySource::start: no CuptiApi given"};
  if (trace::Status valid = checkOptions(options); !valid) return valid.error();
  std::unique_ptr<GpuActivitySource> source(new GpuActivitySource(std::move(api), options));
  if (source->free_.size() != options.pooled_buffers) {
    return trace::Error{fmt::format("no GPU activity can be recorded: {} activity buffers of {} bytes could not "
                                    "be allocated",
                                    options.pooled_buffers, options.buffer_bytes)};
  }
  {
    const std::lock_guard lock(Callbacks::mutex());
    if (Callbacks::active() != nullptr) {
      return trace::Error{"no GPU activity can be recorded by this source: another one is already recording in "
                          "this process, and CUPTI hands its activity buffers to one client"};
    }
    Callbacks::active() = source.get();
  }
  if (trace::Status begun = source->begin(); !begun) {
    std::string message = "no GPU activity can be recorded: CUPTI could not start: " + begun.error().message;
    if (const std::string why = source->api_->driverDiagnosis(); !why.empty()) message += "; " + why;
    return trace::Error{std::move(message)};  // the source's destructor undoes what begin() did
  }
  return source;
}

GpuActivitySource::GpuActivitySource(std::unique_ptr<CuptiApi> api, const GpuActivityOptions& options)
    : api_(std::move(api)), options_(options), decoder_(*api_) {
  free_.reserve(options_.pooled_buffers);
  for (std::size_t i = 0; i < options_.pooled_buffers; ++i) {
    std::uint8_t* buffer = allocateBuffer(options_.buffer_bytes);
    if (buffer == nullptr) break;  // start() sees the short pool and fails
    free_.push_back(buffer);
  }
}

trace::Status GpuActivitySource::begin() {
  // The clock first: records taken before it keep CUPTI's own clock (CLOCK_REALTIME).
  if (trace::Status status = api_->registerTimestampCallback(&Callbacks::timestamp); !status) return status;
  // gettid(), not pthread_self(): the id host-side records can name too.
  if (trace::Status status = api_->setThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM); !status) return status;
  if (trace::Status status = api_->registerBufferCallbacks(&Callbacks::requested, &Callbacks::completed); !status) {
    return status;
  }
  for (const CUpti_ActivityKind kind : cuptiKinds(options_.kinds)) {
    if (trace::Status status = api_->enableKind(kind); !status) return status;
    enabled_kinds_.push_back(static_cast<std::uint32_t>(kind));
  }
  recording_ = true;
  return {};
}

GpuActivitySource::~GpuActivitySource() {
  if (recording_) {
    (void)stop();  // a destructor cannot report; callers who care call stop() themselves
  } else {
    // A failed start leaves some kinds enabled; without a source their records are refused.
    for (auto kind = enabled_kinds_.rbegin(); kind != enabled_kinds_.rend(); ++kind) {
      (void)api_->disableKind(static_cast<CUpti_ActivityKind>(*kind));
    }
  }
  {
    const std::lock_guard lock(Callbacks::mutex());
    if (Callbacks::active() == this) Callbacks::active() = nullptr;
  }
  // No callback can reach this source now. Buffers still with CUPTI are freed when they return.
  const std::lock_guard lock(mutex_);
  for (std::uint8_t* buffer : free_) releaseBuffer(buffer);
  for (const CompletedBuffer& buffer : completed_) releaseBuffer(buffer.data);
}

void GpuActivitySource::requestBuffer(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = nullptr;
  *size = 0;
  *max_records = 0;  // as many records as fit
  const std::lock_guard lock(mutex_);
  ++stats_.buffers_requested;
  std::uint8_t* lent = nullptr;
  if (!free_.empty()) {
    lent = free_.back();
    free_.pop_back();
  } else if (outstanding_.size() < options_.max_buffers) {
    lent = allocateBuffer(options_.buffer_bytes);
    if (lent != nullptr) ++stats_.fresh_buffers;
  }
  if (lent == nullptr) {
    ++stats_.refused_requests;
    return;
  }
  try {
    outstanding_.insert(lent);
  } catch (const std::bad_alloc&) {  // a C callback must not throw
    releaseBuffer(lent);
    ++stats_.refused_requests;
    return;
  }
  *buffer = lent;
  *size = options_.buffer_bytes;
}

void GpuActivitySource::completeBuffer(std::uint8_t* buffer, std::size_t size, std::size_t valid_bytes) {
  {
    const std::lock_guard lock(mutex_);
    ++stats_.buffers_completed;
    const bool pooled = outstanding_.count(buffer) != 0;
    try {
      completed_.push_back({buffer, size, valid_bytes, pooled});
    } catch (const std::bad_alloc&) {  // a C callback must not throw; the records are lost, counted
      if (pooled) outstanding_.erase(buffer);
      releaseBuffer(buffer);
      ++pending_discarded_;
      return;
    }
  }
  completed_cv_.notify_one();
}

DecodeCounts GpuActivitySource::drain(ActivitySink& sink) {
  const std::lock_guard drain_lock(drain_mutex_);
  std::vector<CompletedBuffer> buffers;
  std::uint64_t discarded = 0;
  {
    const std::lock_guard lock(mutex_);
    buffers.assign(completed_.begin(), completed_.end());
    completed_.clear();
    std::swap(discarded, pending_discarded_);
  }
  // Decoding runs without the lock, so CUPTI's callbacks never wait for it.
  DecodeCounts counts;
  for (const CompletedBuffer& buffer : buffers) counts += decoder_.decode(buffer.data, buffer.valid_bytes, sink);
  recycle(buffers);
  // Read after the buffers were taken: records dropped while they were being filled are counted
  // now, those dropped later at the next drain. CUPTI resets the count when it is read.
  const trace::Result<std::size_t> dropped = api_->droppedRecords(nullptr, 0);
  if (!dropped) {
    sink.lost(kLostUncountedDrops, 1);
  } else if (*dropped > 0) {
    sink.lost(kLostDroppedRecords, *dropped);
  }
  if (discarded > 0) sink.lost(kLostDiscardedBuffers, discarded);
  const std::lock_guard lock(mutex_);
  stats_.decoded += counts;
  if (dropped) stats_.dropped_records += *dropped;
  return counts;
}

void GpuActivitySource::recycle(const std::vector<CompletedBuffer>& buffers) {
  const std::lock_guard lock(mutex_);
  for (const CompletedBuffer& buffer : buffers) {
    if (buffer.pooled) outstanding_.erase(buffer.data);
    // Fresh buffers beyond the pool's size are freed, so memory returns to the pool's bound.
    const bool keep = buffer.pooled && buffer.size_bytes == options_.buffer_bytes &&
                      free_.size() < options_.pooled_buffers;
    if (keep) {
      free_.push_back(buffer.data);  // capacity reserved at construction: cannot throw
    } else {
      releaseBuffer(buffer.data);
    }
  }
}

bool GpuActivitySource::waitForBuffers(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return completed_cv_.wait_for(lock, timeout, [this] { return !completed_.empty(); });
}

trace::Status GpuActivitySource::flush(FlushMode mode) {
  if (trace::Status status = api_->flushAll(mode == FlushMode::kForced); !status) {
    return trace::Error{"flushing CUPTI's activity buffers: " + status.error().message};
  }
  return {};
}

trace::Status GpuActivitySource::stop() {
  if (!recording_) return {};
  recording_ = false;
  // Carry on past a failure: the other steps still release what they can. The first error is told.
  trace::Status first;
  const auto keep = [&first](trace::Status status) {
    if (!status && first) first = std::move(status);
  };
  for (auto kind = enabled_kinds_.rbegin(); kind != enabled_kinds_.rend(); ++kind) {
    keep(api_->disableKind(static_cast<CUpti_ActivityKind>(*kind)));
  }
  enabled_kinds_.clear();
  keep(api_->flushAll(true));
  if (!first) return trace::Error{"stopping GPU activity recording: " + first.error().message};
  return {};
}

GpuActivityStats GpuActivitySource::stats() const {
  const std::lock_guard lock(mutex_);
  GpuActivityStats out = stats_;
  out.pooled_buffers = free_.size();
  out.outstanding_buffers = outstanding_.size();
  return out;
}

}  // namespace ampscope::collector
