#pragma once
// Reads a file as a stream of bytes, inflating gzip on the fly, so that multi-GB traces are never
// held in memory whole. Corruption and truncation come back as errors with the byte offset.
// Gzip is inflated on a thread of its own, a few blocks ahead of the reader: inflating and
// parsing then run on two cores instead of taking turns on one. A plain file is also mapped into
// memory where the system allows, so that a parser can read it in place (mapping()).

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "analyzer/import/mapped_file.h"
#include "trace/result.h"

struct z_stream_s;

namespace ampscope::analyzer::import {

using trace::Error;
using trace::Result;

class ByteSource {
 public:
  // How a plain file's bytes are reached: mapped into memory where the system allows (the
  // default), or only through read() (which tests use to exercise the reading paths).
  enum class PlainFileAccess { kMapWhereAllowed, kReadOnly };
  // Opens path; gzip content (by its magic bytes, not the file name) is inflated.
  static Result<std::unique_ptr<ByteSource>> open(const std::string& path,
                                                  PlainFileAccess access = PlainFileAccess::kMapWhereAllowed);
  ~ByteSource();
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  // Reads up to capacity bytes into out; 0 means the end. Errors name the compressed offset.
  Result<std::size_t> read(char* out, std::size_t capacity);

  bool compressed() const { return stream_ != nullptr; }
  // The plain file mapped into memory, or null (gzip, an empty file, or mapping refused): then
  // read() is the way to its bytes. Reading the mapping does not advance read().
  const MappedFile* mapping() const { return mapping_.get(); }
  // An error where the file changed under the reader: the mapping lost pages (MappedFile::lostFrom:
  // the file shrank, or its storage failed), or the file's size is no longer what it was when
  // opened (a program writing it anew). What was read is then not one file's, whatever the parse
  // made of it: a reader asks once it is done, before it reports anything else.
  trace::Status unchangedWhileRead() const;
  std::uint64_t fileBytes() const { return file_bytes_; }
  // Bytes of the file consumed so far: the basis for progress (for gzip, the compressed bytes
  // behind what read() has handed out, not what the inflating thread has read ahead).
  std::uint64_t fileBytesRead() const { return stream_ ? handed_out_offset_ : file_offset_; }
  const std::string& path() const { return path_; }

 private:
  ByteSource(std::FILE* file, std::string path, std::uint64_t file_bytes, bool gzip, PlainFileAccess access);
  Result<std::size_t> readRaw(char* out, std::size_t capacity);
  Result<std::size_t> inflateInto(char* out, std::size_t capacity);

  // Inflated bytes made ahead by the inflating thread, in order.
  struct Block {
    std::vector<char> bytes;
    std::uint64_t file_offset = 0;  // compressed bytes read once this block was made
    std::optional<Error> error;     // inflating failed here: the reader's next read returns it
    bool end = false;               // the stream ended cleanly: no more blocks
  };
  void inflateAhead();  // the inflating thread
  Result<std::size_t> readInflated(char* out, std::size_t capacity);

  std::FILE* file_ = nullptr;
  std::string path_;
  std::uint64_t file_bytes_ = 0;
  std::uint64_t file_offset_ = 0;
  std::unique_ptr<z_stream_s> stream_;
  std::unique_ptr<MappedFile> mapping_;
  std::vector<unsigned char> input_;  // compressed bytes awaiting inflate
  bool stream_ended_ = false;         // the current gzip member ended cleanly
  bool input_exhausted_ = false;

  // The inflating thread's side (file_, stream_, input_ and file_offset_ are its alone once it runs).
  std::thread inflater_;
  std::mutex mutex_;
  std::condition_variable block_ready_;
  std::condition_variable block_taken_;
  std::deque<Block> ahead_;  // at most kBlocksAhead
  bool stopping_ = false;
  // The reader's side.
  Block current_;
  std::size_t current_position_ = 0;
  std::uint64_t handed_out_offset_ = 0;
};

}  // namespace ampscope::analyzer::import
