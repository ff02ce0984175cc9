#pragma once
// The data layer's random numbers. The shuffle, the augmentation and the synthetic images must be
// bit-identical across runs, compilers and platforms, so nothing here goes through <random>'s
// distributions (their algorithms are implementation-defined): integers and floats are derived
// from the raw 64-bit outputs by the fixed rules below. SplitMix64 (Steele, Lea and Flood, 2014)
// is small, has a 64-bit state that is trivially copied, and is good enough for shuffling data.

#include <cstdint>
#include <initializer_list>

namespace ampscope::trainer {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed = 0) : state_(seed) {}

  std::uint64_t next() {
    state_ += kGamma;
    return finalize(state_);
  }

  // Uniform in [0, bound), without modulo bias: draws below 2^64 mod bound are rejected, so every
  // residue is equally likely. bound must be at least 1.
  std::uint64_t below(std::uint64_t bound) {
    const std::uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
    for (;;) {
      const std::uint64_t draw = next();
      if (draw >= threshold) return draw % bound;
    }
  }

  // Uniform in [0, 1) with 24 random bits: every value is exactly representable as a float.
  float uniform() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f); }

  // A fair coin from the top bit (the best-mixed one).
  bool coin() { return (next() >> 63) != 0; }

  // The output mixer: a bijection on 64-bit words whose every output bit depends on every input bit.
  static constexpr std::uint64_t finalize(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  static constexpr std::uint64_t kGamma = 0x9e3779b97f4a7c15ULL;  // 2^64 / golden ratio, odd
  std::uint64_t state_;
};

// A seed for one stream, derived from the run's seed and the stream's coordinates (a purpose tag,
// the epoch, the batch index...). Each part is mixed in turn, so the order matters: (s, 1, 2) and
// (s, 2, 1) give unrelated streams, and neighbouring indices do not give neighbouring states.
constexpr std::uint64_t deriveSeed(std::uint64_t seed, std::initializer_list<std::uint64_t> parts) {
  std::uint64_t h = SplitMix64::finalize(seed ^ 0x6a09e667f3bcc908ULL);
  for (std::uint64_t part : parts) h = SplitMix64::finalize(h + 0x9e3779b97f4a7c15ULL + SplitMix64::finalize(part));
  return h;
}

}  // namespace ampscope::trainer
