#pragma once
// The output shape of a recorded convolution call when its arguments (stride, padding, dilation)
// were not recorded: from the grad_output shape of its backward op (linked by sequence number),
// else from the input of the op that consumed its output on the same thread. Never from an assumed
// stride. The backward op is found by Range::forward_range and by the autograd sequence number.
// Used by the per-op performance model (op_work.h) for the convolution's implicit GEMM M.

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "analyzer/model/op_work.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct InferredOutput {
  std::vector<std::int64_t> shape;  // [N, K, spatial...]
  WorkBasis basis = WorkBasis::kUnknown;  // kBackwardGradient or kConsumerInput
};

// `range`: a convolution op range with recorded shapes (input [N, C, spatial...], weight
// [K, C/groups, filter...]). nullopt when nothing in the trace tells its output.
// Each call scans the trace's ranges for the backward op; for many convolutions of one trace use
// ConvolutionOutputInference, which indexes the backward links once.
std::optional<InferredOutput> inferConvolutionOutput(const trace::Trace& trace, trace::Index range);

// The same inference for many ranges of one trace (which must outlive it): the backward ops are
// indexed by the forward range they link to and by sequence number, once.
class ConvolutionOutputInference {
 public:
  explicit ConvolutionOutputInference(const trace::Trace& trace);
  std::optional<InferredOutput> infer(trace::Index range) const;

 private:
  const trace::Trace& trace_;
  // Backward ranges ordered by the forward range they link to (Range::forward_range), and
  // backward roots (autograd nodes) by their sequence number.
  std::vector<std::pair<trace::Index, trace::Index>> backward_by_forward_;
  std::vector<std::pair<std::int64_t, trace::Index>> backward_by_sequence_;
};

}  // namespace ampscope::analyzer
