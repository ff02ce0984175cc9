#pragma once
// Turns completed CUPTI activity buffers into trace model rows on an ActivitySink. It walks a
// buffer through CuptiApi::nextRecord (CUPTI owns the record layout and the walk) and copies what
// ampscope models out of each record: kernels, memory copies and sets, runtime and driver API
// calls, synchronizations, devices, allocations and frees of device memory (MEMORY2).
//
// Nothing is dropped silently. Records the decoder cannot turn into rows go to sink.lost():
//  - kinds it does not decode, one reason per kind ("CUPTI records of kind 12 not decoded"), since
//    a kind arriving that ampscope did not enable (another CUPTI client in the process, a new
//    CUPTI) is worth seeing by number;
//  - GPU records without timestamps (CUPTI writes 0 when the device ran out of profiling memory
//    or a forced flush caught them unfinished); placing them at time 0 would be wrong;
//  - the rest of a buffer after a record CUPTI cannot read.
// An allocation or free gets the thread of the runtime or driver call of its correlation id when
// that call is in the same buffer or the one before (CUPTI writes the memory record during the
// call, the call's record at its end); else it has no thread. CUPTI records no allocator totals.
// A synchronization record names a context, not a device; the decoder learns which device each
// context is on from context records and from the kernels and copies that carry both, anywhere
// in the same buffer or an earlier one.
//
// Not thread-safe: one decoder per draining thread. It keeps no global state; what it caches
// (demangled names, API names, context devices) lives in the instance.
//
// No CUDA headers here: the source that owns a decoder is used by code outside collector/cupti.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ampscope::collector {

class ActivitySink;
class CuptiApi;

// Reasons under which the decoder reports to ActivitySink::lost.
inline constexpr std::string_view kLostWithoutTimestamps = "CUPTI GPU records without timestamps";
inline constexpr std::string_view kLostUnknownContext =
    "CUPTI synchronizations of an unknown context (recorded on device 0)";
inline constexpr std::string_view kLostUnreadableRecord = "CUPTI buffers cut short by an unreadable record";
// Allocations of pageable, pinned, managed or array memory: the memory analysis is of the device's.
inline constexpr std::string_view kLostNonDeviceMemory =
    "CUPTI allocations and frees of memory other than device memory (not recorded)";
inline constexpr std::string_view kLostUnknownMemoryOperation =
    "CUPTI memory records that are neither an allocation nor a free";
// "CUPTI records of kind <N> not decoded", N being CUpti_ActivityKind's number.
std::string lostUndecodedKindReason(std::uint32_t kind);

struct DecodeCounts {
  std::uint64_t records = 0;      // records walked
  std::uint64_t rows = 0;         // rows handed to the sink
  std::uint64_t not_decoded = 0;  // records reported to sink.lost (unreadable buffers count 0)

  DecodeCounts& operator+=(const DecodeCounts& other) {
    records += other.records;
    rows += other.rows;
    not_decoded += other.not_decoded;
    return *this;
  }
};

class ActivityDecoder {
 public:
  // api is used for the buffer walk and callback names; it must outlive the decoder.
  explicit ActivityDecoder(CuptiApi& api) : api_(api) {}

  // Decodes one completed buffer: valid_bytes of records starting at buffer (CUPTI's completion
  // callback gives both). The buffer is only read.
  DecodeCounts decode(std::uint8_t* buffer, std::size_t valid_bytes, ActivitySink& sink);

 private:
  class RecordWalk;  // the per-buffer work, in the .cpp where the CUPTI types are

  // Lets the name cache be searched with the string_view of a record's name, without a copy.
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
  };

  CuptiApi& api_;
  // Kernel names as CUPTI gives them (mangled) -> readable; a kernel name repeats for every launch.
  std::unordered_map<std::string, std::string, NameHash, std::equal_to<>> demangled_;
  // Callback id -> API name without CUPTI's version suffix, per domain.
  std::unordered_map<std::uint32_t, std::string> runtime_names_;
  std::unordered_map<std::uint32_t, std::string> driver_names_;
  // CUPTI context id -> device id.
  std::unordered_map<std::uint32_t, std::uint32_t> context_devices_;
  // (correlation id, thread index) of the API calls of the last buffer decoded, for the
  // allocations of the next one whose call came first.
  std::vector<std::pair<std::uint32_t, std::int32_t>> previous_api_threads_;
};

}  // namespace ampscope::collector
