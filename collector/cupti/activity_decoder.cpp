#include "collector/cupti/activity_decoder.h"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "collector/activity_sink.h"
#include "collector/cupti/cupti_api.h"

namespace ampscope::collector {

namespace {

// Copies a record out of the buffer: the buffer is bytes CUPTI wrote, and a copy reads them
// without relying on the packed struct's alignment or on type punning.
template <typename Record>
Record recordAs(const CUpti_Activity* record) {
  Record out;
  std::memcpy(&out, record, sizeof(Record));
  return out;
}

std::int64_t ns(std::uint64_t timestamp) { return static_cast<std::int64_t>(timestamp); }

trace::CopyDirection copyDirection(std::uint8_t copy_kind) {
  using trace::CopyDirection;
  switch (copy_kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
      return CopyDirection::kHostToDevice;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
      return CopyDirection::kDeviceToHost;
    // A CUDA array is device memory laid out for textures.
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return CopyDirection::kDeviceToDevice;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return CopyDirection::kHostToHost;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return CopyDirection::kPeerToPeer;
    default:
      return CopyDirection::kUnknown;
  }
}

trace::MemoryKind memoryKind(std::uint32_t kind) {
  using trace::MemoryKind;
  switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
      return MemoryKind::kPageable;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
      return MemoryKind::kPinned;
    // Static (__device__ / __managed__ variables) differs from allocated memory only in lifetime.
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
      return MemoryKind::kDevice;
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
      return MemoryKind::kArray;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
      return MemoryKind::kManaged;
    default:
      return MemoryKind::kUnknown;
  }
}

trace::SyncKind syncKind(CUpti_ActivitySynchronizationType type) {
  using trace::SyncKind;
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
      return SyncKind::kEventSynchronize;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
      return SyncKind::kStreamWaitEvent;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
      return SyncKind::kStreamSynchronize;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
      return SyncKind::kContextSynchronize;
    default:
      return SyncKind::kUnknown;
  }
}

// CUPTI's runtime names carry the CUDA version that introduced the call ("cudaLaunchKernel_v7000").
// The importers drop it, so names match across formats; a short suffix such as the driver's "_v2"
// is part of the function's name and stays.
std::string withoutVersionSuffix(std::string name) {
  const std::size_t at = name.rfind("_v");
  if (at == std::string::npos) return name;
  const std::string_view digits = std::string_view(name).substr(at + 2);
  const bool version = digits.size() >= 4 && std::all_of(digits.begin(), digits.end(), [](char c) {
                         return std::isdigit(static_cast<unsigned char>(c)) != 0;
                       });
  if (version) name.resize(at);
  return name;
}

}  // namespace

std::string lostUndecodedKindReason(std::uint32_t kind) {
  return fmt::format("CUPTI records of kind {} not decoded", kind);
}

// One buffer's walk: turns each record into a row and tallies what it could not, reporting the
// tallies once at the end instead of one sink call per record.
class ActivityDecoder::RecordWalk {
 public:
  RecordWalk(ActivityDecoder& decoder, ActivitySink& sink) : decoder_(decoder), sink_(sink) {}

  void record(const CUpti_Activity* record) {
    ++counts_.records;
    CUpti_ActivityKind kind{};
    std::memcpy(&kind, record, sizeof(kind));
    switch (kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        return kernel(recordAs<KernelRecord>(record));
      case CUPTI_ACTIVITY_KIND_MEMCPY:
        return memoryCopy(recordAs<MemcpyRecord>(record));
      case CUPTI_ACTIVITY_KIND_MEMCPY2:  // peer to peer: deviceId is the device that ran the copy
        return memoryCopy(recordAs<PeerCopyRecord>(record));
      case CUPTI_ACTIVITY_KIND_MEMSET:
        return memorySet(recordAs<MemsetRecord>(record));
      case CUPTI_ACTIVITY_KIND_RUNTIME:
        return apiCall(recordAs<ApiRecord>(record), trace::ApiKind::kRuntime);
      case CUPTI_ACTIVITY_KIND_DRIVER:
        return apiCall(recordAs<ApiRecord>(record), trace::ApiKind::kDriver);
      case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
        return synchronization(recordAs<SyncRecord>(record));
      case CUPTI_ACTIVITY_KIND_DEVICE:
        return device(recordAs<DeviceRecord>(record));
      case CUPTI_ACTIVITY_KIND_MEMORY2:
        return memory(recordAs<MemoryRecord>(record));
      case CUPTI_ACTIVITY_KIND_CONTEXT: {
        // No row: the context only tells which device its synchronizations ran on.
        const auto context = recordAs<ContextRecord>(record);
        decoder_.context_devices_[context.contextId] = context.deviceId;
        return;
      }
      default:
        ++undecoded_[static_cast<std::uint32_t>(kind)];
        ++counts_.not_decoded;
        return;
    }
  }

  void unreadable() { sink_.lost(kLostUnreadableRecord, 1); }

  DecodeCounts finish() {
    // A context's device may be learned from a record later in the same buffer.
    std::uint64_t unknown_context = 0;
    for (auto& [sync, context_id] : unresolved_) {
      const auto found = decoder_.context_devices_.find(context_id);
      if (found != decoder_.context_devices_.end()) {
        sync.device = found->second;
      } else {
        ++unknown_context;
      }
      sink_.synchronization(sync);
    }
    finishMemoryEvents();
    if (without_timestamps_ > 0) sink_.lost(kLostWithoutTimestamps, without_timestamps_);
    if (non_device_memory_ > 0) sink_.lost(kLostNonDeviceMemory, non_device_memory_);
    if (unknown_memory_operation_ > 0) sink_.lost(kLostUnknownMemoryOperation, unknown_memory_operation_);
    if (unknown_context > 0) sink_.lost(kLostUnknownContext, unknown_context);
    for (const auto& [kind, count] : undecoded_) sink_.lost(lostUndecodedKindReason(kind), count);
    return counts_;
  }

 private:
  // GPU-timed records carry 0 where CUPTI could not take the time (see the header).
  bool timed(std::uint64_t start, std::uint64_t end) {
    if (start != 0 && end != 0) return true;
    ++without_timestamps_;
    ++counts_.not_decoded;
    return false;
  }

  void learnContext(std::uint32_t context_id, std::uint32_t device_id) {
    decoder_.context_devices_[context_id] = device_id;
  }

  void kernel(const KernelRecord& k) {
    learnContext(k.contextId, k.deviceId);
    if (!timed(k.start, k.end)) return;
    trace::Kernel row;
    row.start_ns = ns(k.start);
    row.end_ns = ns(k.end);
    row.correlation_id = k.correlationId;
    row.name = sink_.intern(kernelName(k.name));
    row.device = k.deviceId;
    row.stream = k.streamId;
    row.grid = {static_cast<std::uint32_t>(k.gridX), static_cast<std::uint32_t>(k.gridY),
                static_cast<std::uint32_t>(k.gridZ)};
    row.block = {static_cast<std::uint32_t>(k.blockX), static_cast<std::uint32_t>(k.blockY),
                 static_cast<std::uint32_t>(k.blockZ)};
    row.registers_per_thread = k.registersPerThread;
    row.shared_memory_bytes = static_cast<std::uint32_t>(k.staticSharedMemory) +
                              static_cast<std::uint32_t>(k.dynamicSharedMemory);
    sink_.kernel(row);
    ++counts_.rows;
  }

  // MEMCPY and MEMCPY2 (peer to peer) records share these fields.
  template <typename Copy>
  void memoryCopy(const Copy& c) {
    learnContext(c.contextId, c.deviceId);
    if (!timed(c.start, c.end)) return;
    trace::MemoryOp row;
    row.start_ns = ns(c.start);
    row.end_ns = ns(c.end);
    row.correlation_id = c.correlationId;
    row.bytes = c.bytes;
    row.device = c.deviceId;
    row.stream = c.streamId;
    row.kind = trace::MemoryOpKind::kMemcpy;
    row.direction = copyDirection(c.copyKind);
    row.src_kind = memoryKind(c.srcKind);
    row.dst_kind = memoryKind(c.dstKind);
    sink_.memoryOp(row);
    ++counts_.rows;
  }

  void memorySet(const MemsetRecord& m) {
    learnContext(m.contextId, m.deviceId);
    if (!timed(m.start, m.end)) return;
    trace::MemoryOp row;
    row.start_ns = ns(m.start);
    row.end_ns = ns(m.end);
    row.correlation_id = m.correlationId;
    row.bytes = m.bytes;
    row.device = m.deviceId;
    row.stream = m.streamId;
    row.kind = trace::MemoryOpKind::kMemset;
    row.dst_kind = memoryKind(m.memoryKind);  // the memory written, as the importers record it
    sink_.memoryOp(row);
    ++counts_.rows;
  }

  void apiCall(const ApiRecord& a, trace::ApiKind api) {
    // Host-timed on the calling thread: CUPTI always has the times, no check needed.
    trace::LaunchCall row;
    row.start_ns = ns(a.start);
    row.end_ns = ns(a.end);
    row.correlation_id = a.correlationId;
    row.name = sink_.intern(apiName(api, a.cbid));
    row.thread = sink_.thread(a.processId, a.threadId);
    row.cbid = static_cast<std::int32_t>(a.cbid);
    row.api = api;
    sink_.launch(row);
    api_threads_.emplace_back(a.correlationId, row.thread);
    ++counts_.rows;
  }

  void memory(const MemoryRecord& m) {
    if (m.memoryKind != CUPTI_ACTIVITY_MEMORY_KIND_DEVICE) {
      ++non_device_memory_;
      ++counts_.not_decoded;
      return;
    }
    const bool allocation = m.memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
    if (!allocation && m.memoryOperationType != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE) {
      ++unknown_memory_operation_;
      ++counts_.not_decoded;
      return;
    }
    if (m.timestamp == 0) {
      ++without_timestamps_;
      ++counts_.not_decoded;
      return;
    }
    learnContext(m.contextId, m.deviceId);
    trace::MemoryEvent row;
    row.time_ns = ns(m.timestamp);
    const auto bytes = static_cast<std::int64_t>(m.bytes);
    row.bytes = allocation ? bytes : -bytes;
    row.address = m.address;
    row.device_kind = trace::DeviceKind::kGpu;
    row.device = m.deviceId;
    row.pid = static_cast<std::int64_t>(m.processId);
    // Told at the end of the buffer, once the call of its correlation id may have been read.
    memory_events_.emplace_back(row, m.correlationId);
    ++counts_.rows;
  }

  // Gives each allocation and free the thread of its API call, from this buffer or the last.
  void finishMemoryEvents() {
    if (!memory_events_.empty()) {
      std::unordered_map<std::uint32_t, trace::Index> threads;
      for (const auto* calls : {&decoder_.previous_api_threads_, &api_threads_}) {
        for (const auto& [correlation_id, thread] : *calls) threads[correlation_id] = thread;
      }
      for (auto& [row, correlation_id] : memory_events_) {
        const auto found = threads.find(correlation_id);
        if (found != threads.end()) row.thread = found->second;
        sink_.memoryEvent(row);
      }
    }
    decoder_.previous_api_threads_.swap(api_threads_);
  }

  void synchronization(const SyncRecord& s) {
    if (s.start == 0 && s.end == 0) {  // CUPTI's mark for "no timing collected"
      ++without_timestamps_;
      ++counts_.not_decoded;
      return;
    }
    trace::Synchronization row;
    row.start_ns = ns(s.start);
    row.end_ns = ns(s.end);
    row.correlation_id = s.correlationId;
    row.stream = s.streamId;  // CUPTI_SYNCHRONIZATION_INVALID_VALUE: context-wide, as nsys exports it
    row.kind = syncKind(s.type);
    ++counts_.rows;
    const auto found = decoder_.context_devices_.find(s.contextId);
    if (found == decoder_.context_devices_.end()) {
      unresolved_.emplace_back(row, s.contextId);  // told at the end of the buffer
      return;
    }
    row.device = found->second;
    sink_.synchronization(row);
  }

  void device(const DeviceRecord& d) {
    trace::Device row;
    row.id = d.id;
    row.name = sink_.intern(d.name != nullptr ? std::string_view(d.name) : std::string_view());
    row.kind = trace::DeviceKind::kGpu;
    row.compute_major = static_cast<std::int32_t>(d.computeCapabilityMajor);
    row.compute_minor = static_cast<std::int32_t>(d.computeCapabilityMinor);
    row.sm_count = static_cast<std::int32_t>(d.numMultiprocessors);
    row.total_memory_bytes = d.globalMemorySize;
    row.sm_clock_khz = static_cast<std::int64_t>(d.coreClockRate);  // kHz
    row.memory_bandwidth_bytes_per_s = d.globalMemoryBandwidth * 1000;  // CUPTI gives KB/s
    sink_.device(row);
    ++counts_.rows;
  }

  // The readable name of a kernel: C++ kernels come mangled ("_Z11scaleKernelIfEvPT_fi"), C ones
  // and names that do not demangle stay as given.
  std::string_view kernelName(const char* name) {
    if (name == nullptr) return {};
    const std::string_view raw(name);
    if (!raw.starts_with("_Z")) return raw;
    if (const auto found = decoder_.demangled_.find(raw); found != decoder_.demangled_.end()) {
      return found->second;
    }
    int status = 0;
    const std::unique_ptr<char, decltype(&std::free)> text(abi::__cxa_demangle(name, nullptr, nullptr, &status),
                                                           &std::free);
    std::string readable = status == 0 && text != nullptr ? std::string(text.get()) : std::string(raw);
    return decoder_.demangled_.emplace(std::string(raw), std::move(readable)).first->second;
  }

  const std::string& apiName(trace::ApiKind api, std::uint32_t cbid) {
    const bool runtime = api == trace::ApiKind::kRuntime;
    auto& names = runtime ? decoder_.runtime_names_ : decoder_.driver_names_;
    if (const auto found = names.find(cbid); found != names.end()) return found->second;
    std::string name = decoder_.api_.callbackName(runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API,
                                                  cbid);
    // Unnamed ids keep their number, spelled as the importers spell them.
    name = name.empty() ? fmt::format("{}#{}", runtime ? "cudaRuntime" : "cudaDriver", cbid)
                        : withoutVersionSuffix(std::move(name));
    return names.emplace(cbid, std::move(name)).first->second;
  }

  ActivityDecoder& decoder_;
  ActivitySink& sink_;
  DecodeCounts counts_;
  std::uint64_t without_timestamps_ = 0;
  // Synchronizations whose context's device was not known when they were read.
  std::vector<std::pair<trace::Synchronization, std::uint32_t>> unresolved_;
  std::map<std::uint32_t, std::uint64_t> undecoded_;  // by CUpti_ActivityKind
  std::uint64_t non_device_memory_ = 0;
  std::uint64_t unknown_memory_operation_ = 0;
  // This buffer's API calls (correlation id, thread) and its allocations and frees with theirs.
  std::vector<std::pair<std::uint32_t, std::int32_t>> api_threads_;
  std::vector<std::pair<trace::MemoryEvent, std::uint32_t>> memory_events_;
};

DecodeCounts ActivityDecoder::decode(std::uint8_t* buffer, std::size_t valid_bytes, ActivitySink& sink) {
  if (buffer == nullptr || valid_bytes == 0) return {};
  RecordWalk walk(*this, sink);
  CUpti_Activity* record = nullptr;
  for (;;) {
    trace::Result<CUpti_Activity*> next = api_.nextRecord(buffer, valid_bytes, record);
    if (!next) {
      // CUPTI's advice is to stop at the first record it cannot read; the rest of the buffer is
      // lost with it, and only the buffer can be counted.
      walk.unreadable();
      break;
    }
    record = *next;
    if (record == nullptr) break;
    walk.record(record);
  }
  return walk.finish();
}

}  // namespace ampscope::collector
