#include "trainer/data/idx_reader.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include <fmt/format.h>

namespace ampscope::trainer {

namespace {

constexpr std::uint32_t kUnsignedByte = 0x08;
constexpr std::uint64_t kMaxElements = 1ULL << 32;  // 4 GiB of bytes: far beyond any IDX dataset

struct GzCloser {
  void operator()(gzFile_s* file) const { gzclose(file); }
};

// gzread reads plain files unchanged, so one path serves both.
class ByteReader {
 public:
  ByteReader(gzFile file, std::string path) : file_(file), path_(std::move(path)) {}

  Status read(void* out, std::size_t bytes, std::string_view what) {
    const int got = gzread(file_.get(), out, static_cast<unsigned>(bytes));
    if (got < 0) {
      int code = 0;
      const char* message = gzerror(file_.get(), &code);
      return Error{fmt::format("{}: read error at byte offset {} ({}): {}", path_, offset_, what, message)};
    }
    if (static_cast<std::size_t>(got) != bytes) {
      return Error{fmt::format("{}: truncated at byte offset {}: expected {} more bytes of {}", path_,
                               offset_ + static_cast<std::uint64_t>(got), bytes - static_cast<std::size_t>(got), what)};
    }
    offset_ += bytes;
    return {};
  }
  std::uint64_t offset() const { return offset_; }

 private:
  std::unique_ptr<gzFile_s, GzCloser> file_;
  std::string path_;
  std::uint64_t offset_ = 0;
};

std::uint32_t bigEndian(const unsigned char* bytes) {
  return (std::uint32_t{bytes[0]} << 24) | (std::uint32_t{bytes[1]} << 16) | (std::uint32_t{bytes[2]} << 8) | bytes[3];
}

}  // namespace

Result<IdxArray> readIdxFile(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) return Error{fmt::format("{}: cannot open: {}", path, std::strerror(errno))};
  ByteReader reader(file, path);
  unsigned char magic[4];
  if (Status s = reader.read(magic, 4, "the magic number"); !s) return s.error();
  if (magic[0] != 0 || magic[1] != 0 || magic[3] == 0 || magic[3] > 4) {
    return Error{fmt::format("{}: byte offset 0: magic {:02x}{:02x}{:02x}{:02x} is not an IDX header "
                             "(expected 00 00 <type> <rank 1-4>)", path, magic[0], magic[1], magic[2], magic[3])};
  }
  if (magic[2] != kUnsignedByte) {
    return Error{fmt::format("{}: byte offset 2: element type 0x{:02x}; expected 0x08 (unsigned byte)", path, magic[2])};
  }
  IdxArray array;
  std::uint64_t elements = 1;
  for (int i = 0; i < magic[3]; ++i) {
    unsigned char bytes[4];
    if (Status s = reader.read(bytes, 4, fmt::format("dimension {}", i)); !s) return s.error();
    array.dims.push_back(bigEndian(bytes));
    elements *= array.dims.back();
    if (elements > kMaxElements) {
      return Error{fmt::format("{}: byte offset {}: dimensions multiply to more than {} elements", path,
                               reader.offset() - 4, kMaxElements)};
    }
  }
  array.data.resize(static_cast<std::size_t>(elements));
  if (Status s = reader.read(array.data.data(), array.data.size(), "the elements"); !s) return s.error();
  unsigned char extra = 0;
  if (gzread(file, &extra, 1) > 0) {
    return Error{fmt::format("{}: byte offset {}: data continues past the {} elements the header gives",
                             path, reader.offset(), elements)};
  }
  return array;
}

}  // namespace ampscope::trainer
