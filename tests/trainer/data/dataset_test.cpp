#include "trainer/data/dataset.h"

#include <gtest/gtest.h>

#include <array>
#include <filesystem>

#include "../../test_support.h"
#include "idx_test_files.h"
#include "trainer/data/augment.h"
#include "trainer/data/idx_reader.h"

namespace ampscope::trainer {
namespace {

using test::idxBytes;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A 3-image, 2×2 test split: images plain, labels gzip-compressed, as mirrors differ.
struct TinySplit {
  test::ScratchDir dir;
  std::string images = dir.file("t10k-images-idx3-ubyte");
  std::string labels = dir.file("t10k-labels-idx1-ubyte.gz");

  void write(const std::string& image_bytes, const std::string& label_bytes) {
    dir.write("t10k-images-idx3-ubyte", image_bytes);
    test::writeGzip(labels, label_bytes);
  }
};

TEST(DatasetTest, LoadsFashionMnistTrainingAndTestSplits) {
  if (!std::filesystem::exists(kFashionMnistDir)) {
    GTEST_SKIP() << kFashionMnistDir << " not found: apt-get install dataset-fashion-mnist";
  }
  for (bool train : {true, false}) {
    auto data = loadFashionMnist(kFashionMnistDir, train);
    ASSERT_TRUE(data.ok()) << data.error().message;
    const std::int64_t expected = train ? 60000 : 10000;
    EXPECT_EQ(data->count, expected);
    EXPECT_EQ(data->channels, 1);
    EXPECT_EQ(data->height, 28);
    EXPECT_EQ(data->width, 28);
    EXPECT_EQ(data->classes, 10);
    EXPECT_EQ(data->images.size(), static_cast<std::size_t>(expected * 28 * 28));
    ASSERT_EQ(data->labels.size(), static_cast<std::size_t>(expected));
    std::array<std::int64_t, 10> per_class{};
    for (std::uint8_t label : data->labels) {
      ASSERT_LT(label, 10);
      ++per_class[label];
    }
    for (std::int64_t count : per_class) EXPECT_EQ(count, expected / 10);  // both splits are balanced
    EXPECT_TRUE(contains(data->source, train ? "train" : "test")) << data->source;
  }
}

TEST(DatasetTest, ReadsPlainAndGzipFilesAlike) {
  TinySplit split;
  split.write(idxBytes({3, 2, 2}, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23}), idxBytes({3}, {9, 0, 4}));
  auto data = loadFashionMnist(split.dir.file(""), false);
  ASSERT_TRUE(data.ok()) << data.error().message;
  EXPECT_EQ(data->count, 3);
  EXPECT_EQ(data->height, 2);
  EXPECT_EQ(data->width, 2);
  EXPECT_EQ(data->images[5], 11);
  EXPECT_EQ(data->labels, (std::vector<std::uint8_t>{9, 0, 4}));
}

TEST(DatasetTest, MissingFilesAreNamedWithTheirCompressedAlternative) {
  test::ScratchDir dir;
  auto data = loadFashionMnist(dir.file(""), true);
  ASSERT_FALSE(data.ok());
  EXPECT_TRUE(contains(data.error().message, "train-images-idx3-ubyte: not found (nor train-images-idx3-ubyte.gz)"))
      << data.error().message;
}

TEST(DatasetTest, TruncatedImagesNameTheFile) {
  TinySplit split;
  const std::string images = idxBytes({3, 2, 2}, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
  split.write(images.substr(0, images.size() - 2), idxBytes({3}, {1, 2, 3}));
  auto data = loadFashionMnist(split.dir.file(""), false);
  ASSERT_FALSE(data.ok());
  EXPECT_TRUE(contains(data.error().message, split.images + ": truncated")) << data.error().message;
}

TEST(DatasetTest, CorruptLabelsNameTheFile) {
  TinySplit split;
  split.write(idxBytes({1, 2, 2}, {0, 1, 2, 3}), "these are not labels");
  auto data = loadFashionMnist(split.dir.file(""), false);
  ASSERT_FALSE(data.ok());
  EXPECT_TRUE(contains(data.error().message, split.labels + ": byte offset 0")) << data.error().message;
}

TEST(DatasetTest, WrongRanksAreRefusedNamingTheFile) {
  TinySplit split;
  split.write(idxBytes({3, 4}, std::vector<std::uint8_t>(12)), idxBytes({3}, {1, 2, 3}));
  auto flat = loadFashionMnist(split.dir.file(""), false);
  ASSERT_FALSE(flat.ok());
  EXPECT_TRUE(contains(flat.error().message, split.images + ": 2 dimensions (3×4); expected 3")) << flat.error().message;

  split.write(idxBytes({3, 2, 2}, std::vector<std::uint8_t>(12)), idxBytes({3, 1}, {1, 2, 3}));
  auto matrix = loadFashionMnist(split.dir.file(""), false);
  ASSERT_FALSE(matrix.ok());
  EXPECT_TRUE(contains(matrix.error().message, split.labels + ": 2 dimensions (3×1); expected 1"))
      << matrix.error().message;
}

TEST(DatasetTest, LabelCountDifferentFromImageCountIsRefused) {
  TinySplit split;
  split.write(idxBytes({3, 2, 2}, std::vector<std::uint8_t>(12)), idxBytes({2}, {1, 2}));
  auto data = loadFashionMnist(split.dir.file(""), false);
  ASSERT_FALSE(data.ok());
  EXPECT_TRUE(contains(data.error().message, split.labels + ": 2 labels, but " + split.images + " holds 3 images"))
      << data.error().message;
}

TEST(DatasetTest, LabelOutOfRangeNamesFileOffsetAndValue) {
  TinySplit split;
  split.write(idxBytes({3, 2, 2}, std::vector<std::uint8_t>(12)), idxBytes({3}, {1, 9, 10}));
  auto data = loadFashionMnist(split.dir.file(""), false);
  ASSERT_FALSE(data.ok());
  EXPECT_TRUE(contains(data.error().message, split.labels + ": byte offset 10: label 10 (image 2)"))
      << data.error().message;
}

TEST(SyntheticDatasetTest, SameSeedGivesTheSameBytesAnotherSeedOthers) {
  const Dataset a = makeSyntheticDataset(64, 5);
  const Dataset b = makeSyntheticDataset(64, 5);
  const Dataset c = makeSyntheticDataset(64, 6);
  EXPECT_EQ(a.images, b.images);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_NE(a.images, c.images);
  EXPECT_EQ(a.count, 64);
  EXPECT_EQ(a.images.size(), 64u * 28 * 28);
  EXPECT_EQ(a.labels.size(), 64u);
}

// Nearest class mean, a classifier with nothing to tune: if it separates the classes, a network can.
double nearestMeanAccuracy(const Dataset& train, const Dataset& test, bool augment_test) {
  const std::size_t pixels = static_cast<std::size_t>(train.imageSize());
  std::vector<std::vector<double>> means(static_cast<std::size_t>(train.classes), std::vector<double>(pixels));
  std::vector<int> counts(static_cast<std::size_t>(train.classes));
  for (std::int64_t i = 0; i < train.count; ++i) {
    const std::size_t label = train.labels[static_cast<std::size_t>(i)];
    ++counts[label];
    for (std::size_t p = 0; p < pixels; ++p) means[label][p] += train.images[static_cast<std::size_t>(i) * pixels + p];
  }
  for (std::size_t c = 0; c < means.size(); ++c) {
    for (double& value : means[c]) value /= std::max(counts[c], 1);
  }
  // Compare in byte units: normalise with mean 0 and std 1/255, so floats equal the bytes.
  const PixelNormalizer bytes(0.0f, 1.0f / 255.0f);
  AugmentConfig config;
  SplitMix64 rng(1);
  std::vector<float> image(pixels);
  int right = 0;
  for (std::int64_t i = 0; i < test.count; ++i) {
    const std::uint8_t* source = test.images.data() + static_cast<std::size_t>(i) * pixels;
    if (augment_test) {
      augmentImage(source, {1, 28, 28}, config, rng, bytes, image.data());
    } else {
      normalizeImage(source, static_cast<std::int64_t>(pixels), bytes, image.data());
    }
    std::size_t best = 0;
    double best_distance = 1e300;
    for (std::size_t c = 0; c < means.size(); ++c) {
      double distance = 0.0;
      for (std::size_t p = 0; p < pixels; ++p) distance += (image[p] - means[c][p]) * (image[p] - means[c][p]);
      if (distance < best_distance) best_distance = distance, best = c;
    }
    right += best == test.labels[static_cast<std::size_t>(i)] ? 1 : 0;
  }
  return static_cast<double>(right) / static_cast<double>(test.count);
}

TEST(SyntheticDatasetTest, ClassesAreDistinguishableEvenAfterAugmentation) {
  const Dataset train = makeSyntheticDataset(2000, 1);
  const Dataset test = makeSyntheticDataset(500, 2);
  std::array<int, 10> per_class{};
  for (std::uint8_t label : train.labels) {
    ASSERT_LT(label, 10);
    ++per_class[label];
  }
  for (int count : per_class) EXPECT_GT(count, 150);  // every class is there, roughly balanced
  EXPECT_GT(nearestMeanAccuracy(train, test, false), 0.99);
  // Flips and 2-pixel crop shifts must not turn one class into another; a template matcher
  // suffers from shifts more than a network would, hence the lower bar.
  EXPECT_GT(nearestMeanAccuracy(train, test, true), 0.9);
}

TEST(SyntheticDatasetTest, ClassCountIsHonouredAndClamped) {
  const Dataset three = makeSyntheticDataset(300, 4, 3);
  EXPECT_EQ(three.classes, 3);
  for (std::uint8_t label : three.labels) ASSERT_LT(label, 3);
  EXPECT_GT(nearestMeanAccuracy(three, makeSyntheticDataset(100, 5, 3), false), 0.99);
  EXPECT_EQ(makeSyntheticDataset(10, 4, 0).classes, 1);
  EXPECT_EQ(makeSyntheticDataset(10, 4, 50).classes, 20);
}

}  // namespace
}  // namespace ampscope::trainer
