#include "trace/string_table.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <utility>

namespace ampscope::trace {

namespace {

// The first block is small (a trace of a few names stays small); each next one twice the last,
// up to this, so that a table of millions of strings allocates a few hundred times.
constexpr std::size_t kFirstBlockBytes = 4096;
constexpr std::size_t kLargestBlockBytes = std::size_t{1} << 22;
constexpr std::size_t kFirstSlots = 16;

}  // namespace

std::uint32_t StringTable::hashOf(std::string_view text) {
  const std::size_t full = std::hash<std::string_view>{}(text);
  if constexpr (sizeof(std::size_t) > sizeof(std::uint32_t)) {
    return static_cast<std::uint32_t>(full ^ (full >> 32));
  } else {
    return static_cast<std::uint32_t>(full);
  }
}

void StringTable::start() {
  std::vector<StringId> slots(kFirstSlots, kFreeSlot);
  strings_.assign(1, kEmptyText);
  hashes_.assign(1, hashOf(""));
  slots_ = std::move(slots);
  slots_[slotOf("", hashes_[0])] = kEmpty;
}

void StringTable::clear() noexcept {
  blocks_.clear();
  block_bytes_ = 0;
  blocks_total_ = 0;
  free_ = nullptr;
  free_bytes_ = 0;
  strings_.clear();
  hashes_.clear();
  slots_.clear();
}

StringTable::StringTable(const StringTable& other)
    : strings_(other.strings_), hashes_(other.hashes_), slots_(other.slots_) {
  // The copy's characters in one block of their own, its views pointed there; ids and index as
  // they were.
  std::size_t bytes = 0;
  for (const std::string_view text : strings_) bytes += text.size();
  if (bytes == 0) return;
  blocks_.push_back(std::make_unique<char[]>(bytes));
  block_bytes_ = bytes;
  blocks_total_ = bytes;
  char* at = blocks_.back().get();
  for (std::string_view& text : strings_) {
    if (text.empty()) continue;
    std::memcpy(at, text.data(), text.size());
    text = std::string_view(at, text.size());
    at += text.size();
  }
}

StringTable& StringTable::operator=(const StringTable& other) {
  if (this != &other) *this = StringTable(other);
  return *this;
}

StringTable::StringTable(StringTable&& other) noexcept
    : blocks_(std::move(other.blocks_)), block_bytes_(other.block_bytes_), blocks_total_(other.blocks_total_), free_(other.free_),
      free_bytes_(other.free_bytes_), strings_(std::move(other.strings_)), hashes_(std::move(other.hashes_)),
      slots_(std::move(other.slots_)) {
  other.clear();
}

StringTable& StringTable::operator=(StringTable&& other) noexcept {
  if (this == &other) return *this;
  blocks_ = std::move(other.blocks_);
  block_bytes_ = other.block_bytes_;
  blocks_total_ = other.blocks_total_;
  free_ = other.free_;
  free_bytes_ = other.free_bytes_;
  strings_ = std::move(other.strings_);
  hashes_ = std::move(other.hashes_);
  slots_ = std::move(other.slots_);
  other.clear();
  return *this;
}

std::size_t StringTable::slotOf(std::string_view text, std::uint32_t hash) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t slot = hash & mask;; slot = (slot + 1) & mask) {
    const StringId id = slots_[slot];
    if (id == kFreeSlot || (hashes_[id] == hash && strings_[id] == text)) return slot;
  }
}

std::string_view StringTable::store(std::string_view text) {
  if (text.empty()) return kEmptyText;
  if (free_bytes_ < text.size()) {
    block_bytes_ = std::max(text.size(), std::min(kLargestBlockBytes, std::max(kFirstBlockBytes, 2 * block_bytes_)));
    blocks_.push_back(std::make_unique<char[]>(block_bytes_));
    blocks_total_ += block_bytes_;
    free_ = blocks_.back().get();
    free_bytes_ = block_bytes_;
  }
  std::memcpy(free_, text.data(), text.size());
  const std::string_view stored(free_, text.size());
  free_ += text.size();
  free_bytes_ -= text.size();
  return stored;
}

void StringTable::growIndex() {
  // Built aside and swapped in: a failed allocation leaves the index as it was, still whole.
  std::vector<StringId> grown(slots_.size() * 2, kFreeSlot);
  const std::size_t mask = grown.size() - 1;
  for (StringId id = 0; id < strings_.size(); ++id) {
    std::size_t slot = hashes_[id] & mask;
    while (grown[slot] != kFreeSlot) slot = (slot + 1) & mask;
    grown[slot] = id;
  }
  slots_.swap(grown);
}

StringId StringTable::intern(std::string_view text, std::uint32_t hash) {
  if (slots_.empty()) start();
  std::size_t slot = slotOf(text, hash);
  if (slots_[slot] != kFreeSlot) return slots_[slot];
  const auto id = static_cast<StringId>(strings_.size());
  const std::string_view stored = store(text);
  // The hash and the view go in together or not at all (a failed push leaves the table as it was).
  hashes_.push_back(hash);
  try {
    strings_.push_back(stored);
  } catch (...) {
    hashes_.pop_back();
    throw;
  }
  slots_[slot] = id;
  // At most half the slots full keeps probes short.
  if (2 * strings_.size() > slots_.size()) growIndex();
  return id;
}

bool StringTable::find(std::string_view text, std::uint32_t hash, StringId& id) const {
  if (slots_.empty()) {  // nothing interned yet: the empty string alone
    if (!text.empty()) return false;
    id = kEmpty;
    return true;
  }
  const StringId found = slots_[slotOf(text, hash)];
  if (found == kFreeSlot) return false;
  id = found;
  return true;
}

std::size_t StringTable::memoryBytes() const {
  return blocks_total_ + strings_.capacity() * sizeof(std::string_view) + hashes_.capacity() * sizeof(std::uint32_t) +
         slots_.capacity() * sizeof(StringId);
}

}  // namespace ampscope::trace
