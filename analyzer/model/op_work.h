#pragma once
// The work of one op call: the FLOPs it does and the bytes it must move at least, from the shapes,
// dtypes and arguments recorded with it. GEMMs (mm, addmm, linear, matmul with broadcasting, bmm,
// baddbmm), convolutions with their stride, padding, dilation and groups, attention (SDPA, flash
// and memory-efficient, forward and backward) and their backward ops; element-wise and other
// memory-bound ops get bytes only. Where the record does not say (a convolution without its
// stride or output shape), the work is unknown and says why: a stride is never assumed.
// Dtypes and argument values come read, as the range normaliser read them at import
// (trace::Trace::range_values): nothing here parses text. Formulas and sources:
// docs/performance_model.md.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/core/gemm_shapes.h"
#include "trace/range_values.h"

namespace ampscope::analyzer {

// Where the work's numbers come from, for the evidence a view shows.
enum class WorkBasis : std::uint8_t {
  kUnknown,           // the record does not say enough
  kShapes,            // the input shapes say it all (GEMMs, attention, element-wise ops)
  kArguments,         // convolution geometry from the recorded arguments (Kineto "Concrete
                      // Inputs", PyProf args, the trainer's text)
  kOutputShape,       // convolution output positions from the op's recorded output shape
  kConsumerInput,     // ... from the input shape of the op that consumed its output
  kBackwardGradient,  // ... from the grad_output shape of its backward op
};
const char* workBasisName(WorkBasis basis);  // "unknown", "shapes", "arguments", ...

struct ConvGeometry {
  std::vector<std::int64_t> stride;    // one per spatial dimension
  std::vector<std::int64_t> padding;
  std::vector<std::int64_t> dilation;
  std::vector<std::int64_t> output_padding;  // transposed convolutions
  std::int64_t groups = 1;
  bool transposed = false;
};

// One op call as recorded.
struct OpCall {
  std::string_view op;         // normalised operator name: "aten::conv2d", "linear", "MmBackward0"
  const Shapes* shapes = nullptr;  // its input shapes (Range::shapes parsed); nullptr: none
  const Shapes* strides = nullptr;  // its inputs' strides (Range::strides parsed); nullptr: none
  // Its inputs' dtypes and its arguments' values (Kineto's "Concrete Inputs" form: one per schema
  // argument) as the range normaliser read them: trace.range_values.dtypes(range.dtypes) and
  // .arguments(range.arguments). nullptr: not recorded.
  const trace::RangeDtypes* dtypes = nullptr;
  const trace::RangeArguments* arguments = nullptr;
  // The op's output shape where something else tells it (see WorkBasis); empty otherwise.
  std::vector<std::int64_t> output_shape;
  WorkBasis output_basis = WorkBasis::kUnknown;
  // Bytes per element where the dtypes are not recorded: the size of the precision its kernels
  // ran in; 0: unknown, and so are the bytes.
  int element_bytes_fallback = 0;
  // The call is a layer's backward pass recorded with its forward shapes (the ampscope trainer's
  // "fc1 linear backward ..." ranges): matrix ops do their forward FLOPs twice (the gradients of
  // the input and of the weight), and every input's gradient is written.
  bool backward_pass = false;
};

struct OpWork {
  WorkBasis basis = WorkBasis::kUnknown;
  std::optional<double> flops;  // multiply-add = 2 FLOPs; nullopt: unknown (or not a math op)
  std::optional<double> bytes;  // every input read once, every output written once; nullopt: unknown
  std::optional<GemmDims> gemm;  // matrix ops: the GEMM (convolutions: implicit GEMM, M = batch x
                                 // output positions); per pass for backward ops: the largest
  std::optional<ConvGeometry> conv;
  bool matrix = false;      // the op's math can run on Tensor Cores (GEMM, convolution, attention)
  std::string note;         // why something is unknown, or what was assumed
};

OpWork opWork(const OpCall& call);

// The geometry in a convolution op's recorded arguments, read by the op's signature (aten::conv1d/
// 2d/3d, convolution, _convolution, cudnn_convolution, conv_transpose*, convolution_backward, ...);
// nullopt when the arguments are absent or the signature is not known.
std::optional<ConvGeometry> convGeometry(std::string_view op, const trace::RangeArguments& arguments,
                                         std::size_t spatial_dims);

// The op's own name: "aten::addmm" -> "addmm", "torch.nn.functional.softmax" -> "softmax",
// "autograd::engine::evaluate_function: MmBackward0" -> "MmBackward0".
std::string_view opBaseName(std::string_view op);

// An op that computes attention in one fused kernel, or whose kernels PyTorch chooses for it:
// scaled_dot_product_attention and its flash, memory-efficient, cuDNN and math implementations,
// the flash and efficient kernels' own ops (forward and backward), and nn.MultiheadAttention's
// fused fast path (_native_multi_head_attention). By base name or full name.
bool isFusedAttentionOp(std::string_view op_name);

// A forward convolution op (conv2d, convolution, _convolution, cudnn_convolution, conv_transpose2d,
// mkldnn/miopen variants, the trainer's "conv2d"); not their backward ops.
bool isForwardConvolutionOp(std::string_view op_name);

}  // namespace ampscope::analyzer
