#pragma once
// The output shape of a recorded convolution call when its arguments (stride, padding, dilation)
// were not recorded: from the grad_output shape of its backward op (linked by sequence number),
// else from the input of the op that consumed its output on the same thread. Never from an assumed
// stride. Used by the per-op performance model (op_work.h) for the convolution's implicit GEMM M.

#include <cstdint>
#include <optional>
#include <vector>

#include "analyzer/op_work.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct InferredOutput {
  std::vector<std::int64_t> shape;  // [N, K, spatial...]
  WorkBasis basis = WorkBasis::kUnknown;  // kBackwardGradient or kConsumerInput
};

// `range`: a convolution op range with recorded shapes (input [N, C, spatial...], weight
// [K, C/groups, filter...]). nullopt when nothing in the trace tells its output.
std::optional<InferredOutput> inferConvolutionOutput(const trace::Trace& trace, trace::Index range);

}  // namespace ampscope::analyzer
