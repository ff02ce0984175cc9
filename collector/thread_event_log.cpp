#include "collector/thread_event_log.h"

#include <algorithm>
#include <cstring>
#include <new>

#include <sys/mman.h>

namespace ampscope::collector {

ThreadEventLog::Chunk* ThreadEventLog::allocateChunk() {
  // Mapped with its pages populated in one system call: a chunk filled in by a burst of ranges
  // would otherwise take one page fault per 4 KiB on the program's thread.
  void* memory = mmap(nullptr, sizeof(Chunk), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (memory == MAP_FAILED) return nullptr;
  return new (memory) Chunk;
}

void ThreadEventLog::freeChunk(Chunk* chunk) {
  chunk->~Chunk();
  munmap(chunk, sizeof(Chunk));
}

ThreadEventLog::Chunk* ThreadEventLog::firstChunk() {
  Chunk* chunk = allocateChunk();
  if (chunk == nullptr) throw std::bad_alloc();  // as the log's own allocation would
  return chunk;
}

ThreadEventLog::ThreadEventLog(std::int64_t pid, std::int64_t tid)
    : pid_(pid), tid_(tid), write_chunk_(firstChunk()), read_chunk_(write_chunk_) {}

void ThreadEventLog::recycle(Chunk* chunk) {
  if (returned_count_.load(std::memory_order_relaxed) >= kMaxSpareChunks) {
    freeChunk(chunk);
    return;
  }
  chunk->published.store(0, std::memory_order_relaxed);
  Chunk* head = returned_.load(std::memory_order_relaxed);
  do {
    chunk->next.store(head, std::memory_order_relaxed);
  } while (!returned_.compare_exchange_weak(head, chunk, std::memory_order_release, std::memory_order_relaxed));
  returned_count_.fetch_add(1, std::memory_order_relaxed);
}

ThreadEventLog::Chunk* ThreadEventLog::freshChunk() {
  if (spare_ == nullptr) {
    spare_ = returned_.exchange(nullptr, std::memory_order_acquire);
    int taken = 0;
    for (Chunk* c = spare_; c != nullptr; c = c->next.load(std::memory_order_relaxed)) ++taken;
    returned_count_.fetch_sub(taken, std::memory_order_relaxed);
  }
  if (spare_ == nullptr) return allocateChunk();  // nullptr when out of memory
  Chunk* chunk = spare_;
  spare_ = chunk->next.load(std::memory_order_relaxed);
  chunk->next.store(nullptr, std::memory_order_relaxed);
  return chunk;
}

ThreadEventLog::~ThreadEventLog() {
  for (Chunk* list : {spare_, returned_.load()}) {
    while (list != nullptr) {
      Chunk* next = list->next.load(std::memory_order_relaxed);
      freeChunk(list);
      list = next;
    }
  }
  Chunk* chunk = read_chunk_;
  while (chunk != nullptr) {
    Chunk* next = chunk->next.load(std::memory_order_relaxed);
    freeChunk(chunk);
    chunk = next;
  }
}

std::size_t ThreadEventLog::decode(const std::byte* at, NvtxRecord& record, std::string_view& text) {
  PackedHeader header;
  std::memcpy(&header, at, sizeof(header));
  record = NvtxRecord{};
  record.clock_ticks = header.clock_ticks;
  record.kind = header.kind;
  record.payload_type = header.payload_type;
  record.domain = header.domain;
  record.text_bytes = header.text_bytes;
  const std::byte* field = at + sizeof(header);
  const auto take = [&field](auto& out) {
    std::memcpy(&out, field, sizeof(out));
    field += 8;
  };
  if ((header.fields & kHasRegistered) != 0) take(record.registered);
  if ((header.fields & kHasRangeId) != 0) take(record.range_id);
  if (header.payload_type != NvtxPayloadType::kNone) take(record.payload_bits);
  if ((header.fields & kHasCategory) != 0) take(record.category);
  text = std::string_view(reinterpret_cast<const char*>(field), header.text_bytes);
  return padded(static_cast<std::size_t>(field - at) + header.text_bytes);
}

bool ThreadEventLog::startNextChunk() {
  // The chunk is full and already published up to write_offset_; link a fresh one.
  Chunk* fresh = freshChunk();
  if (fresh == nullptr) {
    // Out of memory: the record is dropped and counted, the program goes on.
    dropped_.fetch_add(1, std::memory_order_relaxed);
    gap_open_ = true;
    return false;
  }
  linkNextChunk(fresh);
  return true;
}

void ThreadEventLog::linkNextChunk(Chunk* fresh) {
  write_chunk_->next.store(fresh, std::memory_order_release);
  write_chunk_ = fresh;
  write_offset_ = 0;
}

void ThreadEventLog::appendAfterGap(const NvtxRecord& record, std::string_view text) {
  NvtxRecord gap;
  gap.clock_ticks = record.clock_ticks;
  gap.kind = NvtxRecordKind::kGap;
  const std::size_t gap_bytes = recordBytes(gap, 0);
  const std::size_t bytes = recordBytes(record, text.size());
  // The gap marker and the record go into a fresh chunk together (both fit: texts are cut to
  // kMaxTextBytes), never into the old one's tail.
  Chunk* fresh = freshChunk();
  if (fresh == nullptr) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  linkNextChunk(fresh);
  gap_open_ = false;
  write(gap, {}, gap_bytes);
  write(record, text, bytes);
}

std::uint64_t ThreadEventLog::takeDropped() {
  const std::uint64_t dropped = dropped_.load(std::memory_order_relaxed);
  const std::uint64_t fresh = dropped - dropped_reported_;
  dropped_reported_ = dropped;
  return fresh;
}

}  // namespace ampscope::collector
