#include "collector/thread_event_log.h"

#include <algorithm>
#include <cstring>

namespace ampscope::collector {

ThreadEventLog::ThreadEventLog(std::int64_t pid, std::int64_t tid)
    : pid_(pid), tid_(tid), write_chunk_(new Chunk), read_chunk_(write_chunk_) {}

ThreadEventLog::~ThreadEventLog() {
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
    Chunk* fresh = new Chunk;
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
