#pragma once
// Small IDX files for the data tests: the bytes of an unsigned-byte IDX array, and a gzip writer.

#include <zlib.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ampscope::test {

inline std::string idxBytes(const std::vector<std::uint32_t>& dims, const std::vector<std::uint8_t>& data) {
  std::string out = {0, 0, 0x08, static_cast<char>(dims.size())};
  for (std::uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((d >> shift) & 0xff));
  }
  out.append(data.begin(), data.end());
  return out;
}

inline void writeGzip(const std::string& path, const std::string& bytes) {
  gzFile gz = gzopen(path.c_str(), "wb");
  gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(gz);
}

}  // namespace ampscope::test
