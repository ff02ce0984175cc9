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

namespace {

// A record in the log: a 16-byte header, then only the fields the record uses, 8 bytes each, then
// its text, padded to 8 bytes. A push of a registered string takes 24 bytes and a pop 16: the
// program's thread writes, and the writer reads back, as few cache lines as possible.
struct PackedHeader {
  std::uint64_t clock_ticks;
  NvtxRecordKind kind;
  NvtxPayloadType payload_type;
  std::uint8_t fields;  // kHas* bits
  std::uint8_t reserved;
  std::uint16_t domain;
  std::uint16_t text_bytes;
};
static_assert(sizeof(PackedHeader) == 16);
constexpr std::uint8_t kHasRegistered = 1, kHasRangeId = 2, kHasCategory = 4;

std::size_t padded(std::size_t bytes) { return (bytes + 7) & ~std::size_t{7}; }

}  // namespace

std::size_t ThreadEventLog::recordBytes(const NvtxRecord& record, std::size_t text_bytes) {
  std::size_t bytes = sizeof(PackedHeader) + text_bytes;
  if (record.registered != nullptr) bytes += 8;
  if (record.range_id != 0) bytes += 8;
  if (record.payload_type != NvtxPayloadType::kNone) bytes += 8;
  if (record.category != 0) bytes += 8;
  return padded(bytes);
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

void ThreadEventLog::append(const NvtxRecord& record, std::string_view text) {
  text = text.substr(0, kMaxTextBytes);
  const std::size_t bytes = recordBytes(record, text.size());
  if (write_offset_ + bytes > kChunkBytes) {
    // The chunk is full and already published up to write_offset_; link a fresh one.
    Chunk* fresh = freshChunk();
    write_chunk_->next.store(fresh, std::memory_order_release);
    write_chunk_ = fresh;
    write_offset_ = 0;
  }
  std::byte* at = write_chunk_->data + write_offset_;
  const PackedHeader header{record.clock_ticks,
                            record.kind,
                            record.payload_type,
                            static_cast<std::uint8_t>((record.registered != nullptr ? kHasRegistered : 0) |
                                                      (record.range_id != 0 ? kHasRangeId : 0) |
                                                      (record.category != 0 ? kHasCategory : 0)),
                            0,
                            static_cast<std::uint16_t>(record.domain),
                            static_cast<std::uint16_t>(text.size())};
  std::memcpy(at, &header, sizeof(header));
  std::byte* field = at + sizeof(header);
  const auto put = [&field](const auto& value) {
    std::memcpy(field, &value, sizeof(value));
    field += 8;
  };
  if (record.registered != nullptr) put(record.registered);
  if (record.range_id != 0) put(record.range_id);
  if (record.payload_type != NvtxPayloadType::kNone) put(record.payload_bits);
  if (record.category != 0) put(record.category);
  if (!text.empty()) std::memcpy(field, text.data(), text.size());
  write_offset_ += bytes;
  write_chunk_->published.store(write_offset_, std::memory_order_release);
}

}  // namespace ampscope::collector
