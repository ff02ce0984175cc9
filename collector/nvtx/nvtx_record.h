#pragma once
// One NVTX call as the tool hands it to the calling thread's log (which packs it: see
// thread_event_log.cpp), with the UTF-8 text of an inline message beside it. Registered strings
// are stored by handle, so the trainer's repeating ranges copy no text at all.

#include <cstdint>

namespace ampscope::collector {

// kGap is the log's own: records were dropped before it (no memory for the thread's log), so the
// thread's open push ranges cannot be matched any more.
enum class NvtxRecordKind : std::uint8_t { kPush, kPop, kStart, kEnd, kMark, kGap };

// nvtxPayloadType_t values, kept as NVTX numbers them.
enum class NvtxPayloadType : std::uint8_t { kNone = 0, kUint64 = 1, kInt64 = 2, kDouble = 3, kUint32 = 4, kInt32 = 5, kFloat = 6 };

struct RegisteredString;  // nvtx_registry.h

struct NvtxRecord {
  std::uint64_t clock_ticks = 0;               // collectorTicks() at the call: what the log keeps
  std::int64_t time_ns = 0;                    // the same in nanoseconds, filled in when drained
  std::uint64_t range_id = 0;                  // start/end: the id nvtxRangeStart returned
  std::uint64_t payload_bits = 0;              // the payload's bytes, read by payload_type
  const RegisteredString* registered = nullptr;  // the message, when it was a registered string
  std::uint32_t domain = 0;                    // index in the domain registry; 0: default domain
  std::uint32_t category = 0;
  std::uint32_t text_bytes = 0;                // inline text stored with the record
  NvtxRecordKind kind = NvtxRecordKind::kPush;
  NvtxPayloadType payload_type = NvtxPayloadType::kNone;
};

}  // namespace ampscope::collector
