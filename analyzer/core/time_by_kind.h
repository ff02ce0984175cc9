#pragma once
// Kernel time by a small enum (the precision a kernel ran in, the phase of its op), to tell which
// kind most of a row's time had. A fixed array rather than a map: the tables add to one per
// kernel, and a run launches millions.

#include <array>
#include <cstdint>

#include "analyzer/core/tensor_core_verdict.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

// Kind: an enum whose values run from 0 to kCount - 1 (at most 32).
template <typename Kind, std::size_t kCount>
class TimeByKind {
  static_assert(kCount <= 32, "one bit per kind");

 public:
  void add(Kind kind, std::int64_t ns) {
    const auto i = static_cast<std::size_t>(kind);
    ns_.at(i) += ns;
    seen_ |= 1U << i;
  }
  bool empty() const { return seen_ == 0; }

  // The kind with the most time among those added (even with 0 ns), the first in the enum's
  // order on ties; Kind{} (value 0) when none was added. `skip_first` passes over value 0 (an
  // "unknown"), so that its time never outweighs a known kind.
  Kind heaviest(bool skip_first = false) const {
    Kind best{};
    std::int64_t best_ns = -1;
    for (std::size_t i = skip_first ? 1 : 0; i < kCount; ++i) {
      if ((seen_ & (1U << i)) != 0 && ns_[i] > best_ns) {
        best = static_cast<Kind>(i);
        best_ns = ns_[i];
      }
    }
    return best;
  }

  // Calls visit(kind, ns) for each kind added, in the enum's order.
  template <typename Visit>
  void forEach(Visit visit) const {
    for (std::size_t i = 0; i < kCount; ++i) {
      if ((seen_ & (1U << i)) != 0) visit(static_cast<Kind>(i), ns_[i]);
    }
  }

 private:
  std::array<std::int64_t, kCount> ns_{};
  std::uint32_t seen_ = 0;  // bit i: kind i was added
};

// MathPrecision runs from kUnknown to kFp32 (tensor_core_rules.h).
using PrecisionTimes = TimeByKind<MathPrecision, static_cast<std::size_t>(MathPrecision::kFp32) + 1>;
// trace::Phase runs from kUnknown to kLossScale (trace_model.h); add() checks the bound.
using PhaseTimes = TimeByKind<trace::Phase, static_cast<std::size_t>(trace::Phase::kLossScale) + 1>;

}  // namespace ampscope::analyzer
