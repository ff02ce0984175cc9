#pragma once
// Attention computed in pieces: a matrix op that gives each head's scores [..., Sq, Sk], an
// optional scale and mask, a softmax over the last dimension (and dropout), then a matrix op that
// takes the probabilities with V. The Sq x Sk scores pass through memory several times (written
// by the first GEMM, read and written by each element-wise step and the softmax, read by the second
// GEMM), where one fused kernel (torch.nn.functional.scaled_dot_product_attention) keeps them on
// chip and reads Q, K, V and writes O once.
//
// Found from the normalised op fields alone: the ops' nesting and order on their thread, and the
// shapes chaining (the first GEMM's output is the softmax's input, the softmax's output the second
// GEMM's first input); inside the module the first GEMM runs in where the trace names modules.
// Each call's kernels are measured, with those of its backward where the trace links backward ops
// to their forward ops; the time model estimates the same attention as one fused kernel. One group
// per attention shape, listing the layers that compute it. Model and bounds:
// docs/performance_model.md, "Attention computed in pieces".

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/core/device_table.h"
#include "analyzer/core/tensor_core_verdict.h"
#include "analyzer/correlate/iterations.h"
#include "analyzer/model/kernel_attribution.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

// The calls of one attention shape computed in pieces, over the whole trace.
struct UnfusedAttention {
  // Per head, Sq x Sk scores of E-wide queries and keys, and Ev-wide values.
  std::int64_t batch = 0;  // B; B x H where the shapes fold the heads into the batch (heads 0)
  std::int64_t heads = 0;  // H; 0 where the shapes do not keep it apart from the batch
  std::int64_t query_length = 0;     // Sq
  std::int64_t key_length = 0;       // Sk
  std::int64_t head_size = 0;        // E
  std::int64_t value_head_size = 0;  // Ev
  std::vector<std::int64_t> scores_shape;  // as the softmax took it: [B, H, Sq, Sk] or [B x H, Sq, Sk]
  MathPrecision precision = MathPrecision::kUnknown;  // the pieces' matrix kernels (else their dtypes)
  // The fused estimate's precision: the pieces' own in FP16/BF16, else what AMP would use on the
  // device (the fused kernels run in half precision): then the gain includes AMP's.
  MathPrecision fused_precision = MathPrecision::kUnknown;
  bool includes_amp = false;
  std::vector<std::string> ops;     // the pieces of its heaviest call, in order: "aten::matmul", "aten::mul", ...
  std::vector<std::string> layers;  // the modules that compute it, heaviest first; empty where none is named
  bool masked = false;              // a mask or bias is added to the scores
  bool in_multi_head_attention = false;  // the pieces run inside multi_head_attention_forward
  std::uint64_t calls = 0;          // forward calls
  std::uint64_t backward_calls = 0; // of them, those whose backward ops the trace links back
  // Measured: the pieces' kernels over the trace (a piece's op with every op nested in it).
  std::int64_t gemm_ns = 0;         // both matrix ops, with the copies they make of their operands
  std::int64_t softmax_ns = 0;
  std::int64_t elementwise_ns = 0;  // scale, mask, dropout, casts
  std::int64_t backward_ns = 0;     // the backward ops of every piece
  double scores_bytes = 0;          // one call's Sq x Sk scores, in their element size

  // The estimate as one fused kernel per call (and its backward where the pieces had one), over the
  // trace; nullopt where it cannot be made (`note` says why).
  std::optional<std::int64_t> fused_forward_ns;
  std::optional<std::int64_t> fused_backward_ns;
  double fused_efficiency = 0;  // of the fused precision's Tensor Core peak, forward, by the time model
  // The smallest tile of queries x keys per head the estimate lets a fused kernel compute: shorter
  // sequences cost a whole tile's work (docs/performance_model.md). 0 where not estimated.
  std::int64_t fused_tile_min = 0;

  // Per step (per window of GPU work without steps).
  std::int64_t measured_ns_per_step = 0;
  std::int64_t fused_ns_per_step = 0;  // 0 where not estimated
  std::int64_t gain_ns_per_step = 0;   // measured - fused where estimated (may be negative); 0 otherwise
  std::string note;

  std::int64_t measuredNs() const { return gemm_ns + softmax_ns + elementwise_ns + backward_ns; }
  bool estimated() const { return fused_forward_ns.has_value(); }
};

// Every attention shape computed in pieces, largest gain first (then most measured time). Empty on
// a CPU run. `device`: the recorded device (chooseRecordedDevice); unknown leaves the estimate out.
// `kernels`: the run's per-kernel table, whose verdicts say which precision the pieces' math ran in.
std::vector<UnfusedAttention> findUnfusedAttention(const trace::Trace& trace, const IterationSummary& iterations,
                                                   const DeviceChoice& device, bool recorded_on_cpu,
                                                   const KernelAttribution& kernels);

}  // namespace ampscope::analyzer
