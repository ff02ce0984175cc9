#include "analyzer/import/kineto/kineto_memory_event.h"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "analyzer/import/kineto/kineto_values.h"

namespace ampscope::analyzer::import {

namespace {

// c10::DeviceType's values (c10/core/DeviceType.h): the ones read here and the ones named in
// what is left out.
constexpr std::int64_t kC10Cpu = 0;
constexpr std::int64_t kC10Cuda = 1;
constexpr std::int64_t kC10Hip = 6;
constexpr std::array<std::string_view, 21> kC10DeviceTypeNames = {
    "CPU", "CUDA", "MKLDNN", "OPENGL", "OPENCL", "IDEEP", "HIP", "FPGA", "MAIA", "XLA", "Vulkan",
    "Metal", "XPU", "MPS", "Meta", "HPU", "VE", "Lazy", "IPU", "MTIA", "PrivateUse1"};

enum class Whole : std::uint8_t { kAbsent, kRead, kBad };

// A whole number from a scalar: an integer token or numeric string ("-4096"), or a number written
// with a decimal point or an exponent whose value is whole ("1024.0", "1.6e3"). A fraction is no
// byte count and no address: bad, like text and other types. With `address`, a value above 2^63
// (an unsigned writer's) and a hexadecimal string ("0x7f3a...") are read as the address's 64 bits.
Whole wholeNumber(const JsonScalar& scalar, std::int64_t& out, bool address) {
  if (scalar.form == JsonScalar::Form::kAbsent) return Whole::kAbsent;
  if (scalar.form == JsonScalar::Form::kOther) return Whole::kBad;
  const std::string_view text = trimJsonSpace(scalar.text);
  if (text.empty()) return Whole::kBad;
  const char* const end = text.data() + text.size();
  if (address && text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    std::uint64_t bits = 0;
    const auto [at, ec] = std::from_chars(text.data() + 2, end, bits, 16);
    if (ec != std::errc() || at != end) return Whole::kBad;
    out = static_cast<std::int64_t>(bits);
    return Whole::kRead;
  }
  if (const auto [at, ec] = std::from_chars(text.data(), end, out); ec == std::errc() && at == end) return Whole::kRead;
  if (address) {
    std::uint64_t bits = 0;
    if (const auto [at, ec] = std::from_chars(text.data(), end, bits); ec == std::errc() && at == end) {
      out = static_cast<std::int64_t>(bits);
      return Whole::kRead;
    }
  }
  double number = 0;
  const auto [at, ec] = std::from_chars(text.data(), end, number);
  constexpr double kLimit = 9223372036854775808.0;  // 2^63
  if (ec != std::errc() || at != end || !(number >= -kLimit && number < kLimit) || std::trunc(number) != number) {
    return Whole::kBad;  // NaN fails the range test
  }
  out = static_cast<std::int64_t>(number);
  return Whole::kRead;
}

}  // namespace

std::string_view c10DeviceTypeName(std::int64_t device_type) {
  if (device_type < 0 || device_type >= static_cast<std::int64_t>(kC10DeviceTypeNames.size())) return {};
  return kC10DeviceTypeNames[static_cast<std::size_t>(device_type)];
}

MemoryEventReading readMemoryArgs(const KinetoMemoryArgs& args, trace::MemoryEvent& event) {
  MemoryEventReading reading;
  const auto note = [&](MemoryArgProblem problem) {
    reading.problems = static_cast<std::uint16_t>(reading.problems | (1u << static_cast<unsigned>(problem)));
  };
  // What the event cannot be used without: its size and sign, and its device.
  std::int64_t bytes = 0;
  switch (wholeNumber(args.bytes, bytes, false)) {
    case Whole::kAbsent: note(MemoryArgProblem::kBytesMissing); return reading;
    case Whole::kBad: note(MemoryArgProblem::kBytesNotACount); return reading;
    case Whole::kRead: break;
  }
  if (bytes == std::numeric_limits<std::int64_t>::min()) {
    // A free of 2^63 bytes is no free, and its size cannot be negated.
    note(MemoryArgProblem::kBytesNotACount);
    return reading;
  }
  std::int64_t device_type = 0;
  if (wholeNumber(args.device_type, device_type, false) != Whole::kRead) {
    note(MemoryArgProblem::kDeviceTypeNotAnInteger);
    return reading;
  }
  reading.device_type = device_type;
  if (device_type == kC10Cpu) {
    // The host is one device; PyTorch writes its index as -1.
    event.device_kind = trace::DeviceKind::kCpu;
    event.device = 0;
  } else if (device_type == kC10Cuda || device_type == kC10Hip) {
    // ROCm builds of PyTorch mark an AMD GPU's allocations HIP (the MI300 traces of 2025) or
    // CUDA, as their tensors' device type reads "cuda" to the user: a GPU either way.
    std::int64_t index = -1;
    if (wholeNumber(args.device_id, index, false) != Whole::kRead || index < 0 ||
        index > std::numeric_limits<std::uint32_t>::max()) {
      note(MemoryArgProblem::kDeviceIdNotAnOrdinal);
      return reading;
    }
    event.device_kind = trace::DeviceKind::kGpu;
    event.device = static_cast<std::uint32_t>(index);
  } else {
    note(MemoryArgProblem::kDeviceTypeNotRead);
    return reading;
  }
  event.bytes = bytes;

  // What the event is kept without: the allocator's totals (size_t, never negative) and the
  // block's address. The 2021 form has none of them, which is no problem.
  const auto total = [&](const JsonScalar& scalar, MemoryArgProblem problem) {
    std::int64_t value = 0;
    const Whole read = wholeNumber(scalar, value, false);
    if (read == Whole::kRead && value >= 0) return value;
    if (read != Whole::kAbsent) note(problem);
    return trace::MemoryEvent::kNotRecorded;
  };
  event.total_allocated = total(args.total_allocated, MemoryArgProblem::kTotalAllocatedNotASize);
  event.total_reserved = total(args.total_reserved, MemoryArgProblem::kTotalReservedNotASize);
  std::int64_t address = 0;
  switch (wholeNumber(args.address, address, true)) {
    case Whole::kRead: event.address = static_cast<std::uint64_t>(address); break;  // intptr_t's bits
    case Whole::kBad: note(MemoryArgProblem::kAddressNotANumber); break;
    case Whole::kAbsent: break;
  }
  reading.usable = true;
  return reading;
}

std::string memoryArgProblemReason(MemoryArgProblem problem, std::int64_t device_type) {
  switch (problem) {
    case MemoryArgProblem::kBytesMissing: return "'[memory]' events without \"Bytes\" (left out)";
    case MemoryArgProblem::kBytesNotACount: return "'[memory]' events whose \"Bytes\" is not a byte count (left out)";
    case MemoryArgProblem::kDeviceTypeNotAnInteger:
      return "'[memory]' events without an integer \"Device Type\" (left out)";
    case MemoryArgProblem::kDeviceTypeNotRead: {
      const std::string_view name = c10DeviceTypeName(device_type);
      return fmt::format("'[memory]' events of \"Device Type\" {}{}{}{}: only the CPU (0), CUDA (1) and HIP (6) are read "
                         "(left out)",
                         device_type, name.empty() ? "" : " (c10::DeviceType ", name, name.empty() ? "" : ")");
    }
    case MemoryArgProblem::kDeviceIdNotAnOrdinal:
      return "'[memory]' events on a GPU without a device index >= 0 in \"Device Id\" (left out)";
    case MemoryArgProblem::kTotalAllocatedNotASize:
      return "'[memory]' events whose \"Total Allocated\" is no size (kept, the total not recorded)";
    case MemoryArgProblem::kTotalReservedNotASize:
      return "'[memory]' events whose \"Total Reserved\" is no size (kept, the total not recorded)";
    case MemoryArgProblem::kAddressNotANumber:
      return "'[memory]' events whose \"Addr\" is not a number (kept, the address not recorded)";
  }
  return "'[memory]' events with a value not understood";
}

}  // namespace ampscope::analyzer::import
