#include "trainer/data/augment.h"

namespace ampscope::trainer {

PixelNormalizer::PixelNormalizer(float mean, float std) {
  // The same float expression a test (or a reader) would write, so the values are exact, not
  // merely close: divide by 255 first, as ToTensor does, then normalise.
  for (int value = 0; value < 256; ++value) table_[static_cast<std::size_t>(value)] = (static_cast<float>(value) / 255.0f - mean) / std;
}

AugmentDraw drawAugment(const AugmentConfig& config, SplitMix64& rng) {
  AugmentDraw draw;
  if (config.crop_padding > 0) {
    const auto choices = static_cast<std::uint64_t>(2 * config.crop_padding + 1);
    draw.offset_y = static_cast<int>(rng.below(choices));
    draw.offset_x = static_cast<int>(rng.below(choices));
  }
  if (config.flip) draw.flipped = rng.coin();
  return draw;
}

void augmentImage(const std::uint8_t* image, ImageShape shape, const AugmentConfig& config, const AugmentDraw& draw,
                  const PixelNormalizer& normalize, float* out) {
  const int padding = config.crop_padding > 0 ? config.crop_padding : 0;
  const int shift_y = draw.offset_y - padding;
  const int shift_x = draw.offset_x - padding;
  const float black = normalize(0);
  for (int c = 0; c < shape.channels; ++c) {
    const std::uint8_t* plane = image + std::int64_t{c} * shape.height * shape.width;
    float* out_plane = out + std::int64_t{c} * shape.height * shape.width;
    for (int y = 0; y < shape.height; ++y) {
      const int source_y = y + shift_y;
      float* out_row = out_plane + std::int64_t{y} * shape.width;
      if (source_y < 0 || source_y >= shape.height) {
        for (int x = 0; x < shape.width; ++x) out_row[x] = black;
        continue;
      }
      const std::uint8_t* row = plane + std::int64_t{source_y} * shape.width;
      for (int x = 0; x < shape.width; ++x) {
        const int source_x = (draw.flipped ? shape.width - 1 - x : x) + shift_x;
        out_row[x] = source_x < 0 || source_x >= shape.width ? black : normalize(row[source_x]);
      }
    }
  }
}

void normalizeImage(const std::uint8_t* image, std::int64_t pixels, const PixelNormalizer& normalize, float* out) {
  for (std::int64_t i = 0; i < pixels; ++i) out[i] = normalize(image[i]);
}

}  // namespace ampscope::trainer
