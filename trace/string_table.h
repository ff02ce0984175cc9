#pragma once
// Interned strings: every name in a trace is stored once and referred to by a 32-bit id, so that
// a million kernels with a few hundred distinct names cost a few MB, not hundreds.

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ampscope::trace {

using StringId = std::uint32_t;

class StringTable {
 public:
  // Id 0 is always the empty string, so a default-initialised field means "none".
  static constexpr StringId kEmpty = 0;

  StringTable();
  StringTable(const StringTable& other);
  StringTable& operator=(const StringTable& other);
  StringTable(StringTable&&) noexcept = default;
  StringTable& operator=(StringTable&&) noexcept = default;

  StringId intern(std::string_view text);
  // Returns the id of text if it was interned already, without adding it.
  bool find(std::string_view text, StringId& id) const;
  std::string_view view(StringId id) const { return strings_[id]; }
  std::size_t size() const { return strings_.size(); }
  // Bytes held by the strings and the lookup index (an estimate for memory budgets).
  std::size_t memoryBytes() const;

 private:
  void rebuildIndex();

  // A deque keeps each std::string's address stable, so the index's views stay valid.
  std::deque<std::string> storage_;
  std::vector<std::string_view> strings_;
  std::unordered_map<std::string_view, StringId> index_;
};

}  // namespace ampscope::trace
