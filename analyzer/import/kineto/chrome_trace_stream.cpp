#include "analyzer/import/kineto/chrome_trace_stream.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "analyzer/import/kineto/json_value_end.h"

namespace ampscope::analyzer::import {

namespace {
constexpr std::size_t kPadding = simdjson::SIMDJSON_PADDING;
static_assert(kPadding >= JsonValueEnd::kReadAhead && MappedFile::kPadding >= kPadding,
              "the scanner and simdjson read into the padding");

bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

std::string describe(char c) {
  if (c >= 0x20 && c < 0x7f) return fmt::format("'{}'", c);
  return fmt::format("byte 0x{:02x}", static_cast<unsigned char>(c));
}
}  // namespace

trace::Error ChromeTraceStream::error(std::uint64_t offset, std::string_view what) const {
  return trace::Error{fmt::format("{}: invalid trace JSON at byte offset {}: {}", source_.path(),
                                  offset, what)};
}

ChromeTraceStream::ChromeTraceStream(ByteSource& source, std::size_t read_block)
    : source_(source), read_block_(read_block), mapped_(source.mapping()) {
  if (mapped_) {
    data_ = mapped_->data();
    end_ = mapped_->size();
    readable_ = end_ + MappedFile::kPadding;
    eof_ = true;
  }
}

std::uint64_t ChromeTraceStream::fileBytesDone() const {
  return mapped_ ? offsetOf(pos_) : source_.fileBytesRead();
}

void ChromeTraceStream::compact() {
  if (pos_ == 0) return;
  std::memmove(buffer_.data(), data_ + pos_, end_ - pos_);
  consumed_ += pos_;
  end_ -= pos_;
  pos_ = 0;
}

trace::Status ChromeTraceStream::fill() {
  if (eof_) return {};
  compact();
  // Grow when the value being scanned fills the buffer; otherwise keep one block free.
  if (buffer_.size() < end_ + read_block_ + kPadding) buffer_.resize(end_ + read_block_ + kPadding);
  data_ = buffer_.data();
  readable_ = buffer_.size();
  auto got = source_.read(buffer_.data() + end_, buffer_.size() - kPadding - end_);
  if (!got) return got.error();
  if (*got == 0) eof_ = true;
  end_ += *got;
  std::memset(buffer_.data() + end_, 0, std::min(kPadding, buffer_.size() - end_));
  return {};
}

trace::Status ChromeTraceStream::skipWhitespace() {
  for (;;) {
    while (pos_ < end_ && isSpace(data_[pos_])) ++pos_;
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
  if (data_[pos_] != wanted) {
    return error(offsetOf(pos_), fmt::format("found {} where '{}' was expected {}",
                                             describe(data_[pos_]), wanted, context));
  }
  ++pos_;
  return {};
}

trace::Status ChromeTraceStream::scanValue(std::size_t& end, std::string_view context,
                                           std::int64_t context_index) {
  // A value that opens with a brace, bracket or quote ends at its matching close, found 64 bytes
  // at a time (JsonValueEnd); a scalar (number, true, false, null) at the first byte that cannot
  // be part of it. simdjson validates the value afterwards.
  const char first = data_[pos_];
  const bool structured = first == '{' || first == '[' || first == '"';
  JsonValueEnd structured_end(first);
  std::size_t scan = pos_;
  for (;;) {
    if (structured) {
      const std::size_t found = structured_end.scan(data_, scan, end_);
      if (found != JsonValueEnd::kNotYet) { end = found; return {}; }
      scan = end_;
    } else {
      for (; scan < end_; ++scan) {
        const char c = data_[scan];
        if (c == ',' || c == '}' || c == ']' || isSpace(c)) { end = scan; return {}; }
      }
    }
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
  if (pos_ < end_ && data_[pos_] == ']') { ++pos_; return {}; }
  if (mapped_ && on_mapped_elements_ && pos_ < end_ && data_[pos_] == '{') {
    const trace::Result<ElementsRead> read = on_mapped_elements_(MappedElements{data_, pos_, end_, mapped_});
    if (!read) return read.error();
    pos_ = read->resume;
    index = read->count;
  }
  for (;;) {
    if (trace::Status skipped = skipWhitespace(); !skipped) return skipped;
    if (pos_ >= end_) {
      return error(offsetOf(pos_), "the document ends (truncated?) inside the traceEvents array");
    }
    if (data_[pos_] != '{') {
      return error(offsetOf(pos_), fmt::format("traceEvents element #{} starts with {}; expected "
                                               "an object '{{'", index, describe(data_[pos_])));
    }
    std::size_t value_end = 0;
    if (trace::Status scanned = scanValue(value_end, "traceEvents element #", static_cast<std::int64_t>(index)); !scanned) return scanned;
    const TraceEventText text{std::string_view(data_ + pos_, value_end - pos_), readable_ - pos_,
                              offsetOf(pos_), index, mapped_};
    if (trace::Status handled = on_event(text); !handled) return handled;
    pos_ = value_end;
    ++index;
    if ((index & 0xffff) == 0 && on_progress) on_progress(fileBytesDone(), source_.fileBytes());
    if (trace::Status skipped = skipWhitespace(); !skipped) return skipped;
    if (pos_ >= end_) {
      return error(offsetOf(pos_), "the document ends (truncated?) inside the traceEvents array");
    }
    const char next = data_[pos_++];
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
  if (pos_ < end_ && data_[pos_] == '}') { ++pos_; return {}; }
  for (;;) {
    if (trace::Status skipped = skipWhitespace(); !skipped) return skipped;
    if (pos_ >= end_ || data_[pos_] != '"') {
      return error(offsetOf(pos_), pos_ >= end_ ? "the document ends (truncated?) where a "
                                                  "top-level key was expected"
                                                : fmt::format("found {} where a top-level key "
                                                              "string was expected",
                                                              describe(data_[pos_])));
    }
    std::size_t key_end = 0;
    if (trace::Status scanned = scanValue(key_end, "a top-level key"); !scanned) return scanned;
    std::string key(data_ + pos_ + 1, key_end - pos_ - 2);
    pos_ = key_end;
    if (trace::Status colon = expect(':', fmt::format("after key \"{}\"", key)); !colon) return colon;
    if (trace::Status skipped = skipWhitespace(); !skipped) return skipped;
    if (key == "traceEvents") {
      if (pos_ >= end_ || data_[pos_] != '[') {
        return error(offsetOf(pos_), "\"traceEvents\" is not an array");
      }
      ++pos_;
      if (trace::Status events = readEventsArray(on_event, on_progress); !events) return events;
    } else {
      std::size_t value_end = 0;
      if (pos_ >= end_) return error(offsetOf(pos_), fmt::format("no value for key \"{}\"", key));
        const std::string context = fmt::format("the value of \"{}\"", key);
      if (trace::Status scanned = scanValue(value_end, context); !scanned) return scanned;
      members_.emplace_back(std::move(key), std::string(data_ + pos_, value_end - pos_));
      pos_ = value_end;
    }
    if (trace::Status skipped = skipWhitespace(); !skipped) return skipped;
    if (pos_ >= end_) {
      return error(offsetOf(pos_), "the document ends (truncated?) before the closing '}'");
    }
    const char next = data_[pos_++];
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
  if (end_ - pos_ >= 3 && std::memcmp(data_ + pos_, "\xEF\xBB\xBF", 3) == 0) {
    pos_ += 3;  // a UTF-8 byte order mark
    if (trace::Status skipped = skipWhitespace(); !skipped) return skipped;
  }
  if (pos_ >= end_) return error(0, "the document is empty; expected a JSON object or array");
  const char first = data_[pos_++];
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
                                             describe(data_[pos_])));
  }
  if (on_progress) on_progress(fileBytesDone(), source_.fileBytes());
  return {};
}

}  // namespace ampscope::analyzer::import
