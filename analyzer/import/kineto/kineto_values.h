#pragma once
// The value-level vocabulary of Kineto traces: categories, timestamps, memcpy names, top-level
// members. Kept apart from the event loop so each piece is testable on its own.

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer::import {

enum class EventCategory {
  kKernel, kMemcpy, kMemset, kRuntime, kDriver, kSync,
  kOperator, kAnnotation, kPython, kGpuAnnotation,
  kProfilerRange,  // CUPTI range-profiler metrics of one kernel launch (kineto_metric_events.h)
  kIgnored,  // known, not modelled (e.g. the profiler's own "Trace" span)
  kUnknown,
};

// text == word, for a word written in the code: with its length known when compiling, the
// comparison becomes a few loads rather than a call to memcmp. Every event has a dozen keys and a
// category to match against these words.
template <std::size_t N>
inline bool isWord(std::string_view text, const char (&word)[N]) {
  return text.size() == N - 1 && std::memcmp(text.data(), word, N - 1) == 0;
}

// Maps both the 2021 capitalised and the later lower-case category names.
EventCategory categoryOf(std::string_view cat);
trace::RangeKind rangeKindOf(EventCategory category);

// Parses a JSON number of microseconds ("1420179485153.755", "17", "1.6e9") into integer
// nanoseconds exactly where the text has at most three decimals. False when not a number.
bool microsecondsToNs(std::string_view token, std::int64_t& ns);

// text without the JSON whitespace (space, tab, CR, LF) around it.
std::string_view trimJsonSpace(std::string_view text);

// A number written as text, as recording tools write them in strings: "42", " 7 ", "1.5e1" (a
// fraction cut to its whole part), and "0x1f" as ROCm writes streams.
enum class NumberText : std::uint8_t { kRead, kNotANumber, kOutOfRange };
NumberText integerFromText(std::string_view text, std::int64_t& out);

// An integer for a pid/tid label: "25738" -> 25738, "stream 7" -> 7, other text -> a negative
// id hashed from the text. The id depends on the text alone (not on which labels came before),
// so events parsed on different threads agree on it; it lies in [-2^31, -2^20], apart from real
// ids, and distinct labels collide with a chance of about one in 2^31.
std::int64_t idFromLabel(std::string_view label);

// JSON text without insignificant whitespace: "[[1, 2], []]" -> "[[1,2],[]]".
// Written into scratch (reused from call to call, so that no event allocates); the view is valid
// until scratch changes.
std::string_view compactJson(std::string_view json, std::string& scratch);

// Fills direction and source/destination memory kinds from a name such as
// "Memcpy HtoD (Pageable -> Device)" or "Memset (Device)".
void describeMemoryOp(std::string_view name, trace::MemoryOp& op);
trace::SyncKind syncKindFromName(std::string_view name);

struct TopLevelInfo {
  std::int64_t base_time_ns = 0;  // "baseTimeNanoseconds": timestamps are offsets from it
  std::int64_t schema_version = 0;
  std::string display_time_unit;
  bool has_base_time = false;
};

// Reads the top-level members that matter (deviceProperties, baseTimeNanoseconds, ...).
trace::Status readTopLevel(const std::string& path,
                           const std::vector<std::pair<std::string, std::string>>& members,
                           trace::Trace& out, TopLevelInfo& info);

std::string kinetoSchemaDescription(bool saw_2021_categories, const TopLevelInfo& info);

}  // namespace ampscope::analyzer::import
