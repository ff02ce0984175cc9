#pragma once
// A GPU device as a trace records it, added to a trace built in a test.

#include <cstdint>

#include "trace/trace_model.h"

namespace ampscope::test {

struct TestGpu {
  const char* name = "";
  int compute_major = 0;  // 0: not recorded
  int compute_minor = 0;
  int sm_count = 0;       // 0: not recorded
  std::uint64_t memory_bytes = 80ull << 30;
};

inline trace::Device& addGpu(trace::Trace& trace, const TestGpu& gpu) {
  trace::Device& device = trace.devices.emplace_back();
  device.name = trace.strings.intern(gpu.name);
  device.compute_major = gpu.compute_major;
  device.compute_minor = gpu.compute_minor;
  device.sm_count = gpu.sm_count;
  device.total_memory_bytes = gpu.memory_bytes;
  return device;
}

}  // namespace ampscope::test
