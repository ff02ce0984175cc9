#pragma once
// Per-image augmentation and normalisation, as torchvision's RandomCrop(padding) +
// RandomHorizontalFlip + ToTensor + Normalize would do them, fused into one pass from bytes to
// floats. The padding is black in pixel space (byte 0), so after normalisation it reads
// -mean/std, as torchvision's pad-then-normalise gives.

#include <array>
#include <cstdint>

#include "trainer/numerics/split_mix64.h"

namespace ampscope::trainer {

// Fashion-MNIST's training-set pixel statistics, on the 0-1 scale.
inline constexpr float kFashionMnistMean = 0.2860f;
inline constexpr float kFashionMnistStd = 0.3530f;

struct ImageShape {
  int channels = 1, height = 28, width = 28;
  std::int64_t pixels() const { return std::int64_t{channels} * height * width; }
};

struct AugmentConfig {
  int crop_padding = 2;  // pixels of zero padding on each side before cropping back; 0: no crop
  bool flip = true;      // mirror left-right with probability 0.5
};

// Byte -> normalised float, (x / 255 - mean) / std, computed once per config: 256 entries.
class PixelNormalizer {
 public:
  PixelNormalizer(float mean, float std);
  float operator()(std::uint8_t pixel) const { return table_[pixel]; }

 private:
  std::array<float, 256> table_{};
};

// Where one image's crop and flip landed, drawn from the RNG in a fixed order: the crop's row
// offset, its column offset (each uniform in [0, 2 * padding]; padding is the identity crop),
// then the flip. A transform that is off draws nothing.
struct AugmentDraw {
  int offset_y = 0, offset_x = 0;  // top-left of the crop in the padded image
  bool flipped = false;
};
AugmentDraw drawAugment(const AugmentConfig& config, SplitMix64& rng);

// Writes shape.pixels() floats to out: out(c, y, x) = normalise(in(c, y', x')), where for
// padding P the source row is y' = y + offset_y - P and the source column is x' = x + offset_x - P
// (or, when flipped, x' = (width - 1 - x) + offset_x - P: the crop is flipped, not the source);
// sources outside the image are 0.
void augmentImage(const std::uint8_t* image, ImageShape shape, const AugmentConfig& config, const AugmentDraw& draw,
                  const PixelNormalizer& normalize, float* out);

// Draws and applies in one call: what the batch pipeline does per image.
inline AugmentDraw augmentImage(const std::uint8_t* image, ImageShape shape, const AugmentConfig& config,
                                SplitMix64& rng, const PixelNormalizer& normalize, float* out) {
  const AugmentDraw draw = drawAugment(config, rng);
  augmentImage(image, shape, config, draw, normalize, out);
  return draw;
}

// Normalisation alone (evaluation, or augmentation off): out[i] = normalize(image[i]).
void normalizeImage(const std::uint8_t* image, std::int64_t pixels, const PixelNormalizer& normalize, float* out);

}  // namespace ampscope::trainer
