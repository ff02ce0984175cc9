#pragma once
// Reads a file as a stream of bytes, inflating gzip on the fly, so that multi-GB traces are never
// held in memory whole. Corruption and truncation come back as errors with the byte offset.

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "trace/result.h"

struct z_stream_s;

namespace ampscope::analyzer::import {

using trace::Error;
using trace::Result;

class ByteSource {
 public:
  // Opens path; gzip content (by its magic bytes, not the file name) is inflated.
  static Result<std::unique_ptr<ByteSource>> open(const std::string& path);
  ~ByteSource();
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  // Reads up to capacity bytes into out; 0 means the end. Errors name the compressed offset.
  Result<std::size_t> read(char* out, std::size_t capacity);

  bool compressed() const { return stream_ != nullptr; }
  std::uint64_t fileBytes() const { return file_bytes_; }
  // Bytes of the file consumed so far: the basis for progress.
  std::uint64_t fileBytesRead() const { return file_offset_; }
  const std::string& path() const { return path_; }

 private:
  ByteSource(std::FILE* file, std::string path, std::uint64_t file_bytes, bool gzip);
  Result<std::size_t> readRaw(char* out, std::size_t capacity);
  Result<std::size_t> inflateInto(char* out, std::size_t capacity);

  std::FILE* file_ = nullptr;
  std::string path_;
  std::uint64_t file_bytes_ = 0;
  std::uint64_t file_offset_ = 0;
  std::unique_ptr<z_stream_s> stream_;
  std::vector<unsigned char> input_;  // compressed bytes awaiting inflate
  bool stream_ended_ = false;         // the current gzip member ended cleanly
  bool input_exhausted_ = false;
};

}  // namespace ampscope::analyzer::import
