#include "trace/range_values.h"

#include <cctype>

namespace ampscope::trace {

std::string_view ArgumentValue::word() const {
  std::string_view w = text;
  while (!w.empty() && std::isspace(static_cast<unsigned char>(w.front()))) w.remove_prefix(1);
  while (!w.empty() && std::isspace(static_cast<unsigned char>(w.back()))) w.remove_suffix(1);
  return w;
}

const ArgumentValue& RangeArguments::at(int position) const {
  static const ArgumentValue kNone;
  if (position < 0 || static_cast<std::size_t>(position) >= values.size()) return kNone;
  return values[static_cast<std::size_t>(position)];
}

const RangeArguments& RangeValues::arguments(StringId arguments) const {
  static const RangeArguments kNone;
  const auto found = arguments_.find(arguments);
  return found == arguments_.end() ? kNone : found->second;
}

const RangeDtypes& RangeValues::dtypes(StringId dtypes) const {
  static const RangeDtypes kNone;
  const auto found = dtypes_.find(dtypes);
  return found == dtypes_.end() ? kNone : found->second;
}

void RangeValues::setArguments(StringId arguments, RangeArguments values) {
  arguments_.insert_or_assign(arguments, std::move(values));
}

void RangeValues::setDtypes(StringId dtypes, RangeDtypes values) {
  dtypes_.insert_or_assign(dtypes, std::move(values));
}

std::size_t RangeValues::memoryBytes() const {
  // Each node holds its key, its value and about two pointers of the table's.
  constexpr std::size_t kNodeOverhead = 2 * sizeof(void*);
  std::size_t bytes = 0;
  for (const auto& [id, read] : arguments_) {
    bytes += sizeof(id) + sizeof(read) + kNodeOverhead + read.values.capacity() * sizeof(ArgumentValue);
    for (const ArgumentValue& v : read.values) {
      bytes += v.text.capacity() > 15 ? v.text.capacity() : 0;  // short strings live inside
      if (v.integers) bytes += v.integers->capacity() * sizeof(std::int64_t);
      if (v.flags) bytes += (v.flags->capacity() + 7) / 8;
    }
  }
  for (const auto& [id, read] : dtypes_) {
    bytes += sizeof(id) + sizeof(read) + kNodeOverhead + read.names.capacity() * sizeof(std::string) +
             read.element_bytes.capacity();
    for (const std::string& name : read.names) bytes += name.capacity() > 15 ? name.capacity() : 0;
  }
  return bytes + (arguments_.bucket_count() + dtypes_.bucket_count()) * sizeof(void*);
}

}  // namespace ampscope::trace
