#include "analyzer/import/mapped_file.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "analyzer/import/lost_page_guard.h"

namespace ampscope::analyzer::import {

namespace {
std::size_t pageSize() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }
}  // namespace

MappedFile::MappedFile(const char* data, std::size_t size, std::size_t mapped)
    : data_(data), size_(size), mapped_(mapped), slot_(LostPageGuard::watch(data_, mapped_)) {}

std::optional<std::uint64_t> MappedFile::lostFrom() const { return LostPageGuard::lostFrom(slot_); }

trace::Result<std::unique_ptr<MappedFile>> MappedFile::map(int fd, std::size_t bytes, const std::string& path) {
  if (bytes == 0) return trace::Error{fmt::format("{}: an empty file is not mapped", path)};
  const std::size_t page = pageSize();
  const std::size_t mapped = (bytes + kPadding + page - 1) / page * page;
  // Zero pages first, then the file over their start: past the file's last page the padding is
  // these zero pages, and within it the kernel fills the rest of the page with zeros.
  void* reserved = mmap(nullptr, mapped, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (reserved == MAP_FAILED) return trace::Error{fmt::format("{}: cannot map: {}", path, std::strerror(errno))};
  void* file = mmap(reserved, bytes, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
  if (file == MAP_FAILED) {
    const int error = errno;
    munmap(reserved, mapped);
    return trace::Error{fmt::format("{}: cannot map: {}", path, std::strerror(error))};
  }
  madvise(file, bytes, MADV_SEQUENTIAL);
  return std::unique_ptr<MappedFile>(new MappedFile(static_cast<const char*>(file), bytes, mapped));
}

MappedFile::~MappedFile() {
  LostPageGuard::unwatch(slot_);
  munmap(const_cast<char*>(data_), mapped_);
}

void MappedFile::release(const char* from, const char* to) const {
  const std::size_t page = pageSize();
  const auto first = (reinterpret_cast<std::uintptr_t>(from) + page - 1) / page * page;
  const auto last = reinterpret_cast<std::uintptr_t>(to) / page * page;
  if (last <= first) return;
  madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

}  // namespace ampscope::analyzer::import
