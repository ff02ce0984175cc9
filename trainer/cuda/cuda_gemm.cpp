// GEMM through cublasGemmStridedBatchedEx with FP32 accumulation (TF32 Tensor Cores for FP32
// inputs in the tf32 mode). cuBLAS is column-major: a row-major matrix is its transpose there, so
// row-major C = op(A) op(B) is computed as column-major C^T = op(B)^T op(A)^T, i.e. with the
// operands swapped and the same transpose flags.
#include "trainer/cuda/cuda_backend_impl.h"
#include "trainer/cuda/cuda_check.h"

namespace ampscope::trainer::cuda {

namespace {

cudaDataType_t cublasType(DType dtype) {
  switch (dtype) {
    case DType::kFp16: return CUDA_R_16F;
    case DType::kBf16: return CUDA_R_16BF;
    case DType::kFp32: break;
  }
  return CUDA_R_32F;
}

}  // namespace

void CudaBackend::gemm(const GemmCall& call, const Tensor& a, const Tensor& b, Tensor& c) {
  if (call.m == 0 || call.n == 0 || call.batch == 0) return;
  // The CPU backend rounds FP32 inputs to TF32 only when A is FP32; so does this.
  const bool tf32 = tf32_ && a.dtype() == DType::kFp32;
  // cuBLAS takes A and B of one type and C of that type or FP32. Other mixes run on FP32 copies:
  // widening the inputs is exact and C is rounded once at the end, as on the CPU.
  const bool same_inputs = a.dtype() == b.dtype();
  const Tensor a_in = same_inputs ? a : castTensor(*this, a, DType::kFp32);
  const Tensor b_in = same_inputs ? b : castTensor(*this, b, DType::kFp32);
  const bool c_direct = c.dtype() == DType::kFp32 || c.dtype() == a_in.dtype();
  Tensor c_out = c_direct ? c : castTensor(*this, c, DType::kFp32);  // beta may read C

  const int rows = checkedInt(call.n, "gemm n");  // of column-major C^T
  const int cols = checkedInt(call.m, "gemm m");
  const int inner = checkedInt(call.k, "gemm k");
  const int ld_b = checkedInt(call.transpose_b ? call.k : call.n, "gemm ldb");
  const int ld_a = checkedInt(call.transpose_a ? call.m : call.k, "gemm lda");
  const auto stride_a = static_cast<long long>(call.m * call.k);
  const auto stride_b = static_cast<long long>(call.k * call.n);
  const auto stride_c = static_cast<long long>(call.m * call.n);
  const float alpha = call.alpha;
  const float beta = call.beta;
  AMPSCOPE_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
      cublas_.get(), call.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N, call.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N, rows,
      cols, inner, &alpha, readView(b_in).data, cublasType(b_in.dtype()), ld_b, stride_b, readView(a_in).data,
      cublasType(a_in.dtype()), ld_a, stride_a, &beta, writeView(c_out).data, cublasType(c_out.dtype()), rows,
      stride_c, checkedInt(call.batch, "gemm batch"), tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
      CUBLAS_GEMM_DEFAULT));
  if (!c_direct) copy(c_out, c);
}

}  // namespace ampscope::trainer::cuda
