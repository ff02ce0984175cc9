#include "reports/trace_event_writer.h"

#include <cmath>

#include <fmt/format.h>

namespace ampscope::reports {

namespace {

// The length of the valid UTF-8 sequence starting at text[i], or 0 where the bytes there are not
// one (overlong forms, surrogates and code points above U+10FFFF included).
std::size_t utf8Length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  std::uint32_t code = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    code = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    code = lead & 0x0Fu;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    code = lead & 0x07u;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0u) != 0x80u) return 0;
    code = (code << 6) | (byte(i + k) & 0x3Fu);
  }
  if ((length == 3 && (code < 0x800 || (code >= 0xD800 && code <= 0xDFFF))) || (length == 4 && (code < 0x10000 || code > 0x10FFFF))) {
    return 0;
  }
  return length;
}

}  // namespace

void appendJsonString(std::string& out, std::string_view text) {
  out += '"';
  for (std::size_t i = 0; i < text.size();) {
    // Plain printable ASCII (nearly all of a kernel or op name) is copied as one run.
    std::size_t plain = i;
    while (plain < text.size()) {
      const auto b = static_cast<unsigned char>(text[plain]);
      if (b < 0x20 || b >= 0x7F || b == '"' || b == '\\') break;
      ++plain;
    }
    if (plain > i) {
      out.append(text.substr(i, plain - i));
      i = plain;
      continue;
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t length = utf8Length(text, i);
      if (length == 0) {
        out += "\\ufffd";
        ++i;
      } else {
        out.append(text.substr(i, length));
        i += length;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20 || c == 0x7F) {
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  out += '"';
}

void appendMicroseconds(std::string& out, std::int64_t ns) {
  // Whole and fractional microseconds from the integer: a double would round nanoseconds away
  // beyond 2^53 ns (about 104 days), and timestamps may count from the epoch.
  const bool negative = ns < 0;
  const std::uint64_t magnitude = negative ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  fmt::format_to(std::back_inserter(out), "{}{}.{:03}", negative ? "-" : "", magnitude / 1000, magnitude % 1000);
}

void TraceEvent::key(std::string_view name) {
  if (!first_) out_ += ',';
  first_ = false;
  out_ += '"';
  out_ += name;
  out_ += "\":";
}

TraceEvent& TraceEvent::field(std::string_view name, std::string_view value) {
  key(name);
  appendJsonString(out_, value);
  return *this;
}

TraceEvent& TraceEvent::field(std::string_view name, std::int64_t value) {
  key(name);
  fmt::format_to(std::back_inserter(out_), "{}", value);
  return *this;
}

TraceEvent& TraceEvent::field(std::string_view name, std::uint64_t value) {
  key(name);
  fmt::format_to(std::back_inserter(out_), "{}", value);
  return *this;
}

TraceEvent& TraceEvent::field(std::string_view name, double value) {
  if (!std::isfinite(value)) return *this;
  key(name);
  fmt::format_to(std::back_inserter(out_), "{:.6g}", value);
  return *this;
}

TraceEvent& TraceEvent::field(std::string_view name, bool value) {
  key(name);
  out_ += value ? "true" : "false";
  return *this;
}

TraceEvent& TraceEvent::time(std::string_view name, std::int64_t ns) {
  key(name);
  appendMicroseconds(out_, ns);
  return *this;
}

TraceEvent& TraceEvent::beginArgs() {
  key("args");
  out_ += '{';
  first_ = true;
  return *this;
}

TraceEvent& TraceEvent::endArgs() {
  out_ += '}';
  first_ = false;
  return *this;
}

const std::string& TraceEvent::done() {
  out_ += '}';
  return out_;
}

TraceEventWriter::TraceEventWriter(std::ostream& out, std::string_view header) : out_(out) {
  out_ << '{';
  if (!header.empty()) out_ << header << ',';
  out_ << "\"traceEvents\":[\n";
}

void TraceEventWriter::write(const std::string& event_json) {
  if (events_ > 0) out_ << ",\n";
  out_ << event_json;
  ++events_;
}

void TraceEventWriter::finish() {
  if (finished_) return;
  finished_ = true;
  out_ << "\n]}\n";
}

}  // namespace ampscope::reports
