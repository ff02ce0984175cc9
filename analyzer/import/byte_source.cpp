#include "analyzer/import/byte_source.h"

#include <zlib.h>

#include <sys/stat.h>

#include <cstdio>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace ampscope::analyzer::import {

namespace {
constexpr std::size_t kInputBlock = 1 << 20;
// Inflated blocks: 4 MiB each, at most 4 ahead of the reader (16 MiB, whatever the trace's size).
constexpr std::size_t kInflatedBlock = 4 << 20;
constexpr std::size_t kBlocksAhead = 4;
}

Result<std::unique_ptr<ByteSource>> ByteSource::open(const std::string& path, PlainFileAccess access) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) return Error{fmt::format("{}: cannot open: {}", path, std::strerror(errno))};
  std::fseek(file, 0, SEEK_END);
  const long size = std::ftell(file);
  std::fseek(file, 0, SEEK_SET);
  unsigned char magic[2] = {0, 0};
  const std::size_t got = std::fread(magic, 1, 2, file);
  std::fseek(file, 0, SEEK_SET);
  const bool gzip = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  return std::unique_ptr<ByteSource>(
      new ByteSource(file, path, size < 0 ? 0 : static_cast<std::uint64_t>(size), gzip, access));
}

ByteSource::ByteSource(std::FILE* file, std::string path, std::uint64_t file_bytes, bool gzip,
                       PlainFileAccess access)
    : file_(file), path_(std::move(path)), file_bytes_(file_bytes) {
  if (gzip) {
    stream_ = std::make_unique<z_stream_s>();
    std::memset(stream_.get(), 0, sizeof(z_stream_s));
    // 15 + 16: a gzip wrapper, the largest window.
    inflateInit2(stream_.get(), 15 + 16);
    input_.resize(kInputBlock);
    inflater_ = std::thread([this] { inflateAhead(); });
  } else if (access == PlainFileAccess::kMapWhereAllowed) {
    if (auto mapped = MappedFile::map(fileno(file), file_bytes, path_)) mapping_ = std::move(mapped).value();
  }
}

ByteSource::~ByteSource() {
  if (inflater_.joinable()) {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    block_taken_.notify_all();
    inflater_.join();
  }
  if (stream_) inflateEnd(stream_.get());
  if (file_) std::fclose(file_);
}

trace::Status ByteSource::unchangedWhileRead() const {
  const std::optional<std::uint64_t> lost = mapping_ ? mapping_->lostFrom() : std::nullopt;
  if (lost) {
    return Error{fmt::format("{}: the file shrank, or its storage failed, while it was being read: its bytes from "
                             "offset {} on could no longer be read; read it again once nothing is writing it",
                             path_, *lost)};
  }
  // A file appended to, or written anew, while it was read; and a shrink that raised no SIGBUS
  // (pages past the new end left mapped, as the tail of a large folio can be, read zeros): the
  // size tells.
  struct stat now {};
  if (file_ != nullptr && fstat(fileno(file_), &now) == 0 && static_cast<std::uint64_t>(now.st_size) != file_bytes_) {
    return Error{fmt::format("{}: the file changed while it was being read (its size went from {} to {} bytes); "
                             "read it again once nothing is writing it",
                             path_, file_bytes_, now.st_size)};
  }
  return {};
}

Result<std::size_t> ByteSource::read(char* out, std::size_t capacity) {
  return stream_ ? readInflated(out, capacity) : readRaw(out, capacity);
}

void ByteSource::inflateAhead() {
  for (;;) {
    Block block;
    try {
      block.bytes.resize(kInflatedBlock);
      auto got = inflateInto(block.bytes.data(), block.bytes.size());
      if (got) {
        block.bytes.resize(*got);
        block.end = *got == 0;
      } else {
        block.error = got.error();
        block.bytes.clear();
      }
    } catch (const std::bad_alloc&) {
      block.bytes.clear();
      block.error = Error{fmt::format("{}: out of memory while inflating at compressed byte offset {}", path_,
                                      file_offset_)};
    }
    block.file_offset = file_offset_;
    const bool last = block.end || block.error.has_value();
    {
      std::unique_lock lock(mutex_);
      block_taken_.wait(lock, [&] { return stopping_ || ahead_.size() < kBlocksAhead; });
      if (stopping_) return;
      ahead_.push_back(std::move(block));
    }
    block_ready_.notify_one();
    if (last) return;
  }
}

Result<std::size_t> ByteSource::readInflated(char* out, std::size_t capacity) {
  std::size_t copied = 0;
  while (copied < capacity) {
    if (current_position_ == current_.bytes.size()) {
      if (current_.end || current_.error) break;
      {
        std::unique_lock lock(mutex_);
        block_ready_.wait(lock, [&] { return !ahead_.empty(); });
        current_ = std::move(ahead_.front());
        ahead_.pop_front();
      }
      block_taken_.notify_one();
      current_position_ = 0;
      handed_out_offset_ = current_.file_offset;
      // An error is returned where it happened, as when inflating on the reader's thread.
      if (current_.error) return *current_.error;
      if (current_.end) break;
    }
    const std::size_t n = std::min(capacity - copied, current_.bytes.size() - current_position_);
    std::memcpy(out + copied, current_.bytes.data() + current_position_, n);
    copied += n;
    current_position_ += n;
  }
  if (copied == 0 && current_.error) return *current_.error;
  return copied;
}

Result<std::size_t> ByteSource::readRaw(char* out, std::size_t capacity) {
  const std::size_t got = std::fread(out, 1, capacity, file_);
  if (got == 0 && std::ferror(file_)) {
    return Error{fmt::format("{}: read error at byte offset {}: {}", path_, file_offset_,
                             std::strerror(errno))};
  }
  file_offset_ += got;
  return got;
}

Result<std::size_t> ByteSource::inflateInto(char* out, std::size_t capacity) {
  z_stream_s& z = *stream_;
  z.next_out = reinterpret_cast<Bytef*>(out);
  z.avail_out = static_cast<uInt>(capacity);
  while (z.avail_out > 0) {
    if (z.avail_in == 0 && !input_exhausted_) {
      const std::size_t got = std::fread(input_.data(), 1, input_.size(), file_);
      if (got == 0 && std::ferror(file_)) {
        return Error{fmt::format("{}: read error at byte offset {}: {}", path_, file_offset_,
                                 std::strerror(errno))};
      }
      file_offset_ += got;
      input_exhausted_ = got == 0;
      z.next_in = input_.data();
      z.avail_in = static_cast<uInt>(got);
    }
    if (z.avail_in == 0 && input_exhausted_) {
      if (!stream_ended_) {
        return Error{fmt::format("{}: truncated gzip stream: the compressed data ends at byte "
                                 "offset {} before the end of the stream", path_, file_offset_)};
      }
      break;
    }
    if (stream_ended_) {
      // Another gzip member follows (concatenated .gz files are valid gzip).
      inflateReset(&z);
      stream_ended_ = false;
    }
    const int rc = inflate(&z, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      stream_ended_ = true;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      const std::uint64_t at = file_offset_ - z.avail_in;
      return Error{fmt::format("{}: corrupt gzip data at compressed byte offset {}: {}", path_, at,
                               z.msg ? z.msg : zError(rc))};
    }
  }
  return capacity - z.avail_out;
}

}  // namespace ampscope::analyzer::import
