#include <cblas.h>

#include <vector>

#include "trainer/backend/cpu/cpu_backend.h"
#include "trainer/instrumentation/range_marker.h"
#include "trainer/numerics/low_precision.h"

namespace ampscope::trainer {

namespace {

// A copy of count values as TF32 Tensor Cores read them.
std::vector<float> tf32Copy(const float* values, std::int64_t count) {
  std::vector<float> out(values, values + count);
  for (float& v : out) v = roundToTf32(v);
  return out;
}

}  // namespace

void CpuBackend::sgemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k,
                       float alpha, const float* a, const float* b, float beta, float* c, DType input_dtype) {
  std::vector<float> a_tf32;
  std::vector<float> b_tf32;
  if (tf32_ && input_dtype == DType::kFp32) {
    a_tf32 = tf32Copy(a, m * k);
    b_tf32 = tf32Copy(b, k * n);
    a = a_tf32.data();
    b = b_tf32.data();
  }
  cblas_sgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans, transpose_b ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a,
              static_cast<int>(transpose_a ? m : k), b, static_cast<int>(transpose_b ? k : n), beta, c,
              static_cast<int>(n));
}

void CpuBackend::gemm(const GemmCall& call, const Tensor& a, const Tensor& b, Tensor& c) {
  const ScopedHostOp host_op(HostOp::kGemm, a.dtype());
  const std::int64_t a_size = call.m * call.k;
  const std::int64_t b_size = call.k * call.n;
  const std::int64_t c_size = call.m * call.n;
  for (std::int64_t i = 0; i < call.batch; ++i) {
    float* out = c.cpuData() + i * c_size;
    sgemm(call.transpose_a, call.transpose_b, call.m, call.n, call.k, call.alpha, a.cpuData() + i * a_size,
          b.cpuData() + i * b_size, call.beta, out, a.dtype());
    // Accumulated in FP32; stored in C's type, as the epilogue of a Tensor Core GEMM does.
    roundAll(out, c_size, c.dtype());
  }
}

}  // namespace ampscope::trainer
