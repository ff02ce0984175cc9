#pragma once
// Per eligible operator call shape: its GEMM dimensions, the precision its kernels ran in, the
// dimensions that break that precision's multiple with the padded size to use, and the evidence
// in the kernel names (align1/align2 kernels chosen for the odd dimension).

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/core/gemm_shapes.h"
#include "analyzer/model/kernel_attribution.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct ShapeCheck {
  std::string op;       // the eligible operator, e.g. "aten::addmm"
  std::string shapes;   // its recorded input shapes
  std::string strides;  // its inputs' recorded strides (which dimensions lead), "" when not recorded
  std::string layer;    // the layer most of its time belongs to, where known
  GemmDims dims;
  std::uint64_t calls = 0;
  std::int64_t gpu_time_ns = 0;          // its kernels
  std::int64_t tensor_core_time_ns = 0;  // of which on Tensor Cores
  MathPrecision precision = MathPrecision::kUnknown;  // of most of its matrix-kernel time
  int required_multiple = 8;
  std::vector<DimensionFinding> misaligned;
  int smallest_kernel_alignment = 0;  // smallest "_alignN" among its kernels; 0 when none says
};

// Eligible ops with recorded shapes that launched kernels, by GPU time (largest first): each
// kernel adds to its shaped eligible op's (KernelOrigin::shaped_op) name, shapes and strides, with
// its verdict. Not a sum of the model's op rows, which key arguments, layer and pass too and give a
// kernel that is not matrix work to the op that launched it.
std::vector<ShapeCheck> checkShapes(const trace::Trace& trace, const KernelAttribution& kernels);

}  // namespace ampscope::analyzer
