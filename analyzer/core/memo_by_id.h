#pragma once
// A value worked out once per id and then looked up: a run has millions of records with a few
// hundred names (or layers, or ops), and every stage asks per record. The values sit in a flat
// vector indexed by the id, grown as ids come, rather than in a hash.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ampscope::analyzer {

// `kUnset` marks an id not yet worked out; no value decide() returns may equal it.
template <typename Value, Value kUnset>
class MemoById {
 public:
  // The value for `id`: decide() the first time the id is asked for, the kept value after.
  // decide() may ask this memo for other ids: the slot is found only once it has returned.
  template <typename Decide>
  Value get(std::size_t id, Decide&& decide) {
    if (id < values_.size() && values_[id] != kUnset) return values_[id];
    const Value value = decide();
    // Doubling: ids come in any order, and growing one at a time would copy the vector per id.
    if (id >= values_.size()) values_.resize(std::max(id + 1, 2 * values_.size()), kUnset);
    values_[id] = value;
    return value;
  }

 private:

  std::vector<Value> values_;
};

// A yes-or-no property of a name, decided once per name id.
class NameTest {
 public:
  template <typename Decide>
  bool operator()(std::size_t id, Decide&& decide) {
    return memo_.get(id, [&]() -> std::int8_t { return decide() ? 1 : 0; }) == 1;
  }

 private:
  MemoById<std::int8_t, -1> memo_;
};

// An index (into a table of rows, groups or verdicts) found once per id; -1 marks none yet.
using IndexById = MemoById<std::int32_t, -1>;

}  // namespace ampscope::analyzer
