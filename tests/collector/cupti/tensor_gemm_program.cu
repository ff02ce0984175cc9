// A program that knows nothing of ampscope and keeps the tensor pipe busy: FP16 matrix products
// with FP32 accumulation through warp MMA (WMMA), repeated for a few tens of milliseconds, so that
// `ampscope record --metrics tensor` has tensor-pipe activity to sample. Exits 77 where no device
// is visible, for the test to skip.

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cstdio>
#include <cstdlib>

namespace {

constexpr int kSize = 2048;  // square matrices, a multiple of the 16x16x16 tile
constexpr int kTile = 16;
constexpr int kRepeats = 40;

// One warp computes one 16x16 tile of C = A * B (A row-major, B column-major).
__global__ void wmmaGemm(const half* a, const half* b, float* c, int n) {
  using namespace nvcuda;
  const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / warpSize);
  const int tiles = n / kTile;
  if (warp >= tiles * tiles) return;
  const int row = (warp / tiles) * kTile;
  const int col = (warp % tiles) * kTile;
  wmma::fragment<wmma::matrix_a, kTile, kTile, kTile, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, kTile, kTile, kTile, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, kTile, kTile, kTile, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < n; k += kTile) {
    wmma::load_matrix_sync(fa, a + row * n + k, n);
    wmma::load_matrix_sync(fb, b + col * n + k, n);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c + row * n + col, acc, n, wmma::mem_row_major);
}

__global__ void fill(half* data, int count, float value) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < count) data[i] = __float2half(value);
}

bool check(cudaError_t result, const char* what) {
  if (result == cudaSuccess) return true;
  std::fprintf(stderr, "tensor_gemm_program: %s: %s\n", what, cudaGetErrorString(result));
  return false;
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "tensor_gemm_program: no CUDA device\n");
    return 77;
  }
  const int count = kSize * kSize;
  half* a = nullptr;
  half* b = nullptr;
  float* c = nullptr;
  if (!check(cudaMalloc(&a, count * sizeof(half)), "cudaMalloc") || !check(cudaMalloc(&b, count * sizeof(half)), "cudaMalloc") ||
      !check(cudaMalloc(&c, count * sizeof(float)), "cudaMalloc")) {
    return 1;
  }
  fill<<<(count + 255) / 256, 256>>>(a, count, 0.5f);
  fill<<<(count + 255) / 256, 256>>>(b, count, 0.25f);
  const int warps = (kSize / kTile) * (kSize / kTile);
  const int threads = 256;
  const int blocks = (warps * 32 + threads - 1) / threads;
  for (int i = 0; i < kRepeats; ++i) wmmaGemm<<<blocks, threads>>>(a, b, c, kSize);
  if (!check(cudaDeviceSynchronize(), "the GEMMs")) return 1;
  float corner = 0.0f;
  if (!check(cudaMemcpy(&corner, c, sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy")) return 1;
  // Each element sums kSize products of 0.5 * 0.25.
  if (corner != kSize * 0.125f) {
    std::fprintf(stderr, "tensor_gemm_program: C[0][0] is %g, expected %g\n", corner, kSize * 0.125f);
    return 1;
  }
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return 0;
}
