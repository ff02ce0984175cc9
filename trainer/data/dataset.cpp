#include "trainer/data/dataset.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "trainer/data/idx_reader.h"
#include "trainer/numerics/split_mix64.h"

namespace ampscope::trainer {

namespace {

constexpr int kFashionMnistClasses = 10;
constexpr std::uint64_t kIdx1HeaderBytes = 8;  // magic + one dimension: label i is at byte 8 + i

// Debian ships the files gzip-compressed; other mirrors unpack them. Either is read the same way.
Result<std::string> findIdxFile(const std::string& dir, const std::string& name) {
  const std::filesystem::path plain = std::filesystem::path(dir) / name;
  std::error_code ignored;
  if (std::filesystem::exists(plain, ignored)) return plain.string();
  const std::filesystem::path gz = std::filesystem::path(dir) / (name + ".gz");
  if (std::filesystem::exists(gz, ignored)) return gz.string();
  return Error{fmt::format("{}: not found (nor {}.gz); Debian's dataset-fashion-mnist package "
                           "installs Fashion-MNIST in {}", plain.string(), name, kFashionMnistDir)};
}

std::string dimsText(const std::vector<std::uint32_t>& dims) {
  std::string text;
  for (std::uint32_t d : dims) text += (text.empty() ? "" : "×") + std::to_string(d);
  return text.empty() ? "none" : text;
}

}  // namespace

Result<Dataset> loadFashionMnist(const std::string& dir, bool train) {
  const std::string prefix = train ? "train" : "t10k";
  auto images_path = findIdxFile(dir, prefix + "-images-idx3-ubyte");
  if (!images_path) return images_path.error();
  auto labels_path = findIdxFile(dir, prefix + "-labels-idx1-ubyte");
  if (!labels_path) return labels_path.error();

  auto images = readIdxFile(*images_path);
  if (!images) return images.error();
  if (images->dims.size() != 3) {
    return Error{fmt::format("{}: {} dimensions ({}); expected 3 (images × rows × columns)", *images_path,
                             images->dims.size(), dimsText(images->dims))};
  }
  if (images->dims[0] == 0 || images->dims[1] == 0 || images->dims[2] == 0) {
    return Error{fmt::format("{}: dimensions {} hold no pixels; expected images × rows × columns, each at "
                             "least 1", *images_path, dimsText(images->dims))};
  }
  auto labels = readIdxFile(*labels_path);
  if (!labels) return labels.error();
  if (labels->dims.size() != 1) {
    return Error{fmt::format("{}: {} dimensions ({}); expected 1 (one label per image)", *labels_path,
                             labels->dims.size(), dimsText(labels->dims))};
  }
  if (labels->dims[0] != images->dims[0]) {
    return Error{fmt::format("{}: {} labels, but {} holds {} images; expected one label per image",
                             *labels_path, labels->dims[0], *images_path, images->dims[0])};
  }
  for (std::size_t i = 0; i < labels->data.size(); ++i) {
    if (labels->data[i] >= kFashionMnistClasses) {
      return Error{fmt::format("{}: byte offset {}: label {} (image {}); expected a class from 0 to {}",
                               *labels_path, kIdx1HeaderBytes + i, labels->data[i], i,
                               kFashionMnistClasses - 1)};
    }
  }

  Dataset data;
  data.count = static_cast<std::int64_t>(images->dims[0]);
  data.channels = 1;
  data.height = static_cast<int>(images->dims[1]);
  data.width = static_cast<int>(images->dims[2]);
  data.classes = kFashionMnistClasses;
  data.images = std::move(images->data);
  data.labels = std::move(labels->data);
  data.source = fmt::format("Fashion-MNIST {} ({})", train ? "train" : "test", *images_path);
  return data;
}

namespace {

// Geometry in half-pixel units, so pixel centres (x + 0.5) and the image centre are integers and
// the whole image is made with integer arithmetic: identical bytes on every platform.
constexpr int kSize = 28;
constexpr int kCentre2 = kSize;         // the image centre, 14.0 pixels
constexpr int kBlobRadius2 = 7;         // 3.5 pixels
constexpr int kMaxRows = 5;
constexpr int kTopRow2 = 8, kBottomRow2 = 48;  // rows from 4 to 24 pixels
constexpr int kMinOffset2 = 6, kMaxOffset2 = 20;  // each blob 3 to 10 pixels from the pair's centre
constexpr int kNoise = 32;              // added to every pixel, 0..31

}  // namespace

Dataset makeSyntheticDataset(std::int64_t count, std::uint64_t seed, int classes) {
  classes = std::clamp(classes, 1, 20);
  count = std::max<std::int64_t>(count, 0);
  const int rows = std::min(classes, kMaxRows);
  const int spreads = (classes + rows - 1) / rows;

  Dataset data;
  data.count = count;
  data.classes = classes;
  data.source = fmt::format("synthetic ({} images, {} classes, seed {})", count, classes, seed);
  data.images.resize(static_cast<std::size_t>(count * data.imageSize()));
  data.labels.resize(static_cast<std::size_t>(count));

  SplitMix64 rng(deriveSeed(seed, {0x53594e5448ULL}));  // "SYNTH": a stream of its own
  for (std::int64_t i = 0; i < count; ++i) {
    const int label = static_cast<int>(rng.below(static_cast<std::uint64_t>(classes)));
    data.labels[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(label);
    const int row = label % rows, spread = label / rows;
    const int y2 = rows == 1 ? kCentre2 : kTopRow2 + row * (kBottomRow2 - kTopRow2) / (rows - 1);
    const int offset2 = spreads == 1 ? kMinOffset2 : kMinOffset2 + spread * (kMaxOffset2 - kMinOffset2) / (spreads - 1);
    // Per-image variation the model must see through: the pair slides sideways by up to a pixel
    // and the brightness changes; the row and the blobs' distance apart carry the class.
    const int x2 = kCentre2 + 2 * (static_cast<int>(rng.below(3)) - 1);
    const int brightness = 150 + static_cast<int>(rng.below(106));

    std::uint8_t* image = data.images.data() + i * data.imageSize();
    for (int y = 0; y < kSize; ++y) {
      for (int x = 0; x < kSize; ++x) {
        const int dy = 2 * y + 1 - y2;
        int value = static_cast<int>(rng.below(kNoise));
        for (int side : {-1, 1}) {
          const int dx = 2 * x + 1 - (x2 + side * offset2);
          const int inside = kBlobRadius2 * kBlobRadius2 - (dx * dx + dy * dy);
          if (inside > 0) value += brightness * inside / (kBlobRadius2 * kBlobRadius2);
        }
        image[y * kSize + x] = static_cast<std::uint8_t>(std::min(value, 255));
      }
    }
  }
  return data;
}

}  // namespace ampscope::trainer
