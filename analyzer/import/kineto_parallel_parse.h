#pragma once
// Parses a Kineto document's events on several threads while the stream reads on: the reading
// thread copies complete events into batches of about a megabyte, parser threads turn batches
// into records, and each parsed batch is merged into the trace in document order as soon as the
// batches before it are. A handful of batches are in flight at a time, so memory stays bounded
// however large the file. With one thread, or a document of one batch, everything happens on the
// calling thread. The trace and the first error (in document order) do not depend on the number
// of threads.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "analyzer/import/chrome_trace_stream.h"
#include "analyzer/import/import_options.h"
#include "analyzer/import/kineto_batch_merge.h"
#include "analyzer/import/kineto_event_parser.h"
#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer::import {

class KinetoParallelParse {
 public:
  static constexpr std::size_t kDefaultBatchBytes = 1 << 20;
  // threads: 0 for every hardware thread. batch_bytes: small values exercise batching in tests.
  KinetoParallelParse(std::string path, trace::Trace& out, unsigned threads,
                      std::size_t batch_bytes = kDefaultBatchBytes);
  ~KinetoParallelParse();
  KinetoParallelParse(const KinetoParallelParse&) = delete;
  KinetoParallelParse& operator=(const KinetoParallelParse&) = delete;

  // Takes one traceEvents element (ChromeTraceStream's handler): copied into the batch, or,
  // in a mapped file, noted where it lies. An error return only says that an earlier batch
  // failed: finish() gives the error itself.
  trace::Status add(const TraceEventText& event);
  // Parses and merges what is left and waits for it. Returns the first bad event's error, in
  // document order, if any.
  trace::Status finish();
  bool saw2021Categories() const { return merge_.saw2021Categories(); }
  // The uncompressed document's size, when known (KinetoBatchMerge::expectDocumentBytes).
  void expectDocumentBytes(std::uint64_t bytes) { merge_.expectDocumentBytes(bytes); }
  void nameThreads() { merge_.nameThreads(); }

 private:
  struct Done {
    std::size_t parser = 0;
    ParsedBatch batch;
  };
  // Hands the current batch to the parsers, or parses it here; last: no batch follows.
  void submit(bool last);
  void startParsers();
  void parserLoop(std::size_t parser);
  void mergeReady();             // merges the parsed batches that are next in document order
  std::vector<char> takeBuffer();
  void keepBuffer(std::vector<char>&& buffer);  // for the next batch; the caller holds mutex_
  // Gives back the mapped file's pages of a batch once it is parsed.
  static void releaseText(const EventBatch& batch);
  // The parser's batch, or a batch whose error says what was thrown (a thread must not throw).
  ParsedBatch parseCatching(KinetoEventParser& parser, const EventBatch& batch) const;

  const std::string path_;
  const unsigned threads_;
  const std::size_t batch_bytes_;
  const std::size_t max_in_flight_;
  std::vector<std::unique_ptr<KinetoEventParser>> parsers_;
  KinetoBatchMerge merge_;
  EventBatch current_;

  std::mutex mutex_;  // guards everything below
  std::condition_variable work_ready_;   // a batch to parse, or stopping_
  std::condition_variable batch_merged_; // room for another batch, or all merged
  std::deque<EventBatch> waiting_;
  std::map<std::uint64_t, Done> parsed_;
  std::vector<std::vector<char>> spare_buffers_;
  std::uint64_t submitted_ = 0;
  std::uint64_t merged_ = 0;
  std::optional<trace::Error> error_;
  bool stopping_ = false;

  std::mutex merging_;  // held by the one thread merging at a time
  std::vector<std::thread> threads_running_;
  bool parse_here_ = false;  // no parser thread could be started
};

}  // namespace ampscope::analyzer::import
