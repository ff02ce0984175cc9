#pragma once
// CUPTI activity records as a test writes them: zeroed, kind set, the fields ampscope reads
// filled by the caller.

#include <cstdint>

#include "collector/cupti/cupti_api.h"

namespace ampscope::collector::test {

inline KernelRecord kernelRecord(std::uint64_t start_ns, std::uint64_t end_ns, std::uint32_t correlation_id,
                                 const char* name) {
  KernelRecord k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = start_ns;
  k.end = end_ns;
  k.correlationId = correlation_id;
  k.name = name;
  k.deviceId = 0;
  k.contextId = 1;
  k.streamId = 7;
  k.gridX = k.gridY = k.gridZ = 1;
  k.blockX = k.blockY = k.blockZ = 1;
  return k;
}

inline ApiRecord apiRecord(CUpti_ActivityKind kind, std::uint32_t cbid, std::uint64_t start_ns,
                           std::uint64_t end_ns, std::uint32_t correlation_id) {
  ApiRecord a{};
  a.kind = kind;
  a.cbid = cbid;
  a.start = start_ns;
  a.end = end_ns;
  a.correlationId = correlation_id;
  a.processId = 4242;
  a.threadId = 4243;
  return a;
}

inline MemcpyRecord memcpyRecord(CUpti_ActivityMemcpyKind copy_kind, CUpti_ActivityMemoryKind src,
                                 CUpti_ActivityMemoryKind dst) {
  MemcpyRecord m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = static_cast<std::uint8_t>(copy_kind);
  m.srcKind = static_cast<std::uint8_t>(src);
  m.dstKind = static_cast<std::uint8_t>(dst);
  m.bytes = 4096;
  m.start = 1'000;
  m.end = 2'000;
  m.deviceId = 0;
  m.contextId = 1;
  m.streamId = 7;
  m.correlationId = 9;
  return m;
}

// A MEMORY2 record of device memory on device 0, in process 4242 (apiRecord's).
inline MemoryRecord memoryRecord(CUpti_ActivityMemoryOperationType operation, std::uint64_t address,
                                 std::uint64_t bytes, std::uint64_t timestamp_ns, std::uint32_t correlation_id) {
  MemoryRecord m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  m.memoryOperationType = operation;
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.address = address;
  m.bytes = bytes;
  m.timestamp = timestamp_ns;
  m.correlationId = correlation_id;
  m.processId = 4242;
  m.deviceId = 0;
  m.contextId = 1;
  return m;
}

}  // namespace ampscope::collector::test
