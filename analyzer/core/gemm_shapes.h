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

#include "analyzer/core/tensor_core_verdict.h"

namespace ampscope::analyzer {

using Shapes = std::vector<std::vector<std::int64_t>>;

// "[[35,20],[33278,200],[]]" -> {{35,20},{33278,200},{}}; nullopt for text that is not a list of
// integer lists (scalars and strings in the list become empty shapes).
std::optional<Shapes> parseShapes(std::string_view json);

// matmul, linear, addmm, bmm, conv... in PyTorch (aten::), PyProf and ampscope trainer spelling.
bool isTensorCoreEligibleOp(std::string_view op_name);

// Which of a GEMM's dimensions are the leading dimension (the row stride) of one of its matrices:
// A (M x K), B (K x N) or the result C (M x N). Only these decide whether cuBLAS can load its tiles
// with wide vectors (and, from Hopper on, through TMA): a row-major A of M x K has rows of K
// elements, and M, the number of rows, sets no alignment (docs/performance_model.md).
struct LeadingDims {
  bool m = false;
  bool n = false;
  bool k = false;
  bool operator==(const LeadingDims&) const = default;
};

struct GemmDims {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t batch = 1;
  bool convolution = false;  // n = output channels, k = input channels x filter size; m = batch x
                             // output positions, 0 where gemmDims alone cannot tell them
  std::int64_t input_channels = 0;  // convolutions: C, whose alignment matters with K
  // Which dimensions are leading ones, where the trace records the operands' strides (Kineto's
  // "Input Strides"). Unknown otherwise: a backward GEMM transposes what its forward did not, so
  // any of the three may be.
  std::optional<LeadingDims> leading;
};

// The leading dimensions of C = A x B from the strides of A's and B's last two axes: an operand
// whose next-to-last axis has stride 1 (and its last axis not) is column-major, a transposed
// view; any other is row-major, as cuBLAS gets it (PyTorch copies a strided one first). The result
// is written row-major, so N is always one. `b_as_transpose`: B is given as its transpose (linear's
// weight, [N, K]). Nullopt when either operand's strides are not recorded.
std::optional<LeadingDims> leadingDims(const std::vector<std::int64_t>* a_strides,
                                       const std::vector<std::int64_t>* b_strides, bool b_as_transpose);
// The same for the op inputs a and b, from the recorded strides (nullptr: none), each taken only
// where it is recorded for a tensor of the input's recorded rank.
std::optional<LeadingDims> leadingDimsOfInputs(const Shapes& shapes, const Shapes* strides, std::size_t a,
                                               std::size_t b, bool b_as_transpose);

// The GEMM an op performs, from its input shapes, and from its inputs' strides where recorded
// (nullptr: not); nullopt where the shapes do not say.
std::optional<GemmDims> gemmDims(std::string_view op_name, const Shapes& shapes, const Shapes* strides = nullptr);

// The multiple each GEMM dimension should be for the precision's Tensor Core kernels; FP32 on
// CUDA cores and unknown precisions get FP16's 8, the multiple AMP will want.
int requiredMultiple(MathPrecision precision);

struct DimensionFinding {
  std::string dimension;  // "M", "N", "K", "C" (input channels), "out channels"
  std::int64_t value = 0;
  std::int64_t padded = 0;  // the next multiple

  bool operator==(const DimensionFinding&) const = default;
};

// The dimensions that break the multiple: of a convolution its channel counts, of a GEMM its
// leading dimensions where they are known, else any of M, N and K.
std::vector<DimensionFinding> misalignedDimensions(const GemmDims& dims, int multiple);

// 2 x batch x M x N x K: a multiply-add is two FLOPs.
double gemmFlops(const GemmDims& dims);

// The GEMM with each finding's dimension at its padded size (input channels widen K with them).
GemmDims paddedDims(GemmDims dims, const std::vector<DimensionFinding>& misaligned);

}  // namespace ampscope::analyzer
