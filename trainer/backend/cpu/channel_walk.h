#pragma once
// Walks one channel of a tensor viewed as [outer, channels, inner] (NCHW activations with
// inner = H*W, a linear layer's output with inner = 1): the index of each of its values, in
// increasing order, so sums over a channel add in the same order wherever they are taken.

#include <cstdint>

namespace ampscope::trainer {

template <typename Visit>
void forChannel(std::int64_t outer, std::int64_t channels, std::int64_t inner, std::int64_t c, Visit&& visit) {
  for (std::int64_t o = 0; o < outer; ++o) {
    const std::int64_t base = (o * channels + c) * inner;
    for (std::int64_t i = 0; i < inner; ++i) visit(base + i);
  }
}

}  // namespace ampscope::trainer
