// Channels last (NHWC activations, KRSC filters) against channels first on the CPU backend: the
// same convolution, pooling and training, values laid out the other way. The CPU's channels-last
// convolution is its own GEMM orientation over its own im2col, so these hold the reference the
// CUDA backend's NHWC convolutions are compared with (tests/trainer/cuda).
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/trainer/conv_geometry.h"
#include "trainer/backend/backend.h"
#include "trainer/data/dataset.h"
#include "trainer/engine/training_run.h"
#include "trainer/model/model.h"

namespace ampscope::trainer {
namespace {

std::vector<float> randomValues(std::int64_t count, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> out(static_cast<std::size_t>(count));
  for (float& v : out) v = value(random);
  return out;
}

// [a, b, rest] channels first -> [a, rest, b], and back.
std::vector<float> toLast(const std::vector<float>& first, std::int64_t a, std::int64_t b, std::int64_t rest) {
  return imagesLaidOut(first, {a, b, rest, 1}, MemoryLayout::kChannelsLast);
}
std::vector<float> toFirst(const std::vector<float>& last, std::int64_t a, std::int64_t b, std::int64_t rest) {
  std::vector<float> out(last.size());
  for (std::int64_t i = 0; i < a; ++i) {
    for (std::int64_t j = 0; j < b; ++j) {
      for (std::int64_t k = 0; k < rest; ++k) {
        out[static_cast<std::size_t>((i * b + j) * rest + k)] = last[static_cast<std::size_t>((i * rest + k) * b + j)];
      }
    }
  }
  return out;
}

void expectNear(const std::vector<float>& actual, const std::vector<float>& expected, const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    // FP32 sums of the same terms in another order (the GEMM's orientation differs).
    ASSERT_NEAR(actual[i], expected[i], 1e-5 * (1.0 + std::fabs(expected[i]))) << what << " at " << i;
  }
}

// Not square: rows and columns cannot be mistaken for one another.
ConvGeometry geometry(std::int64_t n, std::int64_t c, std::int64_t hw, std::int64_t k, std::int64_t rs,
                      std::int64_t stride, std::int64_t pad) {
  return test::convGeometry(n, c, hw, hw + 1, k, rs, stride, pad);
}

class ChannelsLastTest : public ::testing::Test {
 protected:
  Tensor make(const Shape& shape, const std::vector<float>& values) {
    Tensor t = backend_->allocate(shape, DType::kFp32);
    backend_->upload(values, t);
    return t;
  }
  std::unique_ptr<Backend> backend_ = makeCpuBackend();
};

TEST_F(ChannelsLastTest, AConvolutionGivesTheSameValuesLaidOutEitherWay) {
  std::uint32_t seed = 11;
  for (const ConvGeometry& first : {geometry(2, 3, 7, 5, 3, 1, 1), geometry(3, 4, 9, 2, 3, 2, 0),
                                    geometry(2, 8, 5, 16, 1, 1, 0), geometry(1, 2, 6, 3, 5, 2, 2)}) {
    ConvGeometry last = first;
    last.layout = MemoryLayout::kChannelsLast;
    const std::string what = "c" + std::to_string(first.c) + " k" + std::to_string(first.k) + " rs" +
                             std::to_string(first.r) + " stride" + std::to_string(first.stride);
    const Shape x_shape{first.n, first.c, first.h, first.w};
    const Shape w_shape{first.k, first.c, first.r, first.s};
    const Shape y_shape{first.n, first.k, first.p(), first.q()};
    const std::int64_t hw = first.h * first.w;
    const std::int64_t rs = first.r * first.s;
    const std::int64_t pq = first.p() * first.q();
    const std::vector<float> x = randomValues(elementCount(x_shape), seed++);
    const std::vector<float> w = randomValues(elementCount(w_shape), seed++);
    const std::vector<float> dy = randomValues(elementCount(y_shape), seed++);

    Tensor y_first = backend_->allocate(y_shape, DType::kFp32);
    Tensor y_last = backend_->allocate(y_shape, DType::kFp32);
    backend_->convForward(first, make(x_shape, x), make(w_shape, w), y_first);
    backend_->convForward(last, make(x_shape, toLast(x, first.n, first.c, hw)),
                          make(w_shape, toLast(w, first.k, first.c, rs)), y_last);
    expectNear(toFirst(backend_->download(y_last), first.n, first.k, pq), backend_->download(y_first),
               "forward " + what);

    Tensor dx_first = backend_->allocate(x_shape, DType::kFp32);
    Tensor dx_last = backend_->allocate(x_shape, DType::kFp32);
    backend_->convBackwardData(first, make(y_shape, dy), make(w_shape, w), dx_first);
    backend_->convBackwardData(last, make(y_shape, toLast(dy, first.n, first.k, pq)),
                               make(w_shape, toLast(w, first.k, first.c, rs)), dx_last);
    expectNear(toFirst(backend_->download(dx_last), first.n, first.c, hw), backend_->download(dx_first),
               "backward data " + what);

    Tensor dw_first = backend_->allocate(w_shape, DType::kFp32);
    Tensor dw_last = backend_->allocate(w_shape, DType::kFp32);
    backend_->convBackwardFilter(first, make(x_shape, x), make(y_shape, dy), dw_first);
    backend_->convBackwardFilter(last, make(x_shape, toLast(x, first.n, first.c, hw)),
                                 make(y_shape, toLast(dy, first.n, first.k, pq)), dw_last);
    expectNear(toFirst(backend_->download(dw_last), first.k, first.c, rs), backend_->download(dw_first),
               "backward filter " + what);
  }
}

TEST_F(ChannelsLastTest, PoolingGivesTheSameValuesLaidOutEitherWay) {
  PoolGeometry first;
  first.n = 2;
  first.c = 3;
  first.h = 9;
  first.w = 8;
  first.window = 3;
  first.stride = 2;
  PoolGeometry last = first;
  last.layout = MemoryLayout::kChannelsLast;
  const Shape x_shape{first.n, first.c, first.h, first.w};
  const Shape y_shape{first.n, first.c, first.p(), first.q()};
  const std::int64_t hw = first.h * first.w;
  const std::int64_t pq = first.p() * first.q();
  std::vector<float> x = randomValues(elementCount(x_shape), 5);
  for (float& v : x) v = std::round(v * 3.0f);  // ties: the first maximum must be the same one
  const std::vector<float> dy = randomValues(elementCount(y_shape), 6);
  for (PoolKind kind : {PoolKind::kMax, PoolKind::kAverage}) {
    Tensor y_first = backend_->allocate(y_shape, DType::kFp32);
    Tensor y_last = backend_->allocate(y_shape, DType::kFp32);
    backend_->poolForward(kind, first, make(x_shape, x), y_first);
    backend_->poolForward(kind, last, make(x_shape, toLast(x, first.n, first.c, hw)), y_last);
    EXPECT_EQ(toFirst(backend_->download(y_last), first.n, first.c, pq), backend_->download(y_first));
    Tensor dx_first = backend_->allocate(x_shape, DType::kFp32);
    Tensor dx_last = backend_->allocate(x_shape, DType::kFp32);
    backend_->poolBackward(kind, first, make(x_shape, x), make(y_shape, dy), dx_first);
    backend_->poolBackward(kind, last, make(x_shape, toLast(x, first.n, first.c, hw)),
                           make(y_shape, toLast(dy, first.n, first.c, pq)), dx_last);
    EXPECT_EQ(toFirst(backend_->download(dx_last), first.n, first.c, hw), backend_->download(dx_first));
  }
}

TEST(ImagesLaidOutTest, ChannelsLastPutsEachPixelsChannelsTogether) {
  // Two images of two channels of 2 pixels: [n][c][pixel] = 100n + 10c + pixel.
  const std::vector<float> nchw = {0, 1, 10, 11, 100, 101, 110, 111};
  EXPECT_EQ(imagesLaidOut(nchw, {2, 2, 1, 2}, MemoryLayout::kChannelsLast),
            (std::vector<float>{0, 10, 1, 11, 100, 110, 101, 111}));
  EXPECT_EQ(imagesLaidOut(nchw, {2, 2, 1, 2}, MemoryLayout::kChannelsFirst), nchw);
}

TEST(ChannelsLastTrainingTest, AnMlpWithChannelsLastIsRefusedNamingTheOption) {
  TrainConfig config;
  config.model.kind = "mlp";
  config.model.channels_last = true;
  auto backend = makeCpuBackend();
  TrainingRun run(*backend, config, makeSyntheticDataset(64, 1), makeSyntheticDataset(64, 2));
  const auto result = run.run();
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("--channels-last"), std::string::npos) << result.error().message;
}

struct Losses {
  std::vector<double> per_step;
  double test_accuracy = 0.0;
  std::string model;
};

Losses trainCnn(PrecisionMode precision, bool channels_last) {
  TrainConfig config;
  config.model.kind = "cnn";
  config.model.channels = {4, 8};
  config.model.fc = 16;
  config.model.channels_last = channels_last;
  config.precision = precision;
  config.data.batch_size = 32;
  config.data.augment = false;
  config.epochs = 1;
  config.seed = 7;
  auto backend = makeCpuBackend();
  TrainingRun run(*backend, config, makeSyntheticDataset(512, 1), makeSyntheticDataset(128, 2));
  Losses out;
  auto summary = run.run([&](const StepRecord& r, std::int64_t) {
    out.per_step.push_back(r.loss);
    return true;
  });
  EXPECT_TRUE(summary.ok()) << summary.error().message;
  if (summary.ok()) {
    out.test_accuracy = summary->test_accuracy;
    out.model = summary->model;
  }
  return out;
}

TEST(ChannelsLastTrainingTest, ACnnTrainedChannelsLastFollowsTheSameLossesAsChannelsFirst) {
  // The same model (the filters drawn in [k, c, r, s] order either way, the first linear layer's
  // columns following its flattened input) on the same batches: only the order of FP32 sums
  // differs, so the losses agree to about 1e-5 (a filter laid out wrong is 1e-2 off at step 0).
  for (PrecisionMode precision : {PrecisionMode::kFp32, PrecisionMode::kAmpFp16}) {
    const Losses first = trainCnn(precision, false);
    const Losses last = trainCnn(precision, true);
    ASSERT_EQ(first.per_step.size(), last.per_step.size());
    ASSERT_GE(first.per_step.size(), 10u);
    for (std::size_t i = 0; i < first.per_step.size(); ++i) {
      EXPECT_NEAR(last.per_step[i], first.per_step[i], 1e-4 * (1.0 + first.per_step[i])) << "step " << i;
    }
    EXPECT_NEAR(last.test_accuracy, first.test_accuracy, 0.02);
    EXPECT_LT(last.per_step.back(), 0.5 * last.per_step.front());  // it learns
    EXPECT_EQ(first.model.find("channels last"), std::string::npos);
    EXPECT_NE(last.model.find("channels last"), std::string::npos);
  }
}

}  // namespace
}  // namespace ampscope::trainer
