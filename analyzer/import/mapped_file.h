#pragma once
// A plain file mapped into memory read-only, followed by at least kPadding zero bytes, so that
// a parser can read the file's text in place (no copy into a buffer) and simdjson may read past
// the end of the last value. Pages that have been parsed can be given back (release) so that the
// process's resident memory stays at what is being worked on, not the whole file.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "trace/result.h"

namespace ampscope::analyzer::import {

class MappedFile {
 public:
  static constexpr std::size_t kPadding = 64;

  // Maps the open file descriptor fd of `bytes` bytes. An error when the system will not map it
  // (the caller then reads the file instead); an empty file is not mapped.
  static trace::Result<std::unique_ptr<MappedFile>> map(int fd, std::size_t bytes, const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const char* data() const { return data_; }
  std::size_t size() const { return size_; }
  // Drops the whole pages inside [from, to) from the process's memory; reading them again reads
  // the file again. For bytes that will not be read again soon.
  void release(const char* from, const char* to) const;

  // Which mapped file holds `address`, and at which byte offset: where another program shrinks
  // a file while it is mapped, reading its lost pages raises SIGBUS, and a handler can name the
  // file with this. Async-signal-safe (it reads a fixed table of atomics); false when no file
  // mapped now holds the address.
  static bool fileAt(const void* address, const char*& path, std::uint64_t& offset);

 private:
  MappedFile(const char* data, std::size_t size, std::size_t mapped, std::string path);
  const char* data_;
  std::size_t size_;
  std::size_t mapped_;  // the reservation's length: size_ and the padding, in whole pages
  std::string path_;
  int slot_ = -1;       // this file's place in the table fileAt() reads; -1: the table was full
};

}  // namespace ampscope::analyzer::import
