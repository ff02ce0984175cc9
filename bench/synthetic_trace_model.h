#pragma once
// A synthetic but realistic training trace for the profile database benchmark: kernels with a
// few hundred distinct (long, templated) names in a skewed mix, increasing timestamps on a few
// streams, one launch call per kernel sharing its correlation id, realistic grids and blocks.
// Deterministic: the same arguments give the same trace.

#include <cstdint>

#include "trace/trace_model.h"

namespace ampscope::bench {

struct SyntheticTraceModel {
  std::uint64_t kernels = 5'000'000;
  bool launches = true;        // one cudaLaunchKernel / cuLaunchKernel row per kernel
  std::uint32_t kernel_names = 300;
  std::uint64_t seed = 20240611;

  trace::Trace build() const;
};

}  // namespace ampscope::bench
