#pragma once
// Ties every GPU record to the host: kernel/memcpy -> launch call (correlation id, runtime or
// driver API) -> innermost operator range enclosing the launch on the launching thread -> layer
// and phase. Kineto's "External id" is deliberately not used: in some years it names the
// operator and in others it equals the correlation id; time containment is the truth.
// Correlation ids are per process: a GPU record links to a launch of its own process.

#include <cstdint>

#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct CorrelationCounts {
  std::uint64_t kernels = 0;
  std::uint64_t kernels_linked_to_launch = 0;
  std::uint64_t kernels_attributed_to_op = 0;
  std::uint64_t memory_ops = 0;
  std::uint64_t memory_ops_linked_to_launch = 0;
  std::uint64_t launches = 0;
  std::uint64_t launches_in_op = 0;
  std::uint64_t backward_ranges_linked_to_forward = 0;
};

// Fills the derived fields of trace (Range::parent/depth/phase/layer/forward_range,
// LaunchCall::op_range, Kernel/MemoryOp::launch/op_range, MemoryEvent::op_range,
// KernelMetrics::launch/kernel: kernel_metric_links.h) and
// import_stats.gpu_records_without_launch. Expects trace.sortByTime() to have run and the ranges
// normalised (import/range_normaliser.h: the importers do both). `threads` as --threads (0: every
// hardware thread): above 1, the GPU records are tied to their launches beside the ranges' work.
CorrelationCounts correlate(trace::Trace& trace, unsigned threads = 1);

// The outermost operator above range (itself when it has no operator parent): the call the
// user wrote (aten::linear) rather than what it dispatched to (aten::addmm).
trace::Index topLevelOperator(const trace::Trace& trace, trace::Index range);

}  // namespace ampscope::analyzer
