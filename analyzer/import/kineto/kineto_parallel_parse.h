#pragma once
// Parses a Kineto document's events on several threads while the stream reads on, in batches of
// about half a megabyte: parser threads turn batches into records, and each parsed batch is
// merged into the trace in document order as soon as the batches before it are. A batch is
// either a run of elements the stream found one by one (copied out of its read buffer, or in
// place in a mapped file), or, in a mapped file, a chunk cut at a guessed boundary that the
// parser reads as one array, which spares the reading thread a scan of every byte. A handful of
// batches are in flight at a time, so memory stays bounded however large the file. With one
// thread, or a document of one batch, everything happens on the calling thread. The trace and
// the first error (in document order) do not depend on the number of threads.

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

#include "analyzer/import/import_options.h"
#include "analyzer/import/kineto/chrome_trace_stream.h"
#include "analyzer/import/kineto/kineto_batch_merge.h"
#include "analyzer/import/kineto/kineto_event_parser.h"
#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer::import {

class KinetoParallelParse {
 public:
  static constexpr std::size_t kDefaultBatchBytes = 512 << 10;
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
  // The elements of a mapped events array (ChromeTraceStream's MappedElementsHandler): the
  // reading thread cuts them into chunks at guessed boundaries (guessObjectBoundary), which the
  // parsers read whole. Chunks are kept in document order up to the first that a parse does not
  // prove right; the stream hands the elements from there on to add(), one by one. Progress is
  // reported in document bytes. An error only for a failure that reading again would not mend.
  trace::Result<ElementsRead> readMappedElements(const MappedElements& elements, const ProgressCallback& progress);
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
    std::optional<GuessedChunk> chunk;  // the batch was this chunk
  };
  // Hands a batch to the parsers, or parses it here; last: no batch follows.
  void submit(EventBatch batch, bool last);
  void waitAllMerged();
  // Parsers with empty tables, after batches that their tables grew with were dropped. Only
  // while no batch is being parsed or merged.
  void restartParsers();
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
  // Guessed chunks: whether one was proved wrong (those after it are dropped unread), and how
  // far those merged before it reach.
  bool guess_failed_ = false;
  ElementsRead guessed_;

  std::mutex merging_;  // held by the one thread merging at a time
  std::vector<std::thread> threads_running_;
  bool parse_here_ = false;  // no parser thread could be started
};

}  // namespace ampscope::analyzer::import
