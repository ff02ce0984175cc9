#include "trace/string_table.h"

namespace ampscope::trace {

StringTable::StringTable() { intern(""); }

StringTable::StringTable(const StringTable& other) : storage_(other.storage_) { rebuildIndex(); }

StringTable& StringTable::operator=(const StringTable& other) {
  if (this != &other) {
    storage_ = other.storage_;
    rebuildIndex();
  }
  return *this;
}

void StringTable::rebuildIndex() {
  strings_.clear();
  index_.clear();
  strings_.reserve(storage_.size());
  for (const std::string& text : storage_) {
    index_.emplace(text, static_cast<StringId>(strings_.size()));
    strings_.emplace_back(text);
  }
}

StringId StringTable::intern(std::string_view text) {
  if (auto found = index_.find(text); found != index_.end()) return found->second;
  const std::string& stored = storage_.emplace_back(text);
  const auto id = static_cast<StringId>(strings_.size());
  strings_.emplace_back(stored);
  index_.emplace(stored, id);
  return id;
}

bool StringTable::find(std::string_view text, StringId& id) const {
  auto found = index_.find(text);
  if (found == index_.end()) return false;
  id = found->second;
  return true;
}

std::size_t StringTable::memoryBytes() const {
  std::size_t bytes = strings_.capacity() * sizeof(std::string_view);
  for (const std::string& text : storage_) bytes += sizeof(std::string) + text.capacity();
  // An unordered_map node holds the key, the id and a next pointer, plus one bucket pointer.
  bytes += index_.size() * (sizeof(std::string_view) + sizeof(StringId) + 2 * sizeof(void*));
  return bytes;
}

}  // namespace ampscope::trace
