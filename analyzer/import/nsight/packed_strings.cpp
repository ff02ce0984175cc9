#include "analyzer/import/nsight/packed_strings.h"

namespace ampscope::analyzer::import {

PackedStrings PackedStrings::of(const trace::StringTable& table) {
  PackedStrings out;
  const auto count = static_cast<trace::StringId>(table.size());
  std::size_t bytes = 0;
  for (trace::StringId id = 1; id < count; ++id) bytes += table.view(id).size();
  out.chars.reserve(bytes);
  out.lengths.reserve(count - 1);
  out.hashes.reserve(count - 1);
  for (trace::StringId id = 1; id < count; ++id) {
    const std::string_view text = table.view(id);
    out.chars.insert(out.chars.end(), text.begin(), text.end());
    out.lengths.push_back(static_cast<std::uint32_t>(text.size()));
    out.hashes.push_back(table.hashAt(id));
  }
  return out;
}

}  // namespace ampscope::analyzer::import
