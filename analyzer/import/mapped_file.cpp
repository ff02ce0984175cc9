#include "analyzer/import/mapped_file.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

namespace ampscope::analyzer::import {

namespace {
std::size_t pageSize() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }

// The files mapped now, for fileAt(): a fixed table, so that a signal handler can read it. A
// slot is claimed (taken), filled, and published by setting its start last; it is given back
// by clearing its start first.
struct MappedSlot {
  std::atomic<bool> taken{false};
  std::atomic<const char*> start{nullptr};
  std::atomic<std::size_t> bytes{0};
  std::atomic<const char*> path{nullptr};
};
constexpr int kMappedSlots = 64;
MappedSlot g_mapped[kMappedSlots];

int takeSlot(const char* start, std::size_t bytes, const char* path) {
  for (int i = 0; i < kMappedSlots; ++i) {
    MappedSlot& slot = g_mapped[i];
    if (slot.taken.exchange(true, std::memory_order_acquire)) continue;
    slot.bytes.store(bytes, std::memory_order_relaxed);
    slot.path.store(path, std::memory_order_relaxed);
    slot.start.store(start, std::memory_order_release);
    return i;
  }
  return -1;  // more files mapped at once than the table holds: fileAt() will not name this one
}

void giveBackSlot(int i) {
  g_mapped[i].start.store(nullptr, std::memory_order_release);
  g_mapped[i].taken.store(false, std::memory_order_release);
}
}  // namespace

MappedFile::MappedFile(const char* data, std::size_t size, std::size_t mapped, std::string path)
    : data_(data), size_(size), mapped_(mapped), path_(std::move(path)) {
  slot_ = takeSlot(data_, mapped_, path_.c_str());
}

bool MappedFile::fileAt(const void* address, const char*& path, std::uint64_t& offset) {
  const char* at = static_cast<const char*>(address);
  for (const MappedSlot& slot : g_mapped) {
    const char* start = slot.start.load(std::memory_order_acquire);
    if (start == nullptr || at < start || at >= start + slot.bytes.load(std::memory_order_relaxed)) continue;
    path = slot.path.load(std::memory_order_relaxed);
    offset = static_cast<std::uint64_t>(at - start);
    return true;
  }
  return false;
}

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
  return std::unique_ptr<MappedFile>(new MappedFile(static_cast<const char*>(file), bytes, mapped, path));
}

MappedFile::~MappedFile() {
  if (slot_ >= 0) giveBackSlot(slot_);
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
