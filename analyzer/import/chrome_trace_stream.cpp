#include "analyzer/import/chrome_trace_stream.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <fmt/format.h>

namespace ampscope::analyzer::import {

namespace {
constexpr std::size_t kPadding = simdjson::SIMDJSON_PADDING;

bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// The position of the next quote, backslash, brace or bracket in [from, to), or to. Reads up to
// 15 bytes past `to`, which the buffer's simdjson padding makes safe.
std::size_t nextStructuralByte(const char* data, std::size_t from, std::size_t to) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i open_brace = _mm_set1_epi8('{');
  const __m128i close_brace = _mm_set1_epi8('}');
  const __m128i open_bracket = _mm_set1_epi8('[');
  const __m128i close_bracket = _mm_set1_epi8(']');
  while (from < to) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + from));
    const __m128i hits = _mm_or_si128(
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(block, quote), _mm_cmpeq_epi8(block, backslash)),
                     _mm_or_si128(_mm_cmpeq_epi8(block, open_brace), _mm_cmpeq_epi8(block, close_brace))),
        _mm_or_si128(_mm_cmpeq_epi8(block, open_bracket), _mm_cmpeq_epi8(block, close_bracket)));
    const auto mask = static_cast<unsigned>(_mm_movemask_epi8(hits));
    if (mask != 0) return std::min(to, from + static_cast<std::size_t>(__builtin_ctz(mask)));
    from += 16;
  }
  return to;
#else
  for (; from < to; ++from) {
    const char c = data[from];
    if (c == '"' || c == '\\' || c == '{' || c == '}' || c == '[' || c == ']') return from;
  }
  return to;
#endif
}

std::string describe(char c) {
  if (c >= 0x20 && c < 0x7f) return fmt::format("'{}'", c);
  return fmt::format("byte 0x{:02x}", static_cast<unsigned char>(c));
}
}  // namespace

trace::Error ChromeTraceStream::error(std::uint64_t offset, std::string_view what) const {
  return trace::Error{fmt::format("{}: invalid trace JSON at byte offset {}: {}", source_.path(),
                                  offset, what)};
}

void ChromeTraceStream::compact() {
  if (pos_ == 0) return;
  std::memmove(buffer_.data(), buffer_.data() + pos_, end_ - pos_);
  consumed_ += pos_;
  end_ -= pos_;
  pos_ = 0;
}

trace::Status ChromeTraceStream::fill() {
  if (eof_) return {};
  compact();
  // Grow when the value being scanned fills the buffer; otherwise keep one block free.
  if (buffer_.size() < end_ + read_block_ + kPadding) buffer_.resize(end_ + read_block_ + kPadding);
  auto got = source_.read(buffer_.data() + end_, buffer_.size() - kPadding - end_);
  if (!got) return got.error();
  if (*got == 0) eof_ = true;
  end_ += *got;
  std::memset(buffer_.data() + end_, 0, std::min(kPadding, buffer_.size() - end_));
  return {};
}

trace::Status ChromeTraceStream::skipWhitespace() {
  for (;;) {
    while (pos_ < end_ && isSpace(buffer_[pos_])) ++pos_;
    if (pos_ < end_ || eof_) return {};
    if (trace::Status filled = fill(); !filled) return filled;
  }
}

trace::Status ChromeTraceStream::expect(char wanted, std::string_view context) {
  if (trace::Status skipped = skipWhitespace(); !skipped) return skipped;
  if (pos_ >= end_) {
    return error(offsetOf(pos_), fmt::format("the document ends (truncated?) where '{}' was "
                                             "expected {}", wanted, context));
  }
  if (buffer_[pos_] != wanted) {
    return error(offsetOf(pos_), fmt::format("found {} where '{}' was expected {}",
                                             describe(buffer_[pos_]), wanted, context));
  }
  ++pos_;
  return {};
}

trace::Status ChromeTraceStream::scanValue(std::size_t& end, std::string_view context,
                                           std::int64_t context_index) {
  // A byte loop that tracks strings and nesting; simdjson validates the value afterwards.
  std::size_t scan = pos_;
  int depth = 0;
  bool in_string = false;
  // A value that opens with a brace, bracket or quote ends at its matching close; only quotes,
  // backslashes and brackets matter on the way, found 16 bytes at a time.
  const char first = buffer_[pos_];
  const bool structured = first == '{' || first == '[' || first == '"';
  for (;;) {
    while (scan < end_) {
      if (structured) {
        scan = nextStructuralByte(buffer_.data(), scan, end_);
        if (scan == end_) break;
      }
      const char c = buffer_[scan];
      if (in_string) {
        if (c == '\\') { scan += 2; continue; }  // the escaped byte cannot end the string
        if (c == '"') {
          in_string = false;
          if (depth == 0) { end = scan + 1; return {}; }
        }
        ++scan;
        continue;
      }
      if (c == '"') in_string = true;
      else if (c == '{' || c == '[') ++depth;
      else if (c == '}' || c == ']') {
        if (depth == 0) { end = scan; return {}; }  // a scalar ended by its container
        if (--depth == 0) { end = scan + 1; return {}; }
      } else if (depth == 0 && (c == ',' || isSpace(c))) {
        end = scan;  // a scalar (number, true, false, null) ends here
        return {};
      }
      ++scan;
    }
    // A backslash as the last byte read leaves scan one past the data, on the escaped byte that
    // the refill brings: the scan resumes after it.
    if (eof_) {
      // The context is assembled only here: formatting it for every event would cost more
      // than scanning the event.
      const std::string where = context_index < 0 ? std::string(context)
                                                  : fmt::format("{}{}", context, context_index);
      return error(offsetOf(end_), fmt::format("the document ends (truncated?) inside {} that "
                                                "starts at byte offset {}", where, offsetOf(pos_)));
    }
    const std::size_t start = pos_;
    if (trace::Status filled = fill(); !filled) return filled;
    scan -= start - pos_;  // fill() moved the data to the front of the buffer
  }
}

trace::Status ChromeTraceStream::readEventsArray(const EventHandler& on_event,
                                                 const ProgressHandler& on_progress) {
  saw_events_ = true;
  std::uint64_t index = 0;
  if (trace::Status skipped = skipWhitespace(); !skipped) return skipped;
  if (pos_ < end_ && buffer_[pos_] == ']') { ++pos_; return {}; }
  for (;;) {
    if (trace::Status skipped = skipWhitespace(); !skipped) return skipped;
    if (pos_ >= end_) {
      return error(offsetOf(pos_), "the document ends (truncated?) inside the traceEvents array");
    }
    if (buffer_[pos_] != '{') {
      return error(offsetOf(pos_), fmt::format("traceEvents element #{} starts with {}; expected "
                                               "an object '{{'", index, describe(buffer_[pos_])));
    }
    std::size_t value_end = 0;
    if (trace::Status scanned = scanValue(value_end, "traceEvents element #", static_cast<std::int64_t>(index)); !scanned) return scanned;
    const TraceEventText text{std::string_view(buffer_.data() + pos_, value_end - pos_),
                              buffer_.size() - pos_, offsetOf(pos_), index};
    if (trace::Status handled = on_event(text); !handled) return handled;
    pos_ = value_end;
    ++index;
    if ((index & 0xffff) == 0 && on_progress) on_progress(source_.fileBytesRead(), source_.fileBytes());
    if (trace::Status skipped = skipWhitespace(); !skipped) return skipped;
    if (pos_ >= end_) {
      return error(offsetOf(pos_), "the document ends (truncated?) inside the traceEvents array");
    }
    const char next = buffer_[pos_++];
    if (next == ']') return {};
    if (next != ',') {
      return error(offsetOf(pos_ - 1), fmt::format("found {} after traceEvents element #{}; "
                                                   "expected ',' or ']'", describe(next), index - 1));
    }
  }
}

trace::Status ChromeTraceStream::readObjectMembers(const EventHandler& on_event,
                                                   const ProgressHandler& on_progress) {
  if (trace::Status skipped = skipWhitespace(); !skipped) return skipped;
  if (pos_ < end_ && buffer_[pos_] == '}') { ++pos_; return {}; }
  for (;;) {
    if (trace::Status skipped = skipWhitespace(); !skipped) return skipped;
    if (pos_ >= end_ || buffer_[pos_] != '"') {
      return error(offsetOf(pos_), pos_ >= end_ ? "the document ends (truncated?) where a "
                                                  "top-level key was expected"
                                                : fmt::format("found {} where a top-level key "
                                                              "string was expected",
                                                              describe(buffer_[pos_])));
    }
    std::size_t key_end = 0;
    if (trace::Status scanned = scanValue(key_end, "a top-level key"); !scanned) return scanned;
    std::string key(buffer_.data() + pos_ + 1, key_end - pos_ - 2);
    pos_ = key_end;
    if (trace::Status colon = expect(':', fmt::format("after key \"{}\"", key)); !colon) return colon;
    if (trace::Status skipped = skipWhitespace(); !skipped) return skipped;
    if (key == "traceEvents") {
      if (pos_ >= end_ || buffer_[pos_] != '[') {
        return error(offsetOf(pos_), "\"traceEvents\" is not an array");
      }
      ++pos_;
      if (trace::Status events = readEventsArray(on_event, on_progress); !events) return events;
    } else {
      std::size_t value_end = 0;
      if (pos_ >= end_) return error(offsetOf(pos_), fmt::format("no value for key \"{}\"", key));
        const std::string context = fmt::format("the value of \"{}\"", key);
      if (trace::Status scanned = scanValue(value_end, context); !scanned) return scanned;
      members_.emplace_back(std::move(key), std::string(buffer_.data() + pos_, value_end - pos_));
      pos_ = value_end;
    }
    if (trace::Status skipped = skipWhitespace(); !skipped) return skipped;
    if (pos_ >= end_) {
      return error(offsetOf(pos_), "the document ends (truncated?) before the closing '}'");
    }
    const char next = buffer_[pos_++];
    if (next == '}') return {};
    if (next != ',') {
      return error(offsetOf(pos_ - 1), fmt::format("found {} between top-level members; "
                                                   "expected ',' or '}}'", describe(next)));
    }
  }
}

trace::Status ChromeTraceStream::run(const EventHandler& on_event,
                                     const ProgressHandler& on_progress) {
  if (trace::Status skipped = skipWhitespace(); !skipped) return skipped;
  if (end_ - pos_ >= 3 && std::memcmp(buffer_.data() + pos_, "\xEF\xBB\xBF", 3) == 0) {
    pos_ += 3;  // a UTF-8 byte order mark
    if (trace::Status skipped = skipWhitespace(); !skipped) return skipped;
  }
  if (pos_ >= end_) return error(0, "the document is empty; expected a JSON object or array");
  const char first = buffer_[pos_++];
  trace::Status status;
  if (first == '{') status = readObjectMembers(on_event, on_progress);
  else if (first == '[') status = readEventsArray(on_event, on_progress);
  else {
    return error(offsetOf(pos_ - 1), fmt::format("the document starts with {}; expected a JSON "
                                                 "object '{{' or array '['", describe(first)));
  }
  if (!status) return status;
  if (trace::Status skipped = skipWhitespace(); !skipped) return skipped;
  if (pos_ < end_) {
    return error(offsetOf(pos_), fmt::format("unexpected {} after the end of the document",
                                             describe(buffer_[pos_])));
  }
  if (on_progress) on_progress(source_.fileBytesRead(), source_.fileBytes());
  return {};
}

}  // namespace ampscope::analyzer::import
