#pragma once
// Parses Kineto trace events into trace records, one batch of consecutive events at a time, so
// that batches can be parsed on several threads. Each thread has a parser of its own: the records
// it makes carry string ids and thread indices of the parser's own tables, and each batch lists
// what those tables gained while it was parsed. KinetoBatchMerge turns them into the trace's, in
// document order.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer::import {

class MappedFile;

// Where one traceEvents element lies in a batch's text, and in the document.
struct EventSpan {
  std::size_t offset = 0;  // from EventBatch::text
  std::size_t size = 0;
  std::uint64_t byte_offset = 0;  // in the uncompressed document, for errors
  std::uint64_t index = 0;        // position in the traceEvents array
};

// Consecutive elements of a mapped traceEvents array that the reading thread cut at guessed
// boundaries (guessObjectBoundary) instead of finding each element's end: parsed as one array,
// which proves the guess right or wrong (ParsedBatch::error).
struct GuessedChunk {
  std::size_t size = 0;           // EventBatch::text[0, size): from the first '{' to the last '}'
  std::uint64_t byte_offset = 0;  // where the chunk starts in the document
  std::size_t next_start = 0;     // in the document: where the element after it starts, if the guess is right
};

// Consecutive elements of the traceEvents array: in place in a mapped file, or copied out of the
// read buffer; either as spans found one by one, or as a guessed chunk.
struct EventBatch {
  std::uint64_t sequence = 0;  // batches are numbered from 0 in document order
  std::vector<char> bytes;     // copied elements back to back, then simdjson's padding
  const char* text = nullptr;  // where the spans' offsets count from: bytes.data() or the file
  std::size_t readable = 0;    // bytes readable from text, padding included
  std::vector<EventSpan> events;
  const MappedFile* mapped = nullptr;  // the file text lies in, when the elements are not copied
  std::optional<GuessedChunk> chunk;   // set: the batch is this chunk, and `events` is empty
};

// A (pid, tid) pair of Trace::threads.
using ThreadKey = std::pair<std::int64_t, std::int64_t>;

// What one batch became, in the parser's own string ids and thread indices.
struct ParsedBatch {
  std::vector<trace::Kernel> kernels;
  std::vector<trace::LaunchCall> launches;
  std::vector<trace::MemoryOp> memory_ops;
  std::vector<trace::Synchronization> synchronizations;
  std::vector<trace::Range> ranges;
  std::vector<trace::CommunicationMessage> communication_messages;
  std::vector<trace::MemoryEvent> memory_events;
  std::vector<trace::KernelMetrics> kernel_metrics;
  std::vector<trace::MetricSample> metric_samples;  // each without its end (closed at the import's end)
  trace::ImportStats stats;  // events read and imported, skipped and not understood
  // The parser's strings and threads first met in this batch: ids first_new_string... and
  // indices first_new_thread..., in order.
  trace::StringId first_new_string = 0;
  std::vector<std::string> new_strings;
  std::size_t first_new_thread = 0;
  std::vector<ThreadKey> new_threads;
  std::vector<std::pair<ThreadKey, std::string>> thread_names;  // thread_name metadata, in order
  bool saw_2021_categories = false;  // "Kernel", "Operator", "Runtime": the 2021 schema
  std::uint64_t document_end = 0;    // where the batch's last event ends in the document
  std::uint64_t elements = 0;        // a guessed chunk's elements, when it was read whole
  // The first event that could not be read; the batch's records stop before it. In a guessed
  // chunk: the guess was wrong or an element is bad, and none of its records are wanted.
  std::optional<trace::Error> error;
};

class KinetoEventParser {
 public:
  // path names the file in errors.
  explicit KinetoEventParser(std::string path);
  ~KinetoEventParser();
  KinetoEventParser(const KinetoEventParser&) = delete;
  KinetoEventParser& operator=(const KinetoEventParser&) = delete;

  ParsedBatch parse(const EventBatch& batch);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ampscope::analyzer::import
