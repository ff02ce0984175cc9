#pragma once
// A convolution's geometry in one line, for the tests of the CPU and CUDA convolutions.

#include <cstdint>

#include "trainer/backend/backend.h"

namespace ampscope::trainer::test {

inline ConvGeometry convGeometry(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t k,
                                 std::int64_t rs, std::int64_t stride, std::int64_t pad,
                                 MemoryLayout layout = MemoryLayout::kChannelsFirst) {
  ConvGeometry g;
  g.n = n;
  g.c = c;
  g.h = h;
  g.w = w;
  g.k = k;
  g.r = rs;
  g.s = rs;
  g.stride = stride;
  g.pad = pad;
  g.layout = layout;
  return g;
}

}  // namespace ampscope::trainer::test
