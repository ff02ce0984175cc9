#pragma once
// A single-producer, single-consumer log of NVTX records per thread. The owning thread appends
// with no lock and no system call (a copy and a release store; a system call only when a chunk
// fills and no drained one is waiting); the recorder's writer thread reads what was published and
// hands finished chunks back. Chunks are a linked list, so a burst of ranges never blocks the
// program: memory grows until the next drain.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "collector/nvtx/nvtx_record.h"

namespace ampscope::collector {

class ThreadEventLog {
 public:
  // A chunk with its two header fields is 256 KiB, a whole number of pages.
  static constexpr std::size_t kChunkBytes = 256 * 1024 - 64;
  // Longer texts are cut to this many bytes.
  static constexpr std::size_t kMaxTextBytes = 65535;

  ThreadEventLog(std::int64_t pid, std::int64_t tid);
  ~ThreadEventLog();
  ThreadEventLog(const ThreadEventLog&) = delete;
  ThreadEventLog& operator=(const ThreadEventLog&) = delete;

  // Producer side (the owning thread only). record.domain must be below 65536 (the registry
  // creates no more domains than that).
  void append(const NvtxRecord& record, std::string_view text = {});

  // Consumer side (one reader thread): calls visit(record, text) for every record published
  // since the last call, in the order they were appended, and hands finished chunks back.
  template <typename Visit>
  std::size_t drain(Visit visit);

  // Consumer side: records dropped since the last call because no memory could be had for a
  // fresh chunk (the program is out of memory; it goes on, the records are counted as lost).
  std::uint64_t takeDropped();

  std::int64_t pid() const { return pid_; }
  std::int64_t tid() const { return tid_; }

 private:
  struct Chunk {
    std::atomic<std::size_t> published{0};  // bytes of whole records, release-stored
    std::atomic<Chunk*> next{nullptr};      // set once the producer has moved on
    alignas(64) std::byte data[kChunkBytes];
  };
  static_assert(sizeof(Chunk) == 256 * 1024);
  // A record in the log: a 16-byte header, then only the fields the record uses, 8 bytes each,
  // then its text, padded to 8 bytes. A push of a registered string takes 24 bytes and a pop 16:
  // the program's thread writes, and the writer reads back, as few cache lines as possible.
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
  static constexpr std::uint8_t kHasRegistered = 1, kHasRangeId = 2, kHasCategory = 4;
  static constexpr std::size_t padded(std::size_t bytes) { return (bytes + 7) & ~std::size_t{7}; }
  static std::size_t recordBytes(const NvtxRecord& record, std::size_t text_bytes);
  // Reads the record at `at` into record and text; returns its size in the log.
  static std::size_t decode(const std::byte* at, NvtxRecord& record, std::string_view& text);

  const std::int64_t pid_;
  const std::int64_t tid_;
  Chunk* write_chunk_;        // producer
  std::size_t write_offset_ = 0;
  Chunk* read_chunk_;         // consumer
  std::size_t read_offset_ = 0;
  // Drained chunks go back to the producer: a fresh allocation would fault its pages in on the
  // program's thread, which costs more than the records written into it. The reader pushes onto
  // a shared stack; the producer takes the whole stack at once (so no ABA) into a private list.
  static constexpr int kMaxSpareChunks = 32;  // 8 MiB per thread at most
  std::atomic<Chunk*> returned_{nullptr};
  std::atomic<int> returned_count_{0};
  Chunk* spare_ = nullptr;  // producer's private list, linked through `next`
  void recycle(Chunk* chunk);
  Chunk* freshChunk();
  static Chunk* allocateChunk();  // nullptr when out of memory
  static Chunk* firstChunk();     // throws std::bad_alloc when out of memory
  static void freeChunk(Chunk* chunk);
  // Links a fresh chunk after the full one (the rare, out-of-line part of append); false, with
  // the record counted as dropped, when there is no memory for one.
  bool startNextChunk();
  // Publishes the full chunk for good and writes on into fresh.
  void linkNextChunk(Chunk* fresh);
  // Out of the hot path: after a drop, the next record goes into a fresh chunk behind a kGap
  // record, or is dropped too. A record that still fitted the full chunk's tail must not follow
  // a dropped one, or a pop would close the wrong push.
  void appendAfterGap(const NvtxRecord& record, std::string_view text);
  void write(const NvtxRecord& record, std::string_view text, std::size_t bytes);
  std::atomic<std::uint64_t> dropped_{0};  // producer adds, consumer reads
  std::uint64_t dropped_reported_ = 0;    // consumer
  bool gap_open_ = false;                 // producer
};

// append and recordBytes are inline: they are the whole of the tool's work on the program's
// thread besides the clock read, and a call per record would cost as much as the copy.
inline std::size_t ThreadEventLog::recordBytes(const NvtxRecord& record, std::size_t text_bytes) {
  std::size_t bytes = sizeof(PackedHeader) + text_bytes;
  if (record.registered != nullptr) bytes += 8;
  if (record.range_id != 0) bytes += 8;
  if (record.payload_type != NvtxPayloadType::kNone) bytes += 8;
  if (record.category != 0) bytes += 8;
  return padded(bytes);
}

inline void ThreadEventLog::append(const NvtxRecord& record, std::string_view text) {
  text = text.substr(0, kMaxTextBytes);
  if (gap_open_) [[unlikely]] {
    appendAfterGap(record, text);
    return;
  }
  const std::size_t bytes = recordBytes(record, text.size());
  if (write_offset_ + bytes > kChunkBytes) [[unlikely]] {
    if (!startNextChunk()) return;
  }
  write(record, text, bytes);
}

inline void ThreadEventLog::write(const NvtxRecord& record, std::string_view text, std::size_t bytes) {
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

template <typename Visit>
std::size_t ThreadEventLog::drain(Visit visit) {
  std::size_t count = 0;
  while (true) {
    // Reading `next` first: once it is set the producer has published this chunk for good.
    Chunk* next = read_chunk_->next.load(std::memory_order_acquire);
    const std::size_t published = read_chunk_->published.load(std::memory_order_acquire);
    while (read_offset_ < published) {
      NvtxRecord record;
      std::string_view text;
      read_offset_ += decode(read_chunk_->data + read_offset_, record, text);
      visit(record, text);
      ++count;
    }
    if (next == nullptr) return count;
    recycle(read_chunk_);
    read_chunk_ = next;
    read_offset_ = 0;
  }
}

}  // namespace ampscope::collector
