#pragma once
// A streaming writer of Chrome's JSON trace format ("traceEvents" array): each event's JSON is
// built in a small reused buffer and written to the stream at once, so that exporting a trace of
// millions of events never holds a document of them (perfetto_export.h walks the analysis).
// Format: https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace ampscope::reports {

// Appends text as a JSON string literal (quotes included): quotes, backslashes and control
// characters escaped; bytes that are not valid UTF-8 (a kernel name is whatever the file held)
// become U+FFFD, so the document always parses.
void appendJsonString(std::string& out, std::string_view text);

// Appends a time in nanoseconds as microseconds with three decimals ("1234.567"): the format's
// unit, with the nanoseconds kept exactly (no floating point on the way).
void appendMicroseconds(std::string& out, std::int64_t ns);

// One event's fields, appended in order. Keys are the format's or ampscope's own constants, so
// they are written as they are; values are escaped.
class TraceEvent {
 public:
  explicit TraceEvent(std::string& buffer) : out_(buffer) { out_ = "{"; }
  TraceEvent& field(std::string_view key, std::string_view value);
  TraceEvent& field(std::string_view key, const char* value) { return field(key, std::string_view(value)); }
  TraceEvent& field(std::string_view key, std::int64_t value);
  TraceEvent& field(std::string_view key, std::uint64_t value);
  TraceEvent& field(std::string_view key, int value) { return field(key, static_cast<std::int64_t>(value)); }
  TraceEvent& field(std::string_view key, std::uint32_t value) { return field(key, static_cast<std::uint64_t>(value)); }
  // Finite values with up to 6 significant digits; a non-finite one is left out (JSON has none).
  TraceEvent& field(std::string_view key, double value);
  TraceEvent& field(std::string_view key, bool value);
  TraceEvent& time(std::string_view key, std::int64_t ns);  // microseconds, appendMicroseconds
  // "args": {...}: call, add fields, then endArgs.
  TraceEvent& beginArgs();
  TraceEvent& endArgs();
  // The finished event (closing brace added).
  const std::string& done();

 private:
  void key(std::string_view name);
  std::string& out_;
  bool first_ = true;
};

// Writes `{<header fields>,"traceEvents":[` then one event per line, then `]}`.
class TraceEventWriter {
 public:
  // header: the document's other members as JSON text without braces ("" for none), written first.
  TraceEventWriter(std::ostream& out, std::string_view header);
  // A buffer for the next event (TraceEvent(buffer())...), then write(event.done()).
  std::string& buffer() { return buffer_; }
  void write(const std::string& event_json);
  // Closes the array and the document.
  void finish();
  std::uint64_t events() const { return events_; }

 private:
  std::ostream& out_;
  std::string buffer_;
  std::uint64_t events_ = 0;
  bool finished_ = false;
};

}  // namespace ampscope::reports
