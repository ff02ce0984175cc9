#pragma once
// Streams a Chrome trace-event JSON document ({"traceEvents": [...], ...} or a bare [...]) from a
// ByteSource: each element of the events array is handed over as soon as it is complete, with
// simdjson padding after it, and the other top-level members are kept as raw JSON text. Memory
// stays at one read buffer however large the file; offsets in errors are uncompressed bytes.
// A file the source has mapped into memory is read in place, without a buffer.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/import/byte_source.h"
#include "trace/result.h"

namespace ampscope::analyzer::import {

struct TraceEventText {
  std::string_view json;        // the element, without surrounding whitespace or comma
  std::size_t padded_capacity;  // readable bytes from json.data(), at least json.size() + padding
  std::uint64_t byte_offset;    // where the element starts in the uncompressed document
  std::uint64_t index;          // 0-based position in the events array
  // Where json lies in a mapped file, it stays there as long as the source lives: the element
  // need not be copied to be kept. Null: json is gone once the handler returns.
  const MappedFile* mapped = nullptr;
};

// The events array of a mapped document from its first element on, for a handler that reads
// elements itself rather than one by one (KinetoParallelParse::readMappedElements).
struct MappedElements {
  const char* text = nullptr;  // the whole document, followed by MappedFile::kPadding readable bytes
  std::size_t first = 0;       // where the first element starts ('{')
  std::size_t size = 0;        // the document's size
  const MappedFile* mapped = nullptr;
};

// How far such a handler read: the first `count` elements; the next one starts at `resume`
// (MappedElements::first when it read none), and the stream reads on from there.
struct ElementsRead {
  std::size_t resume = 0;
  std::uint64_t count = 0;
};

class ChromeTraceStream {
 public:
  using EventHandler = std::function<trace::Status(const TraceEventText&)>;
  using ProgressHandler = std::function<void(std::uint64_t done, std::uint64_t total)>;
  using MappedElementsHandler = std::function<trace::Result<ElementsRead>(const MappedElements&)>;

  static constexpr std::size_t kDefaultReadBlock = 8 << 20;
  // read_block: bytes read per refill; small values exercise the refill paths in tests.
  explicit ChromeTraceStream(ByteSource& source, std::size_t read_block = kDefaultReadBlock);

  // Reads the whole document, calling on_event for every element of "traceEvents".
  trace::Status run(const EventHandler& on_event, const ProgressHandler& on_progress);

  // In a mapped document, the events array's elements go to `handler` first, and on_event gets
  // those it left. Without one, or in a document read through a buffer, on_event gets them all.
  void setMappedElementsHandler(MappedElementsHandler handler) { on_mapped_elements_ = std::move(handler); }

  // Top-level members other than traceEvents, as (key, raw JSON value), in document order.
  const std::vector<std::pair<std::string, std::string>>& members() const { return members_; }
  bool sawEventsArray() const { return saw_events_; }

 private:
  trace::Status fill();                   // appends more bytes to the buffer; eof_ at the end
  trace::Status skipWhitespace();         // advances pos_ past whitespace, refilling as needed
  trace::Status expect(char wanted, std::string_view context);
  // Finds the end of the JSON value starting at pos_; on success the value spans [pos_, end).
  // context (followed by context_index when not negative) names the value in errors.
  trace::Status scanValue(std::size_t& end, std::string_view context, std::int64_t context_index = -1);
  trace::Status readEventsArray(const EventHandler& on_event, const ProgressHandler& on_progress);
  trace::Status readObjectMembers(const EventHandler& on_event, const ProgressHandler& on_progress);
  trace::Error error(std::uint64_t offset, std::string_view what) const;
  std::uint64_t offsetOf(std::size_t pos) const { return consumed_ + pos; }
  std::uint64_t fileBytesDone() const;    // for progress
  void compact();                         // drops bytes before pos_ to make room

  ByteSource& source_;
  std::size_t read_block_;
  const MappedFile* mapped_;  // the whole file in place, or null: read through buffer_
  std::vector<char> buffer_;  // size = capacity + padding; [0, end_) holds data
  const char* data_ = nullptr;  // buffer_.data() or the mapped file
  std::size_t readable_ = 0;    // bytes readable from data_, padding included
  std::size_t pos_ = 0;
  std::size_t end_ = 0;
  std::uint64_t consumed_ = 0;  // document bytes dropped from the front of buffer_
  bool eof_ = false;
  bool saw_events_ = false;
  std::vector<std::pair<std::string, std::string>> members_;
  MappedElementsHandler on_mapped_elements_;
};

}  // namespace ampscope::analyzer::import
