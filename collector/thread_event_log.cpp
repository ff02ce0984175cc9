#include "collector/thread_event_log.h"

#include <algorithm>
#include <cstring>

namespace ampscope::collector {

ThreadEventLog::ThreadEventLog(std::int64_t pid, std::int64_t tid)
    : pid_(pid), tid_(tid), write_chunk_(new Chunk), read_chunk_(write_chunk_) {}

void ThreadEventLog::recycle(Chunk* chunk) {
  if (returned_count_.load(std::memory_order_relaxed) >= kMaxSpareChunks) {
    delete chunk;
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
  if (spare_ == nullptr) return new Chunk;
  Chunk* chunk = spare_;
  spare_ = chunk->next.load(std::memory_order_relaxed);
  chunk->next.store(nullptr, std::memory_order_relaxed);
  return chunk;
}

ThreadEventLog::~ThreadEventLog() {
  for (Chunk* list : {spare_, returned_.load()}) {
    while (list != nullptr) {
      Chunk* next = list->next.load(std::memory_order_relaxed);
      delete list;
      list = next;
    }
  }
  Chunk* chunk = read_chunk_;
  while (chunk != nullptr) {
    Chunk* next = chunk->next.load(std::memory_order_relaxed);
    delete chunk;
    chunk = next;
  }
}

std::size_t ThreadEventLog::recordBytes(std::size_t text_bytes) {
  // Records start 8-byte aligned so the header can be copied out in one piece.
  return (sizeof(NvtxRecord) + text_bytes + 7) & ~std::size_t{7};
}

void ThreadEventLog::append(const NvtxRecord& record, std::string_view text) {
  text = text.substr(0, kChunkBytes - sizeof(NvtxRecord));
  const std::size_t bytes = recordBytes(text.size());
  if (write_offset_ + bytes > kChunkBytes) {
    // The chunk is full and already published up to write_offset_; link a fresh one.
    Chunk* fresh = freshChunk();
    write_chunk_->next.store(fresh, std::memory_order_release);
    write_chunk_ = fresh;
    write_offset_ = 0;
  }
  std::byte* at = write_chunk_->data + write_offset_;
  std::memcpy(at, &record, sizeof(NvtxRecord));
  reinterpret_cast<NvtxRecord*>(at)->text_bytes = static_cast<std::uint32_t>(text.size());
  if (!text.empty()) std::memcpy(at + sizeof(NvtxRecord), text.data(), text.size());
  write_offset_ += bytes;
  write_chunk_->published.store(write_offset_, std::memory_order_release);
}

}  // namespace ampscope::collector
