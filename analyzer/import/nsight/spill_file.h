#pragma once
// A temporary file that holds bytes the import wants back later, so that they need not stay in
// memory meanwhile: an Nsight Systems export of several processes is read in one pass, and the
// rows of the processes whose turn has not come wait here (nsys_importer.cpp). Reading the file
// once, not once per process, is what this buys; the rows' bytes pass through the page cache
// once more instead. The file is made in $TMPDIR (else /tmp) and unlinked at once, so nothing is
// left behind, even after a crash. Several threads may write and read at once.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "trace/result.h"

namespace ampscope::analyzer::import {

class SpillFile {
 public:
  // Where write put some bytes.
  struct Extent {
    std::uint64_t offset = 0;
    std::uint64_t bytes = 0;
  };

  // nullptr where no temporary file can be made: the caller keeps its data in memory.
  static std::unique_ptr<SpillFile> make();
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // Appends `bytes` bytes; false where they could not all be written (a full disk, above all), in
  // which case the caller keeps them.
  bool write(const void* data, std::size_t bytes, Extent& at);
  // Reads back what write put at `at` into `into` (at.bytes of room); an error naming the
  // temporary directory where it cannot.
  trace::Status read(const Extent& at, void* into) const;
  // All the bytes written so far.
  std::uint64_t size() const { return end_.load(); }

 private:
  SpillFile(int fd, std::string directory) : fd_(fd), directory_(std::move(directory)) {}
  int fd_;
  std::string directory_;
  std::atomic<std::uint64_t> end_{0};
};

}  // namespace ampscope::analyzer::import
