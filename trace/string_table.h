#pragma once
// Interned strings: every name in a trace is stored once and referred to by a 32-bit id, so that
// a million kernels with a few hundred distinct names cost a few MB, not hundreds.
//
// Some traces name nearly every record differently (PyTorch's emit_nvtx writes the op id into each
// range's text: millions of distinct strings), so a string costs its characters and about 30
// bytes besides: the characters go into large blocks (no allocation per string), and the index is
// an open-addressing table of ids (4 bytes a slot) with each string's hash kept beside it. A
// std::string per string and an unordered_map node cost about 160 bytes per string of 27
// characters (measured), most of them in allocations.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace ampscope::trace {

using StringId = std::uint32_t;

class StringTable {
 public:
  // Id 0 is always the empty string, so a default-initialised field means "none".
  static constexpr StringId kEmpty = 0;

  // A new table holds the empty string alone, and allocates nothing until a string is interned; a
  // moved-from one is a new one again.
  StringTable() = default;
  StringTable(const StringTable& other);
  StringTable& operator=(const StringTable& other);
  StringTable(StringTable&& other) noexcept;
  StringTable& operator=(StringTable&& other) noexcept;
  ~StringTable() = default;

  StringId intern(std::string_view text) { return intern(text, hashOf(text)); }
  // Returns the id of text if it was interned already, without adding it.
  bool find(std::string_view text, StringId& id) const { return find(text, hashOf(text), id); }

  // The same, given the text's hash (hashOf, the same in every table): a caller that looks one
  // text up in two tables, or moves a table's strings into another (hashAt), hashes it once.
  static std::uint32_t hashOf(std::string_view text);
  StringId intern(std::string_view text, std::uint32_t hash);
  bool find(std::string_view text, std::uint32_t hash, StringId& id) const;
  std::uint32_t hashAt(StringId id) const { return id == kEmpty ? hashOf(kEmptyText) : hashes_[id]; }

  // Valid as long as the table lives, however much it grows, and across a move of the table.
  std::string_view view(StringId id) const { return id == kEmpty ? kEmptyText : strings_[id]; }
  std::size_t size() const { return strings_.empty() ? 1 : strings_.size(); }
  // Bytes held by the strings and the lookup index (an estimate for memory budgets).
  std::size_t memoryBytes() const;

 private:
  static constexpr StringId kFreeSlot = 0xFFFFFFFFu;
  // The empty string's characters: a view that is not null (SQLite binds a null one as NULL).
  static constexpr std::string_view kEmptyText{"", 0};

  // The empty string given its id and slot: done by the first intern, so that a new or moved-from
  // table allocates nothing.
  void start();
  void clear() noexcept;
  // The slot that holds text (hash `hash`), or the free slot where it would go.
  std::size_t slotOf(std::string_view text, std::uint32_t hash) const;
  std::string_view store(std::string_view text);
  void growIndex();

  // The characters: blocks that never move, so views into them stay valid.
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::size_t block_bytes_ = 0;  // the size of the last block
  std::size_t blocks_total_ = 0;  // the sizes of all blocks
  char* free_ = nullptr;         // where the next string goes in the last block
  std::size_t free_bytes_ = 0;
  // Both empty until the first intern: then by id, the empty string's included.
  std::vector<std::string_view> strings_;
  std::vector<std::uint32_t> hashes_;  // compared before the characters, reused to grow
  std::vector<StringId> slots_;        // the index: a power of two of ids or kFreeSlot (empty: none yet)
};

}  // namespace ampscope::trace
