#pragma once
// The time model's estimate of attention as one fused kernel (torch.nn.functional.
// scaled_dot_product_attention): the SDPA op's work (op_work.h: the two matrix products' FLOPs, Q,
// K, V read and O written, no scores in memory) priced by op_time_model.h as one kernel, its
// backward as PyTorch's flash backward (FlashAttention-2's five products, three kernels). A fused
// kernel computes whole tiles of queries x keys per head, so sequences shorter than the smallest
// tile cost a tile's work. Bounds against published kernels: docs/performance_model.md, "Attention
// computed in pieces".

#include <cstdint>
#include <optional>

#include "analyzer/core/device_table.h"
#include "analyzer/core/tensor_core_verdict.h"

namespace ampscope::analyzer {

// The smallest tile of queries x keys per head a fused attention kernel computes (the
// memory-efficient kernel's blocks at small head sizes; FlashAttention's take 128 query rows or more).
inline constexpr std::int64_t kFusedAttentionTileMin = 64;

struct AttentionShape {
  std::int64_t batch = 1;  // B, or B x H where heads is 0
  std::int64_t heads = 0;
  std::int64_t query_length = 0;
  std::int64_t key_length = 0;
  std::int64_t head_size = 0;
  std::int64_t value_head_size = 0;
};

struct FusedAttentionCost {
  double forward_ns = 0;   // one call
  double backward_ns = 0;  // its backward
  double efficiency = 0;   // the forward's useful FLOPs' share of the precision's peak
};

// Not causal; `mask_bytes`: a mask the kernel reads besides Q, K and V (0: none). nullopt where
// the time model has no rate for the precision on the device or the shape is empty.
std::optional<FusedAttentionCost> estimateFusedAttention(const DeviceSpec& device, MathPrecision precision,
                                                         const AttentionShape& shape, double mask_bytes = 0);

}  // namespace ampscope::analyzer
