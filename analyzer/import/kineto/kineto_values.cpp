#include "analyzer/import/kineto/kineto_values.h"

#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <optional>

#include <fmt/format.h>

namespace ampscope::analyzer::import {

EventCategory categoryOf(std::string_view cat) {
  if (isWord(cat, "kernel") || isWord(cat, "Kernel")) return EventCategory::kKernel;
  if (isWord(cat, "gpu_memcpy") || isWord(cat, "Memcpy")) return EventCategory::kMemcpy;
  if (isWord(cat, "gpu_memset") || isWord(cat, "Memset")) return EventCategory::kMemset;
  if (isWord(cat, "cuda_runtime") || isWord(cat, "Runtime")) return EventCategory::kRuntime;
  if (isWord(cat, "cuda_driver")) return EventCategory::kDriver;
  if (isWord(cat, "cuda_sync")) return EventCategory::kSync;
  if (isWord(cat, "cpu_op") || isWord(cat, "Operator")) return EventCategory::kOperator;
  if (isWord(cat, "user_annotation")) return EventCategory::kAnnotation;
  if (isWord(cat, "python_function")) return EventCategory::kPython;
  if (isWord(cat, "gpu_user_annotation")) return EventCategory::kGpuAnnotation;
  if (isWord(cat, "cuda_profiler_range")) return EventCategory::kProfilerRange;
  if (isWord(cat, "Trace") || isWord(cat, "overhead") || isWord(cat, "cpu_instant_event")) return EventCategory::kIgnored;
  return EventCategory::kUnknown;
}

trace::RangeKind rangeKindOf(EventCategory category) {
  switch (category) {
    case EventCategory::kAnnotation: return trace::RangeKind::kAnnotation;
    case EventCategory::kPython: return trace::RangeKind::kPython;
    case EventCategory::kGpuAnnotation: return trace::RangeKind::kGpuAnnotation;
    default: return trace::RangeKind::kOperator;
  }
}

namespace {

// Exponent notation or very long numbers go through double (the precision is the writer's).
bool microsecondsToNsViaDouble(std::string_view token, std::int64_t& ns) {
  const std::string copy(token);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !(value == value)) return false;
  if (value > 9.0e15 || value < -9.0e15) return false;
  ns = static_cast<std::int64_t>(value * 1000.0 + (value < 0 ? -0.5 : 0.5));
  return true;
}

bool isJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// The value of an ASCII digit, or more than 9 for any other byte.
unsigned digitValue(char c) { return static_cast<unsigned>(static_cast<unsigned char>(c)) - '0'; }

}  // namespace

bool microsecondsToNs(std::string_view token, std::int64_t& ns) {
  // Two of these per event: the loops below test each byte once.
  while (!token.empty() && isJsonSpace(token.back())) token.remove_suffix(1);
  if (token.empty()) return false;
  // The common case, [-]digits[.digits], is converted exactly from the text.
  const bool negative = token[0] == '-';
  const std::size_t digits_start = negative ? 1 : 0;
  std::size_t i = digits_start;
  // At most 16 digits are summed here (more would overflow 64 bits: found by the kineto fuzz
  // harness); longer numbers take the slow path below.
  const std::size_t summed_end = std::min(token.size(), digits_start + 16);
  std::int64_t whole = 0;
  for (; i < summed_end; ++i) {
    const unsigned digit = digitValue(token[i]);
    if (digit > 9) break;
    whole = whole * 10 + digit;
  }
  const bool more_digits = i == summed_end && i < token.size() && digitValue(token[i]) <= 9;
  // No digits, or too many for nanoseconds to fit 64 bits: let the slow path decide.
  if (i == digits_start || more_digits || whole > INT64_MAX / 1000 - 1) return microsecondsToNsViaDouble(token, ns);
  std::int64_t fraction_ns = 0;
  if (i < token.size() && token[i] == '.') {
    const std::size_t fraction_start = ++i;
    static constexpr std::int64_t kNsPerDigit[3] = {100, 10, 1};
    for (; i < token.size(); ++i) {
      const unsigned digit = digitValue(token[i]);
      if (digit > 9) break;
      const std::size_t place = i - fraction_start;
      if (place < 3) fraction_ns += digit * kNsPerDigit[place];
      else if (place == 3 && digit >= 5) ++fraction_ns;  // beyond nanoseconds: round half up
    }
    if (i == fraction_start) return false;
  }
  if (i != token.size()) return microsecondsToNsViaDouble(token, ns);  // exponent or junk
  ns = whole * 1000 + fraction_ns;
  if (negative) ns = -ns;
  return true;
}

std::string_view trimJsonSpace(std::string_view text) {
  while (!text.empty() && isJsonSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && isJsonSpace(text.back())) text.remove_suffix(1);
  return text;
}

NumberText integerFromText(std::string_view text, std::int64_t& out) {
  constexpr double kLimit = 9223372036854775808.0;  // 2^63
  text = trimJsonSpace(text);
  if (text.empty()) return NumberText::kNotANumber;
  const char* end = text.data() + text.size();
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    std::uint64_t bits = 0;
    const auto [at, ec] = std::from_chars(text.data() + 2, end, bits, 16);
    if (ec == std::errc::result_out_of_range ||
        (ec == std::errc() && bits > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))) {
      return NumberText::kOutOfRange;
    }
    if (ec != std::errc() || at != end) return NumberText::kNotANumber;
    out = static_cast<std::int64_t>(bits);
    return NumberText::kRead;
  }
  std::int64_t whole = 0;
  if (const auto [at, ec] = std::from_chars(text.data(), end, whole); ec == std::errc() && at == end) {
    out = whole;
    return NumberText::kRead;
  }
  double number = 0;
  const auto [at, ec] = std::from_chars(text.data(), end, number);
  if (ec == std::errc::result_out_of_range) return NumberText::kOutOfRange;
  if (ec != std::errc() || at != end) return NumberText::kNotANumber;
  if (!(number > -kLimit && number < kLimit)) return NumberText::kOutOfRange;  // NaN too
  out = static_cast<std::int64_t>(number);
  return NumberText::kRead;
}

std::int64_t idFromLabel(std::string_view label) {
  std::size_t digits = label.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(label[digits - 1]))) --digits;
  if (digits < label.size() && label.size() - digits <= 18) {
    std::int64_t number = 0;
    std::from_chars(label.data() + digits, label.data() + label.size(), number);
    const std::string_view prefix = label.substr(0, digits);
    if (prefix.empty() || prefix == "stream " || prefix == "thread ") return number;
  }
  // FNV-1a, folded into the 2^31 - 2^20 ids between -2^31 and -2^20.
  std::uint64_t hash = 14695981039346656037ull;
  for (const char c : label) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  constexpr std::int64_t kSmallest = -(std::int64_t{1} << 31);
  constexpr std::uint64_t kRange = (std::uint64_t{1} << 31) - (std::uint64_t{1} << 20) + 1;
  return kSmallest + static_cast<std::int64_t>((hash ^ (hash >> 32)) % kRange);
}

std::string_view compactJson(std::string_view json, std::string& scratch) {
  if (scratch.size() < json.size()) scratch.resize(json.size());
  char* out = scratch.data();
  std::size_t length = 0;
  if (std::memchr(json.data(), '"', json.size()) == nullptr) {
    // No strings (a list of shapes, the usual case): every whitespace byte goes, without a branch.
    for (const char c : json) {
      out[length] = c;
      length += isJsonSpace(c) ? 0 : 1;
    }
    return std::string_view(out, length);
  }
  bool in_string = false;
  bool escaped = false;
  for (char c : json) {
    if (in_string) {
      out[length++] = c;
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (isJsonSpace(c)) continue;
    if (c == '"') in_string = true;
    out[length++] = c;
  }
  return std::string_view(out, length);
}

namespace {
trace::MemoryKind memoryKindFromWord(std::string_view word) {
  if (word == "Pageable") return trace::MemoryKind::kPageable;
  if (word == "Pinned") return trace::MemoryKind::kPinned;
  if (word == "Device") return trace::MemoryKind::kDevice;
  if (word == "Array") return trace::MemoryKind::kArray;
  if (word == "Managed") return trace::MemoryKind::kManaged;
  return trace::MemoryKind::kUnknown;
}
}  // namespace

void describeMemoryOp(std::string_view name, trace::MemoryOp& op) {
  if (name.find("HtoD") != std::string_view::npos) op.direction = trace::CopyDirection::kHostToDevice;
  else if (name.find("DtoH") != std::string_view::npos) op.direction = trace::CopyDirection::kDeviceToHost;
  else if (name.find("DtoD") != std::string_view::npos) op.direction = trace::CopyDirection::kDeviceToDevice;
  else if (name.find("HtoH") != std::string_view::npos) op.direction = trace::CopyDirection::kHostToHost;
  else if (name.find("PtoP") != std::string_view::npos) op.direction = trace::CopyDirection::kPeerToPeer;
  const auto open = name.find('(');
  const auto close = name.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return;
  const std::string_view inside = name.substr(open + 1, close - open - 1);
  const auto arrow = inside.find("->");
  if (arrow == std::string_view::npos) {
    op.dst_kind = memoryKindFromWord(trimJsonSpace(inside));  // "Memset (Device)"
    return;
  }
  op.src_kind = memoryKindFromWord(trimJsonSpace(inside.substr(0, arrow)));
  op.dst_kind = memoryKindFromWord(trimJsonSpace(inside.substr(arrow + 2)));
}

trace::SyncKind syncKindFromName(std::string_view name) {
  if (name.find("Event Sync") != std::string_view::npos) return trace::SyncKind::kEventSynchronize;
  if (name.find("Stream Wait Event") != std::string_view::npos) return trace::SyncKind::kStreamWaitEvent;
  if (name.find("Stream Sync") != std::string_view::npos) return trace::SyncKind::kStreamSynchronize;
  if (name.find("Context Sync") != std::string_view::npos || name.find("Device Sync") != std::string_view::npos) {
    return trace::SyncKind::kContextSynchronize;
  }
  return trace::SyncKind::kUnknown;
}

namespace {

// An integer from a number (a fraction cut to its whole part) or a numeric string, as recording
// tools write them; nullopt for anything else or a number outside 64 bits.
std::optional<std::int64_t> integerOf(simdjson::dom::element element) {
  std::int64_t whole = 0;
  if (element.get_int64().get(whole) == simdjson::SUCCESS) return whole;
  double number = 0;
  if (element.get_double().get(number) == simdjson::SUCCESS) {
    if (!(number > -9.2e18 && number < 9.2e18)) return std::nullopt;
    return static_cast<std::int64_t>(number);
  }
  std::string_view text;
  if (element.get_string().get(text) != simdjson::SUCCESS) return std::nullopt;
  return integerFromText(text, whole) == NumberText::kRead ? std::optional<std::int64_t>(whole) : std::nullopt;
}

// A member's value as an integer, where present and readable.
std::optional<std::int64_t> integerMember(simdjson::dom::element object, std::string_view key) {
  simdjson::dom::element value;
  if (object[key].get(value) != simdjson::SUCCESS) return std::nullopt;
  return integerOf(value);
}

// A top-level member's value that was not understood: counted with its place, the trace read on.
void notUnderstoodMember(trace::Trace& out, std::string_view member, std::string_view what) {
  out.import_stats.notUnderstood(fmt::format("top-level \"{}\" {} (left out)", member, what),
                                 fmt::format("top-level member \"{}\"", member));
}

// The members the stream found are raw JSON text that it already proved whole.
trace::Status parseMember(const std::string& path, std::string_view member, const std::string& raw,
                          simdjson::dom::parser& parser, simdjson::dom::element& root) {
  if (auto error = parser.parse(raw).get(root)) {
    return trace::Error{fmt::format("{}: \"{}\" is not valid JSON: {}", path, member, simdjson::error_message(error))};
  }
  return {};
}

trace::Status readDevices(const std::string& path, const std::string& raw, trace::Trace& out) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (trace::Status parsed = parseMember(path, "deviceProperties", raw, parser, root); !parsed) return parsed;
  simdjson::dom::array devices;
  if (root.get_array().get(devices)) {
    notUnderstoodMember(out, "deviceProperties", "that is not an array");
    return {};
  }
  std::size_t index = 0;
  for (simdjson::dom::element element : devices) {
    if (!element.is_object()) {
      notUnderstoodMember(out, "deviceProperties", "elements that are not objects");
      ++index;
      continue;
    }
    trace::Device device;
    // A device without an id (or with one that is no ordinal) is numbered by its place; one without
    // a name stays unnamed.
    const std::optional<std::int64_t> id = integerMember(element, "id");
    const bool ordinal = id && *id >= 0 && *id < (std::int64_t{1} << 31);
    if (id && !ordinal) notUnderstoodMember(out, "deviceProperties", "elements whose \"id\" is no device ordinal");
    device.id = static_cast<std::uint32_t>(ordinal ? *id : static_cast<std::int64_t>(index));
    std::string_view name;
    if (element["name"].get_string().get(name) == simdjson::SUCCESS) device.name = out.strings.intern(name);
    else notUnderstoodMember(out, "deviceProperties", "elements without a \"name\"");
    const auto small = [](std::optional<std::int64_t> value) {
      return value && *value > 0 && *value < (std::int64_t{1} << 30) ? static_cast<std::int32_t>(*value) : 0;
    };
    device.compute_major = small(integerMember(element, "computeMajor"));
    device.compute_minor = small(integerMember(element, "computeMinor"));
    device.sm_count = small(integerMember(element, "numSms"));
    if (const auto memory = integerMember(element, "totalGlobalMem"); memory && *memory > 0) {
      device.total_memory_bytes = static_cast<std::uint64_t>(*memory);
    }
    out.devices.push_back(device);
    ++index;
  }
  return {};
}

// {"backend": "nccl", "rank": 0, "world_size": 8}: where this rank's file sits in its job. Many
// PyTorch versions write the rank alone; the world size is then unknown (the job's files tell).
trace::Status readDistributedInfo(const std::string& path, const std::string& raw, trace::Trace& out) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (trace::Status parsed = parseMember(path, "distributedInfo", raw, parser, root); !parsed) return parsed;
  if (!root.is_object()) {
    notUnderstoodMember(out, "distributedInfo", "that is not an object");
    return {};
  }
  const std::optional<std::int64_t> rank = integerMember(root, "rank");
  const std::optional<std::int64_t> world_size = integerMember(root, "world_size");
  if (!rank || *rank < 0 || *rank >= (1 << 24)) {
    notUnderstoodMember(out, "distributedInfo", "without a rank of 0 or more");
    return {};
  }
  if (world_size && (*world_size <= 0 || *world_size > (1 << 24) || *rank >= *world_size)) {
    notUnderstoodMember(out, "distributedInfo", "with a rank outside its world size");
    return {};
  }
  trace::DistributedInfo& job = out.distributed;
  job.rank = static_cast<std::int32_t>(*rank);
  job.world_size = world_size ? static_cast<std::int32_t>(*world_size) : 0;
  std::string_view backend;
  if (!root["backend"].get_string().get(backend)) job.backend = std::string(backend);
  return {};
}

}  // namespace

trace::Status readTopLevel(const std::string& path,
                           const std::vector<std::pair<std::string, std::string>>& members,
                           trace::Trace& out, TopLevelInfo& info) {
  for (const auto& [key, raw] : members) {
    if (key == "deviceProperties") {
      if (trace::Status read = readDevices(path, raw, out); !read) return read;
    } else if (key == "baseTimeNanoseconds") {
      // Without it the times stay relative to the session's start: one file's analysis needs no
      // more; only a job's ranks lose their shared clock.
      simdjson::dom::parser parser;
      simdjson::dom::element root;
      if (trace::Status parsed = parseMember(path, key, raw, parser, root); !parsed) return parsed;
      const std::optional<std::int64_t> base = integerOf(root);
      if (base && *base >= 0) {
        info.base_time_ns = *base;
        info.has_base_time = true;
      } else {
        notUnderstoodMember(out, key, "that is not a non-negative integer");
      }
    } else if (key == "distributedInfo") {
      if (trace::Status read = readDistributedInfo(path, raw, out); !read) return read;
    } else if (key == "schemaVersion") {
      std::from_chars(raw.data(), raw.data() + raw.size(), info.schema_version);
    } else if (key == "displayTimeUnit") {
      info.display_time_unit = raw.size() >= 2 ? raw.substr(1, raw.size() - 2) : raw;
    } else if (key != "traceEvents") {
      ++out.import_stats.skipped[fmt::format("top-level member \"{}\"", key)];
    }
  }
  return {};
}

std::string kinetoSchemaDescription(bool saw_2021_categories, const TopLevelInfo& info) {
  std::string description = "PyTorch profiler (Kineto) trace";
  if (saw_2021_categories) description += ", 2021 schema (capitalised categories)";
  else if (info.has_base_time) description += ", 2023+ schema (baseTimeNanoseconds)";
  else description += ", 2022 schema (lower-case categories)";
  if (info.schema_version > 0) description += fmt::format(", schemaVersion {}", info.schema_version);
  return description;
}

}  // namespace ampscope::analyzer::import
