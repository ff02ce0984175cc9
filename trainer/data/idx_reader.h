#pragma once
// Reads IDX files (the MNIST / Fashion-MNIST format), plain or gzip-compressed: a magic number
// naming the element type and rank, big-endian dimensions, then the elements. Debian's
// dataset-fashion-mnist package installs them under /usr/share/datasets/fashion-mnist/.

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace ampscope::trainer {

struct IdxArray {
  std::vector<std::uint32_t> dims;  // e.g. {60000, 28, 28} for images, {60000} for labels
  std::vector<std::uint8_t> data;   // unsigned bytes (type 0x08), row-major

  std::size_t count() const { return dims.empty() ? 0 : dims[0]; }
};

// Only unsigned-byte IDX files (the only type the datasets use) are accepted; anything else,
// a truncated file or a wrong magic number, is an error naming the file and the byte offset.
Result<IdxArray> readIdxFile(const std::string& path);

// Where Debian's dataset-fashion-mnist package puts the files.
inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

}  // namespace ampscope::trainer
