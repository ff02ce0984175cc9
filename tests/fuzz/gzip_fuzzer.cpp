// The gzip layer (byte_source.cpp): gzip magic, inflate, concatenated members, truncation and
// corruption. Reads the whole stream in small chunks, as the JSON reader does.

#include <array>
#include <cstddef>
#include <cstdint>

#include "analyzer/import/byte_source.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using ampscope::analyzer::import::ByteSource;
  static ampscope::fuzz::ScratchFile scratch(".json.gz");
  auto source = ByteSource::open(scratch.write(data, size));
  if (!source) return 0;
  // An odd chunk size, so that reads end mid-member and mid-window.
  std::array<char, 4093> chunk{};
  std::uint64_t total = 0;
  while (true) {
    auto got = (*source)->read(chunk.data(), chunk.size());
    if (!got || *got == 0) break;
    if (*got > chunk.size()) ampscope::fuzz::ScratchFile::fail("read returned more than the buffer holds");
    total += *got;
  }
  if ((*source)->fileBytesRead() > (*source)->fileBytes()) {
    ampscope::fuzz::ScratchFile::fail("more bytes consumed than the file has");
  }
  (void)total;
  return 0;
}
