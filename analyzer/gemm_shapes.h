#pragma once
// Matrix shapes of the operators that can run on Tensor Cores: which ops are eligible, their GEMM
// dimensions from the recorded input shapes, and which dimensions break the multiple that the
// precision wants (FP16/BF16: 8, TF32: 4, INT8/FP8: 16). Since cuBLAS 11 an odd dimension no
// longer switches Tensor Cores off; it selects slower align1/align2 kernels and wastes tiles, so
// the finding is a cost and a padded size, not a verdict.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/tensor_core_rules.h"

namespace ampscope::analyzer {

using Shapes = std::vector<std::vector<std::int64_t>>;

// "[[35,20],[33278,200],[]]" -> {{35,20},{33278,200},{}}; nullopt for text that is not a list of
// integer lists (scalars and strings in the list become empty shapes).
std::optional<Shapes> parseShapes(std::string_view json);

// matmul, linear, addmm, bmm, conv... in PyTorch (aten::), PyProf and ampscope trainer spelling.
bool isTensorCoreEligibleOp(std::string_view op_name);

struct GemmDims {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t batch = 1;
  bool convolution = false;  // n = output channels, k = input channels x filter size; m = batch x
                             // output positions, 0 where gemmDims alone cannot tell them
  std::int64_t input_channels = 0;  // convolutions: C, whose alignment matters with K
};

// The GEMM an op performs, from its input shapes; nullopt where the shapes do not say.
std::optional<GemmDims> gemmDims(std::string_view op_name, const Shapes& shapes);

// The multiple each GEMM dimension should be for the precision's Tensor Core kernels; FP32 on
// CUDA cores and unknown precisions get FP16's 8, the multiple AMP will want.
int requiredMultiple(MathPrecision precision);

struct DimensionFinding {
  std::string dimension;  // "M", "N", "K", "C" (input channels), "out channels"
  std::int64_t value = 0;
  std::int64_t padded = 0;  // the next multiple
};

std::vector<DimensionFinding> misalignedDimensions(const GemmDims& dims, int multiple);

// 2 x batch x M x N x K: a multiply-add is two FLOPs.
double gemmFlops(const GemmDims& dims);

// The GEMM with each finding's dimension at its padded size (input channels widen K with them).
GemmDims paddedDims(GemmDims dims, const std::vector<DimensionFinding>& misaligned);

}  // namespace ampscope::analyzer
