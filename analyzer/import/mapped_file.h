#pragma once
// A plain file mapped into memory read-only, followed by at least kPadding zero bytes, so that
// a parser can read the file's text in place (no copy into a buffer) and simdjson may read past
// the end of the last value. Pages that have been parsed can be given back (release) so that the
// process's resident memory stays at what is being worked on, not the whole file.
//
// Where another program shrinks the file while it is mapped (a profiler writing its trace again,
// say), reading the lost pages raises SIGBUS, which would end the process: the command, the GUI
// and a Python session alike. The first mapping installs a SIGBUS handler that puts zero pages in
// place of the lost ones, from the faulting page to the mapping's end, and notes where: the read
// goes on over zeros, and the reader asks lostFrom() once done and reports the file as unreadable
// instead of what it parsed. A SIGBUS at any other address goes to the handler installed before.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
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

  // Where the file's pages were lost while mapped (it shrank, or its storage failed): the byte
  // offset from which the mapping reads zeros instead of the file, the start of the lowest page
  // whose read raised SIGBUS. Nothing while every page read was the file's own.
  std::optional<std::uint64_t> lostFrom() const;

 private:
  MappedFile(const char* data, std::size_t size, std::size_t mapped);
  const char* data_;
  std::size_t size_;
  std::size_t mapped_;  // the reservation's length: size_ and the padding, in whole pages
  int slot_;            // its watch in LostPageGuard; -1: every slot was taken
};

}  // namespace ampscope::analyzer::import
