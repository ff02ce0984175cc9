#pragma once
// Kernel time by the precision it ran in, to tell which precision most of a row's time ran in.
// A fixed array rather than a map: the tables add to one per kernel, and a run launches millions.

#include <array>
#include <cstdint>

#include "analyzer/tensor_core_rules.h"

namespace ampscope::analyzer {

class PrecisionTimes {
 public:
  void add(MathPrecision precision, std::int64_t ns) {
    const auto i = static_cast<std::size_t>(precision);
    ns_[i] += ns;
    seen_ |= 1U << i;
  }
  bool empty() const { return seen_ == 0; }

  // The precision with the most time among those added (even with 0 ns), the first in
  // MathPrecision's order on ties; kUnknown when none was added. `known_only` passes over
  // kUnknown, so that time of an unknown precision never outweighs a known one.
  MathPrecision heaviest(bool known_only = false) const {
    MathPrecision best = MathPrecision::kUnknown;
    std::int64_t best_ns = -1;
    for (std::size_t i = known_only ? 1 : 0; i < kCount; ++i) {
      if ((seen_ & (1U << i)) != 0 && ns_[i] > best_ns) {
        best = static_cast<MathPrecision>(i);
        best_ns = ns_[i];
      }
    }
    return best;
  }

 private:
  static constexpr std::size_t kCount = static_cast<std::size_t>(MathPrecision::kFp32) + 1;
  static_assert(static_cast<std::size_t>(MathPrecision::kUnknown) == 0, "known_only skips index 0");
  std::array<std::int64_t, kCount> ns_{};
  std::uint32_t seen_ = 0;  // bit i: precision i was added
};

}  // namespace ampscope::analyzer
