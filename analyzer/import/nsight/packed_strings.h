#pragma once
// The strings a slice of an Nsight Systems table met first (TableSlice::names), packed once the
// slice is read: their characters end to end, and each one's length and hash, in id order.
//
// While a slice is read its strings sit in a StringTable, so that a text met again is stored
// once; that costs about 50 bytes a string besides its characters (a view, a hash, slots of the
// index, room to grow). Once the slice is read nothing looks a string up by its text again until
// the trace interns them, in id order: packed, a string costs 8 bytes besides its characters,
// and the three buffers go to a spill file and back as they are. An emit_nvtx export names
// nearly every range differently, so this is most of the memory its slices hold.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/page_allocator.h"
#include "trace/string_table.h"

namespace ampscope::analyzer::import {

struct PackedStrings {
  // The strings of ids 1, 2, ... of the table packed (id 0, the empty string, is every table's).
  std::vector<char, PageAllocator<char>> chars;
  // SQLite holds no value longer than 2^31 - 1 bytes, so a length fits in 32 bits.
  std::vector<std::uint32_t, PageAllocator<std::uint32_t>> lengths;
  std::vector<std::uint32_t, PageAllocator<std::uint32_t>> hashes;  // StringTable::hashOf each

  static PackedStrings of(const trace::StringTable& table);

  // How many strings: the table's size less the empty string.
  std::size_t size() const { return lengths.size(); }
  bool empty() const { return lengths.empty(); }

  // Calls each(text, hash) for each string in id order (ids 1, 2, ...).
  template <typename Each>
  void forEach(Each each) const {
    std::size_t at = 0;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      each(std::string_view(chars.data() + at, lengths[i]), hashes[i]);
      at += lengths[i];
    }
  }
};

}  // namespace ampscope::analyzer::import
