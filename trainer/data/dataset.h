#pragma once
// A labelled image set held in memory as raw bytes, as the IDX files store it: Fashion-MNIST is
// 47 MB this way (four times more as floats), and the batch pipeline normalises per batch anyway.

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace ampscope::trainer {

struct Dataset {
  std::int64_t count = 0;  // images
  int channels = 1, height = 28, width = 28;
  int classes = 10;
  std::vector<std::uint8_t> images;  // count*channels*height*width pixels 0-255, row-major
  std::vector<std::uint8_t> labels;  // count class indices, each below classes
  std::string source;                // where the images came from, for reports

  std::int64_t imageSize() const { return std::int64_t{channels} * height * width; }  // pixels per image
};

// Reads the training (train = true, 60000 images) or test (10000 images) split of Fashion-MNIST
// from dir, e.g. kFashionMnistDir: train-images-idx3-ubyte / train-labels-idx1-ubyte, or the
// t10k-* pair, each plain or gzip-compressed (".gz", as Debian installs them). Errors name the
// file and what was wrong with it: missing, not IDX, wrong rank, counts that differ, a label
// out of range.
Result<Dataset> loadFashionMnist(const std::string& dir, bool train);

// A learnable stand-in for Fashion-MNIST (1×28×28, labels 0..classes-1) for tests and runs without
// the dataset package: each class is a pair of blobs mirrored about the vertical centre line, the
// class setting their row and their distance apart, jittered and noisy per image. Mirrored so a
// horizontal flip keeps the class; the blobs sit apart by more than the augmentation's crop shifts
// so those keep it too. The same (count, seed, classes) always gives the same bytes. classes
// from 1 to 20 keep the patterns apart; values outside are clamped into that range.
Dataset makeSyntheticDataset(std::int64_t count, std::uint64_t seed, int classes = 10);

}  // namespace ampscope::trainer
