#include "analyzer/import/kineto/kineto_parallel_parse.h"

#include <simdjson.h>

#include <algorithm>
#include <exception>
#include <system_error>

#include <fmt/format.h>

#include "analyzer/import/kineto/object_boundary.h"
#include "analyzer/import/mapped_file.h"

namespace ampscope::analyzer::import {

KinetoParallelParse::KinetoParallelParse(std::string path, trace::Trace& out, unsigned threads,
                                         std::size_t batch_bytes)
    : path_(std::move(path)),
      threads_(threadsToUse(threads)),
      batch_bytes_(std::max<std::size_t>(1, batch_bytes)),
      // Two batches a parser keeps every parser busy while the reader fills the next.
      max_in_flight_(2 * static_cast<std::size_t>(threads_) + 1),
      merge_(out, threads_) {
  for (unsigned i = 0; i < threads_; ++i) parsers_.push_back(std::make_unique<KinetoEventParser>(path_));
}

KinetoParallelParse::~KinetoParallelParse() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    waiting_.clear();  // finish() was not reached: nobody wants the rest
  }
  work_ready_.notify_all();
  for (std::thread& thread : threads_running_) thread.join();
}

std::vector<char> KinetoParallelParse::takeBuffer() {
  {
    std::lock_guard lock(mutex_);
    if (!spare_buffers_.empty()) {
      std::vector<char> buffer = std::move(spare_buffers_.back());
      spare_buffers_.pop_back();
      buffer.clear();
      return buffer;
    }
  }
  std::vector<char> buffer;
  buffer.reserve(batch_bytes_ + (batch_bytes_ >> 4) + simdjson::SIMDJSON_PADDING);
  return buffer;
}

void KinetoParallelParse::keepBuffer(std::vector<char>&& buffer) {
  if (buffer.capacity() > 0) spare_buffers_.push_back(std::move(buffer));  // mapped batches copy nothing
}

trace::Status KinetoParallelParse::add(const TraceEventText& event) {
  std::size_t batch_size = 0;
  if (event.mapped) {
    // In place: the batch's elements are consecutive in the file, so the span of the first to
    // the last holds them all.
    if (current_.events.empty()) {
      current_.text = event.json.data();
      current_.mapped = event.mapped;
    }
    const auto offset = static_cast<std::size_t>(event.json.data() - current_.text);
    current_.events.push_back(EventSpan{offset, event.json.size(), event.byte_offset, event.index});
    current_.readable = offset + event.padded_capacity;
    batch_size = offset + event.json.size();
  } else {
    if (current_.events.empty()) current_.bytes = takeBuffer();
    current_.events.push_back(EventSpan{current_.bytes.size(), event.json.size(), event.byte_offset, event.index});
    current_.bytes.insert(current_.bytes.end(), event.json.begin(), event.json.end());
    batch_size = current_.bytes.size();
  }
  if (batch_size < batch_bytes_) return {};
  submit(std::exchange(current_, EventBatch{}), false);
  std::lock_guard lock(mutex_);
  if (error_) return *error_;
  return {};
}

trace::Result<ElementsRead> KinetoParallelParse::readMappedElements(const MappedElements& elements,
                                                                    const ProgressCallback& progress) {
  {
    std::lock_guard lock(mutex_);
    guessed_ = ElementsRead{elements.first, 0};
  }
  // Each chunk holds at least batch_bytes_: its last element's end is guessed past that. What
  // follows the last guess (the array's last elements, its end) is left to the stream.
  std::size_t start = elements.first;
  while (start + batch_bytes_ < elements.size) {
    const std::optional<ObjectBoundary> boundary =
        guessObjectBoundary(elements.text, start, start + batch_bytes_, elements.size);
    if (!boundary) break;
    EventBatch batch;
    batch.text = elements.text + start;
    batch.readable = elements.size + MappedFile::kPadding - start;
    batch.mapped = elements.mapped;
    batch.chunk = GuessedChunk{boundary->object_end - start, start, boundary->next_start};
    submit(std::move(batch), false);
    if (progress) progress(boundary->next_start, elements.size);
    {
      std::lock_guard lock(mutex_);
      if (error_ || guess_failed_) break;
    }
    start = boundary->next_start;
  }
  waitAllMerged();
  bool restart = false;
  ElementsRead read;
  {
    std::lock_guard lock(mutex_);
    if (error_) return *error_;
    restart = std::exchange(guess_failed_, false);
    read = guessed_;
  }
  if (restart) restartParsers();
  return read;
}

void KinetoParallelParse::waitAllMerged() {
  std::unique_lock lock(mutex_);
  batch_merged_.wait(lock, [&] { return merged_ == submitted_ || error_; });
}

void KinetoParallelParse::restartParsers() {
  // The dropped chunks' strings and threads are in their parsers' tables, but never reached
  // the merge: fresh parsers and a merge that knows none of their ids agree again.
  // Locks in mergeReady's order. Parser threads take parsers_[i] once they hold a batch, which
  // comes after this under mutex_.
  std::lock_guard merging(merging_);
  std::lock_guard lock(mutex_);
  for (std::unique_ptr<KinetoEventParser>& parser : parsers_) parser = std::make_unique<KinetoEventParser>(path_);
  merge_.restartParsers();
}

void KinetoParallelParse::submit(EventBatch batch, bool last) {
  if (batch.events.empty() && !batch.chunk) return;
  if (!batch.mapped) {
    batch.bytes.resize(batch.bytes.size() + simdjson::SIMDJSON_PADDING, '\0');
    batch.text = batch.bytes.data();
    batch.readable = batch.bytes.size();
  }
  // Parser threads start with the first batch that has another after it: a document of one
  // batch, or --threads 1, is parsed here.
  const bool only_batch = last && submitted_ == 0;
  if (threads_ > 1 && threads_running_.empty() && !parse_here_ && !only_batch) startParsers();
  if (threads_running_.empty()) {
    ParsedBatch parsed = parseCatching(*parsers_[0], batch);
    releaseText(batch);
    {
      std::lock_guard lock(mutex_);
      batch.sequence = submitted_++;
      keepBuffer(std::move(batch.bytes));
      parsed_.emplace(batch.sequence, Done{0, std::move(parsed), batch.chunk});
    }
    mergeReady();
    return;
  }
  {
    std::unique_lock lock(mutex_);
    batch_merged_.wait(lock, [&] { return submitted_ - merged_ < max_in_flight_ || error_; });
    if (error_) return;  // what follows the bad event is not wanted
    batch.sequence = submitted_++;
    waiting_.push_back(std::move(batch));
  }
  work_ready_.notify_one();
}

ParsedBatch KinetoParallelParse::parseCatching(KinetoEventParser& parser, const EventBatch& batch) const {
  try {
    return parser.parse(batch);
  } catch (const std::exception& e) {
    // Out of memory, most likely: on a parser thread it would end the process, so it becomes
    // the batch's error, naming where the batch starts.
    ParsedBatch failed;
    if (batch.chunk) {
      // Read again element by element, which reports the failure where it happens.
      failed.error = trace::Error{fmt::format("{}: {} while reading the chunk at byte offset {}", path_, e.what(),
                                              batch.chunk->byte_offset)};
      return failed;
    }
    const EventSpan& first = batch.events.front();
    failed.error = trace::Error{fmt::format("{}: {} while reading traceEvents element #{} at byte offset {} or "
                                            "the {} after it", path_, e.what(), first.index, first.byte_offset,
                                            batch.events.size() - 1)};
    return failed;
  }
}

void KinetoParallelParse::releaseText(const EventBatch& batch) {
  if (!batch.mapped) return;
  if (batch.chunk) {
    batch.mapped->release(batch.text, batch.text + batch.chunk->size);
  } else if (!batch.events.empty()) {
    const EventSpan& last = batch.events.back();
    batch.mapped->release(batch.text, batch.text + last.offset + last.size);
  }
}

void KinetoParallelParse::startParsers() {
  for (std::size_t parser = 0; parser < threads_; ++parser) {
    try {
      threads_running_.emplace_back([this, parser] { parserLoop(parser); });
    } catch (const std::system_error&) {
      break;  // the system has no more threads to give: those started do the work
    }
  }
  // None started: everything is parsed on the calling thread, as with --threads 1.
  parse_here_ = threads_running_.empty();
}

void KinetoParallelParse::parserLoop(std::size_t parser) {
  for (;;) {
    EventBatch batch;
    {
      std::unique_lock lock(mutex_);
      work_ready_.wait(lock, [&] { return stopping_ || !waiting_.empty(); });
      if (waiting_.empty()) return;
      batch = std::move(waiting_.front());
      waiting_.pop_front();
    }
    ParsedBatch parsed = parseCatching(*parsers_[parser], batch);
    releaseText(batch);
    {
      std::lock_guard lock(mutex_);
      keepBuffer(std::move(batch.bytes));
      parsed_.emplace(batch.sequence, Done{parser, std::move(parsed), batch.chunk});
    }
    mergeReady();
  }
}

void KinetoParallelParse::mergeReady() {
  // Waits for the merge lock rather than trying it: a thread that gave up because another was
  // merging could leave its batch unmerged if that other had already looked for it and was done.
  std::lock_guard merging(merging_);
  for (;;) {
    Done done;
    bool drop = false;
    {
      std::lock_guard lock(mutex_);
      if (error_) return;
      auto next = parsed_.find(merged_);
      if (next == parsed_.end()) return;
      done = std::move(next->second);
      parsed_.erase(next);
      // A chunk that is not whole elements from the first proves its guess, or the guess before
      // it, wrong (or holds a bad element): it and the chunks after it are read again one by one.
      if (done.chunk && (guess_failed_ || done.batch.error)) {
        guess_failed_ = true;
        drop = true;
        ++merged_;
      }
    }
    if (drop) {
      batch_merged_.notify_all();
      continue;
    }
    // A batch with a bad event fails the import: its records are not wanted.
    std::optional<trace::Error> error = std::move(done.batch.error);
    if (!error) {
      try {
        merge_.append(std::move(done.batch), done.parser);
      } catch (const std::exception& e) {
        error = trace::Error{fmt::format("{}: {} while keeping the trace's events", path_, e.what())};
      }
    }
    {
      std::lock_guard lock(mutex_);
      ++merged_;
      if (error) error_ = std::move(error);
      else if (done.chunk) guessed_ = ElementsRead{done.chunk->next_start, guessed_.count + done.batch.elements};
    }
    batch_merged_.notify_all();
  }
}

trace::Status KinetoParallelParse::finish() {
  submit(std::exchange(current_, EventBatch{}), true);
  if (!threads_running_.empty()) {
    {
      std::unique_lock lock(mutex_);
      batch_merged_.wait(lock, [&] { return merged_ == submitted_ || error_; });
      stopping_ = true;
      waiting_.clear();
    }
    work_ready_.notify_all();
    for (std::thread& thread : threads_running_) thread.join();
    threads_running_.clear();
  }
  std::lock_guard lock(mutex_);
  if (error_) return *error_;
  return {};
}

}  // namespace ampscope::analyzer::import
