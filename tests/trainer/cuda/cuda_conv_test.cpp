// cuDNN convolutions against the CPU's im2col + SGEMM, forward, backward data and backward filter,
// for FP32, TF32, FP16 and BF16 and a few geometries (padding, stride, 1x1, odd channel counts),
// each channels first (NCHW) and channels last (NHWC).
// Bounds scale with the same convolution taken over magnitudes (|x| * |w| and so on), computed on
// the CPU: FP32 sums of K terms in different orders, with room for the transforms of Winograd or
// FFT algorithms cuDNN may pick; 16-bit data may also hold intermediates in its own type (one
// rounding of the data type), and the output takes one rounding of its dtype.
#include <array>
#include <cmath>
#include <vector>

#include "tests/trainer/conv_geometry.h"
#include "tests/trainer/cuda/cuda_backend_fixture.h"

namespace ampscope::trainer::cuda_test {
namespace {

struct ConvPrecision {
  const char* name;
  DType dtype;
  bool tf32;
};

constexpr ConvPrecision kPrecisions[] = {{"fp32", DType::kFp32, false},
                                         {"tf32", DType::kFp32, true},
                                         {"fp16", DType::kFp16, false},
                                         {"bf16", DType::kBf16, false}};

ConvGeometry geometry(std::int64_t n, std::int64_t c, std::int64_t hw, std::int64_t k, std::int64_t rs,
                      std::int64_t stride, std::int64_t pad) {
  return test::convGeometry(n, c, hw, hw, k, rs, stride, pad);
}

const std::array<ConvGeometry, 4> kGeometries = {
    geometry(4, 3, 16, 8, 3, 1, 1),    // a first layer: 3 input channels
    geometry(2, 16, 12, 32, 3, 1, 1),  // Tensor Core friendly channel counts
    geometry(3, 5, 13, 7, 5, 2, 0),    // strided, odd sizes everywhere
    geometry(2, 24, 7, 16, 1, 1, 0),   // 1x1
};

// Each geometry channels first and channels last (NHWC activations, KRSC filters).
std::vector<ConvGeometry> inBothLayouts(const std::array<ConvGeometry, 4>& geometries) {
  std::vector<ConvGeometry> out;
  for (MemoryLayout layout : {MemoryLayout::kChannelsFirst, MemoryLayout::kChannelsLast}) {
    for (ConvGeometry g : geometries) {
      g.layout = layout;
      out.push_back(g);
    }
  }
  return out;
}

const std::vector<ConvGeometry> kLaidOutGeometries = inBothLayouts(kGeometries);

class CudaConvTest : public CudaBackendTest {
 protected:
  void SetUp() override {
    CudaBackendTest::SetUp();
    if (IsSkipped()) return;
    reference_ = makeCpuBackend();
  }

  // Same-shaped result of `run` on |inputs| in FP32 on a plain CPU backend.
  template <typename Run>
  std::vector<double> magnitudes(const Shape& a_shape, const std::vector<float>& a, const Shape& b_shape,
                                 const std::vector<float>& b, const Shape& out_shape, Run&& run) {
    Tensor ta = reference_->allocate(a_shape, DType::kFp32);
    Tensor tb = reference_->allocate(b_shape, DType::kFp32);
    Tensor out = reference_->allocate(out_shape, DType::kFp32);
    reference_->upload(absolute(a), ta);
    reference_->upload(absolute(b), tb);
    run(*reference_, ta, tb, out);
    const std::vector<float> values = reference_->download(out);
    return {values.begin(), values.end()};
  }

  void expectMatch(const TensorPair& out, const std::vector<double>& scale, std::int64_t terms,
                   const ConvPrecision& precision, const std::string& what) {
    const std::vector<float> expected = cpuValues(out);
    const double accumulation = static_cast<double>(std::max<std::int64_t>(terms, 64)) * std::ldexp(1.0, -20);
    double data_rounding = precision.dtype == DType::kFp32 ? 0.0 : 2.0 * unitSpacing(precision.dtype);
    if (precision.tf32) data_rounding = std::ldexp(1.0, -8);  // see cuda_gemm_test.cpp
    std::vector<double> bound(expected.size());
    for (std::size_t i = 0; i < bound.size(); ++i) {
      bound[i] = (accumulation + data_rounding) * scale[i] + unitSpacing(precision.dtype) * std::fabs(expected[i]) +
                 smallestValue(precision.dtype);
    }
    expectWithin(gpuValues(out), expected, bound, what);
  }

  std::unique_ptr<Backend> reference_;
};

std::string describe(const ConvPrecision& precision, const ConvGeometry& g) {
  return std::string(precision.name) + " n" + std::to_string(g.n) + " c" + std::to_string(g.c) + " hw" +
         std::to_string(g.h) + " k" + std::to_string(g.k) + " rs" + std::to_string(g.r) + " stride" +
         std::to_string(g.stride) + " pad" + std::to_string(g.pad) +
         (g.layout == MemoryLayout::kChannelsLast ? " NHWC" : " NCHW");
}

TEST_F(CudaConvTest, ForwardMatchesTheCpu) {
  std::uint32_t seed = 500;
  for (const ConvPrecision& precision : kPrecisions) {
    for (const ConvGeometry& g : kLaidOutGeometries) {
      setTf32(precision.tf32);
      const Shape x_shape{g.n, g.c, g.h, g.w};
      const Shape w_shape{g.k, g.c, g.r, g.s};
      const Shape y_shape{g.n, g.k, g.p(), g.q()};
      const TensorPair x = random(x_shape, precision.dtype, seed += 10);
      const TensorPair w = random(w_shape, precision.dtype, seed + 1);
      TensorPair y = zeros(y_shape, precision.dtype);
      cpu_->convForward(g, x.cpu, w.cpu, y.cpu);
      gpu_->convForward(g, x.gpu, w.gpu, y.gpu);
      const std::vector<double> scale = magnitudes(
          x_shape, cpuValues(x), w_shape, cpuValues(w), y_shape,
          [&](Backend& b, const Tensor& tx, const Tensor& tw, Tensor& out) { b.convForward(g, tx, tw, out); });
      expectMatch(y, scale, g.c * g.r * g.s, precision, "forward " + describe(precision, g));
    }
  }
}

TEST_F(CudaConvTest, BackwardDataMatchesTheCpu) {
  std::uint32_t seed = 600;
  for (const ConvPrecision& precision : kPrecisions) {
    for (const ConvGeometry& g : kLaidOutGeometries) {
      setTf32(precision.tf32);
      const Shape x_shape{g.n, g.c, g.h, g.w};
      const Shape w_shape{g.k, g.c, g.r, g.s};
      const Shape y_shape{g.n, g.k, g.p(), g.q()};
      const TensorPair dy = random(y_shape, precision.dtype, seed += 10);
      const TensorPair w = random(w_shape, precision.dtype, seed + 1);
      TensorPair dx = zeros(x_shape, precision.dtype);
      cpu_->convBackwardData(g, dy.cpu, w.cpu, dx.cpu);
      gpu_->convBackwardData(g, dy.gpu, w.gpu, dx.gpu);
      const std::vector<double> scale = magnitudes(
          y_shape, cpuValues(dy), w_shape, cpuValues(w), x_shape,
          [&](Backend& b, const Tensor& tdy, const Tensor& tw, Tensor& out) { b.convBackwardData(g, tdy, tw, out); });
      expectMatch(dx, scale, g.k * g.r * g.s, precision, "backward data " + describe(precision, g));
    }
  }
}

TEST_F(CudaConvTest, BackwardFilterMatchesTheCpu) {
  std::uint32_t seed = 700;
  for (const ConvPrecision& precision : kPrecisions) {
    for (const ConvGeometry& g : kLaidOutGeometries) {
      setTf32(precision.tf32);
      const Shape x_shape{g.n, g.c, g.h, g.w};
      const Shape w_shape{g.k, g.c, g.r, g.s};
      const Shape y_shape{g.n, g.k, g.p(), g.q()};
      const TensorPair x = random(x_shape, precision.dtype, seed += 10);
      const TensorPair dy = random(y_shape, precision.dtype, seed + 1);
      TensorPair dw = zeros(w_shape, precision.dtype);
      cpu_->convBackwardFilter(g, x.cpu, dy.cpu, dw.cpu);
      gpu_->convBackwardFilter(g, x.gpu, dy.gpu, dw.gpu);
      const std::vector<double> scale = magnitudes(
          x_shape, cpuValues(x), y_shape, cpuValues(dy), w_shape,
          [&](Backend& b, const Tensor& tx, const Tensor& tdy, Tensor& out) { b.convBackwardFilter(g, tx, tdy, out); });
      expectMatch(dw, scale, g.n * g.p() * g.q(), precision, "backward filter " + describe(precision, g));
    }
  }
}

// FP16 activations with an FP32 filter gradient (master weights): cuDNN takes one data type, so
// the backend widens the operands; the result must still be the CPU's.
TEST_F(CudaConvTest, MixedDtypesRunThroughFp32) {
  const ConvGeometry& g = kGeometries[1];
  const Shape x_shape{g.n, g.c, g.h, g.w};
  const Shape w_shape{g.k, g.c, g.r, g.s};
  const Shape y_shape{g.n, g.k, g.p(), g.q()};
  const TensorPair x = random(x_shape, DType::kFp16, 800);
  const TensorPair dy = random(y_shape, DType::kFp16, 801);
  TensorPair dw = zeros(w_shape, DType::kFp32);
  cpu_->convBackwardFilter(g, x.cpu, dy.cpu, dw.cpu);
  gpu_->convBackwardFilter(g, x.gpu, dy.gpu, dw.gpu);
  const std::vector<double> scale = magnitudes(
      x_shape, cpuValues(x), y_shape, cpuValues(dy), w_shape,
      [&](Backend& b, const Tensor& tx, const Tensor& tdy, Tensor& out) { b.convBackwardFilter(g, tx, tdy, out); });
  expectMatch(dw, scale, g.n * g.p() * g.q(), kPrecisions[0], "fp16 x, dy -> fp32 dw");
}

}  // namespace
}  // namespace ampscope::trainer::cuda_test
