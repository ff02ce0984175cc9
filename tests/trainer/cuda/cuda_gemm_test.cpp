// cuBLAS GEMM against the CPU's OpenBLAS on the same rounded inputs, for every transpose, each
// input precision (FP32, TF32, FP16, BF16), FP32 or low-precision C, alpha/beta and batches.
// Bounds: both sides accumulate in FP32, in different orders, so a value may differ by k * 2^-23
// of sum |a||b| (the worst case of two FP32 summations); TF32 adds the difference between the
// Tensor Cores' reading of an FP32 input and the CPU's round-to-nearest TF32 (up to 2^-10 per
// input); a low-precision C adds one rounding step of its dtype.
#include <cmath>

#include "tests/trainer/cuda/cuda_backend_fixture.h"

namespace ampscope::trainer::cuda_test {
namespace {

struct GemmPrecision {
  const char* name;
  DType inputs;
  DType output;
  bool tf32;
};

constexpr GemmPrecision kPrecisions[] = {
    {"fp32", DType::kFp32, DType::kFp32, false},      {"tf32", DType::kFp32, DType::kFp32, true},
    {"fp16", DType::kFp16, DType::kFp16, false},      {"fp16->fp32", DType::kFp16, DType::kFp32, false},
    {"bf16", DType::kBf16, DType::kBf16, false},      {"bf16->fp32", DType::kBf16, DType::kFp32, false},
    {"fp32->fp16 (no cuBLAS type)", DType::kFp32, DType::kFp16, false},
};

// sum over l of |op(A)[i,l]| |op(B)[l,j]|, times |alpha|, plus |beta| |C0[i,j]|: the scale of the
// rounding errors of C[i,j].
std::vector<double> magnitudes(const GemmCall& call, const std::vector<float>& a, const std::vector<float>& b,
                               const std::vector<float>& c0) {
  std::vector<double> out(static_cast<std::size_t>(call.batch * call.m * call.n));
  for (std::int64_t t = 0; t < call.batch; ++t) {
    const float* at = a.data() + t * call.m * call.k;
    const float* bt = b.data() + t * call.k * call.n;
    for (std::int64_t i = 0; i < call.m; ++i) {
      for (std::int64_t j = 0; j < call.n; ++j) {
        double sum = 0;
        for (std::int64_t l = 0; l < call.k; ++l) {
          const float av = call.transpose_a ? at[l * call.m + i] : at[i * call.k + l];
          const float bv = call.transpose_b ? bt[j * call.k + l] : bt[l * call.n + j];
          sum += std::fabs(static_cast<double>(av) * bv);
        }
        const std::size_t at_c = static_cast<std::size_t>((t * call.m + i) * call.n + j);
        out[at_c] = std::fabs(call.alpha) * sum + std::fabs(call.beta) * std::fabs(c0[at_c]);
      }
    }
  }
  return out;
}

class CudaGemmTest : public CudaBackendTest {
 protected:
  void check(const GemmCall& call, const GemmPrecision& precision, std::uint32_t seed) {
    const std::string what = std::string(precision.name) + (call.transpose_a ? " A^T" : " A") +
                             (call.transpose_b ? " B^T" : " B") + " m" + std::to_string(call.m) + " n" +
                             std::to_string(call.n) + " k" + std::to_string(call.k) + " batch" +
                             std::to_string(call.batch);
    setTf32(precision.tf32);
    const TensorPair a = random({call.batch, call.m * call.k}, precision.inputs, seed);
    const TensorPair b = random({call.batch, call.k * call.n}, precision.inputs, seed + 1);
    TensorPair c = random({call.batch, call.m * call.n}, precision.output, seed + 2);
    const std::vector<float> c0 = cpuValues(c);
    cpu_->gemm(call, a.cpu, b.cpu, c.cpu);
    gpu_->gemm(call, a.gpu, b.gpu, c.gpu);

    const std::vector<double> scale = magnitudes(call, cpuValues(a), cpuValues(b), c0);
    const double accumulation = static_cast<double>(call.k + 2) * std::ldexp(1.0, -23);
    const double input_reading = precision.tf32 ? std::ldexp(1.0, -8) : 0.0;
    const std::vector<float> expected = cpuValues(c);
    std::vector<double> bound(expected.size());
    for (std::size_t i = 0; i < bound.size(); ++i) {
      bound[i] = (accumulation + input_reading) * scale[i] + unitSpacing(precision.output) * std::fabs(expected[i]) +
                 smallestValue(precision.output);
    }
    expectWithin(gpuValues(c), expected, bound, what);
  }
};

TEST_F(CudaGemmTest, MatchesTheCpuForEveryTransposeAndPrecision) {
  std::uint32_t seed = 100;
  for (const GemmPrecision& precision : kPrecisions) {
    for (bool transpose_a : {false, true}) {
      for (bool transpose_b : {false, true}) {
        GemmCall call;
        call.transpose_a = transpose_a;
        call.transpose_b = transpose_b;
        call.m = 37;  // not multiples of 8: the shapes the advisor flags must still compute right
        call.n = 29;
        call.k = 53;
        check(call, precision, seed += 10);
      }
    }
  }
}

TEST_F(CudaGemmTest, MatchesTheCpuOnTensorCoreFriendlyShapes) {
  std::uint32_t seed = 200;
  for (const GemmPrecision& precision : kPrecisions) {
    GemmCall call;
    call.m = 64;
    call.n = 96;
    call.k = 256;
    check(call, precision, seed += 10);
  }
}

TEST_F(CudaGemmTest, AppliesAlphaAndBetaToEveryMatrixOfABatch) {
  std::uint32_t seed = 300;
  for (const GemmPrecision& precision : kPrecisions) {
    for (bool transpose_b : {false, true}) {
      GemmCall call;
      call.transpose_b = transpose_b;
      call.m = 16;
      call.n = 24;
      call.k = 40;
      call.batch = 5;
      call.alpha = 0.5f;
      call.beta = -0.75f;
      check(call, precision, seed += 10);
    }
  }
}

// A layer's weight gradient: dW = dY^T X, a long reduction over the batch.
TEST_F(CudaGemmTest, HandlesALongReduction) {
  GemmCall call;
  call.transpose_a = true;
  call.m = 10;
  call.n = 128;
  call.k = 4096;
  check(call, kPrecisions[0], 400);
  check(call, kPrecisions[2], 401);
}

}  // namespace
}  // namespace ampscope::trainer::cuda_test
