#pragma once
// Which kind of GEMM kernel a name says cuBLAS (or CUTLASS) ran, and what that says of the FP32
// path of an op. For small and skinny products cuBLAS runs FP32 on kernels made for few output
// tiles (small SIMT tiles, gemmSN for a few columns, sgemm_largek's split over K, batched GEMVs):
// these fall well short of what the FP32 model expects, while the same shapes in FP16/BF16 run
// Tensor Core kernels of their own (nvjet's 64x8 tiles, wmma 16x16...) that do not share the
// shortfall. The AMP prediction then takes the half-precision time from its own model rather than
// scaling it by the FP32 kernel's shortfall (docs/performance_model.md, "Small and skinny GEMMs").

#include <cstdint>
#include <string_view>

#include "analyzer/core/gemm_shapes.h"

namespace ampscope::analyzer {

enum class GemmKernelFamily : std::uint8_t {
  kUnknown,       // no pattern places it: not a GEMM kernel (split-K reduce, scal, epilogue) or
                  // a GEMM kernel whose name does not say its tile
  kLargeTile,     // a tiled GEMM whose block tile is 128x64 or more (sgemm_128x64, tilesize256x128x8)
  kSmallTile,     // a tiled GEMM with a smaller tile (sgemm_32x32_sliced1x4, tilesize32x32x8,
                  // simt_sgemm_64x64, sgemm_32x128)
  kSmallN,        // gemmSN_*: cuBLAS's kernels for a product with a few columns
  kSplitLargeK,   // sgemm_largek_*: a small output over a long K, split across blocks
  kGemv,          // gemv*, dot_kernel: a matrix times a vector (or a few)
  kOuterProduct,  // gemmk1_*: K = 1
};
inline constexpr std::size_t kGemmKernelFamilyCount = static_cast<std::size_t>(GemmKernelFamily::kOuterProduct) + 1;

// "unknown", "large_tile", "small_tile", "small_n", "split_large_k", "gemv", "outer_product"
const char* gemmKernelFamilyName(GemmKernelFamily family);

// From the kernel's name as the trace has it (demangled, with or without its arguments).
GemmKernelFamily gemmKernelFamily(std::string_view kernel_name);

// Whether an op's FP32 CUDA-core path (its GEMM kernels' family; `dims` its GEMM, on a device of
// `sm_count` SMs) is one that falls short of the FP32 model where FP16/BF16 Tensor Core kernels do
// not: small tiles, gemmSN, sgemm_largek, a GEMV over several columns. Where the name does not
// tell (unknown, or large tiles), the shape does: fewer than 64 rows or columns, or fewer output
// tiles of 128x64 than SMs, leave each SM a lone block, a small tile or a split of K, and no
// SIMT kernel reaches its peak so. Not a GEMV over one column (nor K = 1): half precision runs
// the same kind of kernel, and what it gains is its bytes. Not a convolution (cuDNN's kernels).
bool fp32PathFallsShort(GemmKernelFamily family, const GemmDims& dims, int sm_count);

}  // namespace ampscope::analyzer
