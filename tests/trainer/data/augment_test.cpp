#include "trainer/data/augment.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace ampscope::trainer {
namespace {

// A 1×3×4 image whose pixel (y, x) is 10 * (y + 1) + x + 1: every value says where it came from.
std::vector<std::uint8_t> handMadeImage() {
  std::vector<std::uint8_t> image;
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 4; ++x) image.push_back(static_cast<std::uint8_t>(10 * (y + 1) + x + 1));
  }
  return image;
}

// Normalisation that leaves bytes as they were (mean 0, std 1/255), so outputs read as pixels.
const PixelNormalizer kAsBytes(0.0f, 1.0f / 255.0f);
constexpr ImageShape kShape{1, 3, 4};

std::vector<int> apply(const AugmentConfig& config, const AugmentDraw& draw) {
  const std::vector<std::uint8_t> image = handMadeImage();
  std::vector<float> out(12, -1.0f);
  augmentImage(image.data(), kShape, config, draw, kAsBytes, out.data());
  std::vector<int> pixels;
  for (float value : out) pixels.push_back(static_cast<int>(value + 0.5f));
  return pixels;
}

TEST(AugmentTest, NormalisationIsExactlyXOver255MinusMeanOverStd) {
  const PixelNormalizer normalize(kFashionMnistMean, kFashionMnistStd);
  for (int value = 0; value < 256; ++value) {
    const float expected = (static_cast<float>(value) / 255.0f - 0.2860f) / 0.3530f;
    ASSERT_EQ(normalize(static_cast<std::uint8_t>(value)), expected) << value;
  }
  EXPECT_NEAR(normalize(0), -0.810198f, 1e-6f);
  EXPECT_NEAR(normalize(255), 2.022663f, 1e-6f);
  const PixelNormalizer half(0.5f, 0.5f);
  EXPECT_EQ(half(0), -1.0f);
  EXPECT_EQ(half(255), 1.0f);
  std::vector<std::uint8_t> image = {0, 255};
  std::vector<float> out(2);
  normalizeImage(image.data(), 2, half, out.data());
  EXPECT_EQ(out, (std::vector<float>{-1.0f, 1.0f}));
}

TEST(AugmentTest, CentredUnflippedCropIsTheIdentity) {
  const AugmentConfig config{2, true};
  EXPECT_EQ(apply(config, {2, 2, false}), (std::vector<int>{11, 12, 13, 14, 21, 22, 23, 24, 31, 32, 33, 34}));
}

TEST(AugmentTest, FlipMirrorsEveryRow) {
  const AugmentConfig config{0, true};
  EXPECT_EQ(apply(config, {0, 0, true}), (std::vector<int>{14, 13, 12, 11, 24, 23, 22, 21, 34, 33, 32, 31}));
}

TEST(AugmentTest, CropShiftsPixelsAndFillsWithBlack) {
  const AugmentConfig config{2, true};
  // Crop from row 0, column 3 of the padded image: two black rows enter at the top and the
  // image moves one column left, a black column entering at the right.
  EXPECT_EQ(apply(config, {0, 3, false}), (std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0, 12, 13, 14, 0}));
  // Crop from row 3, column 1: one row up, one column right.
  EXPECT_EQ(apply(config, {3, 1, false}), (std::vector<int>{0, 21, 22, 23, 0, 31, 32, 33, 0, 0, 0, 0}));
}

TEST(AugmentTest, FlipAppliesToTheCropNotTheSource) {
  const AugmentConfig config{2, true};
  // The crop {2, 1} is the image shifted one column right; flipping it mirrors that result.
  EXPECT_EQ(apply(config, {2, 1, true}), (std::vector<int>{13, 12, 11, 0, 23, 22, 21, 0, 33, 32, 31, 0}));
}

TEST(AugmentTest, PaddingIsBlackAfterNormalisation) {
  const PixelNormalizer normalize(kFashionMnistMean, kFashionMnistStd);
  const std::vector<std::uint8_t> image(12, 200);
  std::vector<float> out(12);
  augmentImage(image.data(), kShape, AugmentConfig{}, AugmentDraw{0, 2, false}, normalize, out.data());
  EXPECT_EQ(out[0], normalize(0));
  EXPECT_EQ(out[4], normalize(0));
  EXPECT_EQ(out[8], normalize(200));
}

TEST(AugmentTest, EveryChannelMovesAlike) {
  std::vector<std::uint8_t> image = handMadeImage();
  for (std::uint8_t value : handMadeImage()) image.push_back(static_cast<std::uint8_t>(value + 100));
  std::vector<float> out(24);
  augmentImage(image.data(), {2, 3, 4}, AugmentConfig{2, true}, {2, 3, true}, kAsBytes, out.data());
  for (int i = 0; i < 12; ++i) {
    const int first = static_cast<int>(out[static_cast<std::size_t>(i)] + 0.5f);
    const int second = static_cast<int>(out[static_cast<std::size_t>(i + 12)] + 0.5f);
    EXPECT_EQ(second, first == 0 ? 0 : first + 100) << i;
  }
}

TEST(AugmentTest, DrawsAreDeterministicAndCoverEveryOffsetAndBothFlips) {
  const AugmentConfig config;  // padding 2: offsets 0 to 4
  SplitMix64 a(11), b(11);
  std::set<int> offsets_y, offsets_x;
  int flips = 0;
  for (int i = 0; i < 1000; ++i) {
    const AugmentDraw draw = drawAugment(config, a);
    const AugmentDraw again = drawAugment(config, b);
    ASSERT_EQ(draw.offset_y, again.offset_y);
    ASSERT_EQ(draw.offset_x, again.offset_x);
    ASSERT_EQ(draw.flipped, again.flipped);
    offsets_y.insert(draw.offset_y);
    offsets_x.insert(draw.offset_x);
    flips += draw.flipped ? 1 : 0;
  }
  EXPECT_EQ(offsets_y, (std::set<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(offsets_x, (std::set<int>{0, 1, 2, 3, 4}));
  EXPECT_GT(flips, 400);
  EXPECT_LT(flips, 600);
}

TEST(AugmentTest, TransformsThatAreOffDrawNothing) {
  SplitMix64 rng(5);
  const AugmentDraw draw = drawAugment(AugmentConfig{0, false}, rng);
  EXPECT_EQ(draw.offset_y, 0);
  EXPECT_EQ(draw.offset_x, 0);
  EXPECT_FALSE(draw.flipped);
  EXPECT_EQ(rng.next(), SplitMix64(5).next());
}

}  // namespace
}  // namespace ampscope::trainer
