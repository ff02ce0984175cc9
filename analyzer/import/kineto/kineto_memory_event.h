#pragma once
// PyTorch's "[memory]" instant events: one allocation (Bytes > 0) or free (Bytes < 0) of a
// device's allocator, as torch.profiler writes them with profile_memory=True. Two forms exist:
//   - 2021 (KinetoThreadLocalState::reportMemoryUsage): "Device Type", "Device Id", "Bytes";
//   - later (AddGenericMetadata for an Allocation event): also "Addr" (the block's address as a
//     signed intptr_t), "Total Allocated" and "Total Reserved" (the caching allocator's totals
//     just after the event), and the profiler's own event index "Ev Idx", which nothing here uses.
// "Device Type" is c10::DeviceType (0 the CPU, 1 CUDA, 6 HIP: ROCm builds write either for an AMD
// GPU); "Device Id" the device's index (-1 for the CPU). docs/formats/kineto.md says what is read.
//
// The event loop keeps each value's JSON text; this file turns the texts into a MemoryEvent and
// says what it could not use, so that the rules are testable without a JSON parser.

#include <cstdint>
#include <string>
#include <string_view>

#include "trace/trace_model.h"

namespace ampscope::analyzer::import {

// One value of an event's args as the JSON writes it: a number's token, a string's text, or
// another type (an array, an object, true, false, null).
struct JsonScalar {
  enum class Form : std::uint8_t { kAbsent, kNumber, kString, kOther };
  std::string_view text;  // the number token or the string's unescaped text
  Form form = Form::kAbsent;
};

// The args of a "[memory]" event that ampscope reads.
struct KinetoMemoryArgs {
  JsonScalar device_type, device_id, bytes, address, total_allocated, total_reserved;
};

// What a "[memory]" event's args could not give. The first five leave the event out (one of them
// per event left out); the last three keep it without the value.
enum class MemoryArgProblem : std::uint8_t {
  kBytesMissing,
  kBytesNotACount,
  kDeviceTypeNotAnInteger,  // absent too
  kDeviceTypeNotRead,       // a c10::DeviceType other than the CPU, CUDA and HIP
  kDeviceIdNotAnOrdinal,    // a GPU event without a device index >= 0
  kTotalAllocatedNotASize,
  kTotalReservedNotASize,
  kAddressNotANumber,
};
inline constexpr int kMemoryArgProblems = 8;

struct MemoryEventReading {
  bool usable = false;            // false: the event cannot be used (a problem says why)
  std::uint16_t problems = 0;     // a bit per MemoryArgProblem
  std::int64_t device_type = -1;  // as read, for kDeviceTypeNotRead's reason

  bool has(MemoryArgProblem problem) const { return (problems & (1u << static_cast<unsigned>(problem))) != 0; }
};

// Fills event's bytes, address, totals and device from args; time, thread and pid are the
// caller's. Fields a value could not give stay at MemoryEvent's "not recorded" values.
MemoryEventReading readMemoryArgs(const KinetoMemoryArgs& args, trace::MemoryEvent& event);

// The import_stats.not_understood reason a problem is counted under; device_type (as read)
// names the device type of kDeviceTypeNotRead.
std::string memoryArgProblemReason(MemoryArgProblem problem, std::int64_t device_type);

// The name c10::DeviceType gives a value ("MPS" for 13), or "" for one it does not have.
std::string_view c10DeviceTypeName(std::int64_t device_type);

}  // namespace ampscope::analyzer::import
