#include "analyzer/model/fused_attention_cost.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "analyzer/core/gemm_shapes.h"
#include "analyzer/model/op_time_model.h"
#include "analyzer/model/op_work.h"
#include "analyzer/normalise/range_values_reader.h"

namespace ampscope::analyzer {

namespace {

using Dims = std::vector<std::int64_t>;

// The kernels PyTorch's flash backward launches: dO·O per row, then dQ, dK and dV, then dQ
// converted from its FP32 accumulator.
constexpr int kBackwardKernels = 3;

std::string dtypeName(MathPrecision precision) {
  return precision == MathPrecision::kBf16 ? "c10::BFloat16" : "c10::Half";
}

std::string shapeText(const Dims& dims) {
  std::string text = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) text += (i == 0 ? "" : ",") + std::to_string(dims[i]);
  return text + "]";
}

}  // namespace

std::optional<FusedAttentionCost> estimateFusedAttention(const DeviceSpec& device, MathPrecision precision,
                                                         const AttentionShape& a, double mask_bytes) {
  if (a.batch <= 0 || a.query_length <= 0 || a.key_length <= 0 || a.head_size <= 0 || a.value_head_size <= 0) {
    return std::nullopt;
  }
  // [B, H, L, E], or [B x H, L, E] where the heads are folded into the batch: attention's work
  // takes every leading dimension as batch.
  Dims lead{a.batch};
  if (a.heads > 0) lead.push_back(a.heads);
  const auto tensor = [&](std::int64_t length, std::int64_t width) {
    Dims d = lead;
    d.push_back(length);
    if (width > 0) d.push_back(width);
    return shapeText(d);
  };
  const std::string q = tensor(a.query_length, a.head_size);
  const std::string k = tensor(a.key_length, a.head_size);
  const std::string v = tensor(a.key_length, a.value_head_size);
  const std::string o = tensor(a.query_length, a.value_head_size);
  const std::string half = "\"" + dtypeName(precision) + "\"";
  // The calls as Kineto records them, read as the range normaliser reads a trace's. is_causal
  // false: a mask, where there is one, is read whole.
  static const trace::RangeArguments kForwardArguments = import::readRangeArguments(R"(["","","","","0.0","False"])");
  static const trace::RangeArguments kBackwardArguments =
      import::readRangeArguments(R"(["","","","","","","","","","","0.0","False"])");
  const std::optional<Shapes> forward_shapes = parseShapes(fmt::format("[{},{},{}]", q, k, v));
  OpCall forward;
  forward.op = "aten::scaled_dot_product_attention";
  forward.shapes = forward_shapes ? &*forward_shapes : nullptr;
  const trace::RangeDtypes forward_dtypes = import::readRangeDtypes(fmt::format("[{0},{0},{0}]", half));
  forward.dtypes = &forward_dtypes;
  forward.arguments = &kForwardArguments;
  const OpWork forward_work = opWork(forward);
  const std::optional<Shapes> backward_shapes =
      parseShapes(fmt::format("[{},{},{},{},{},{}]", o, q, k, v, o, tensor(a.query_length, 0)));
  OpCall backward;
  backward.op = "aten::_scaled_dot_product_flash_attention_backward";
  backward.shapes = backward_shapes ? &*backward_shapes : nullptr;
  const trace::RangeDtypes backward_dtypes = import::readRangeDtypes(fmt::format("[{0},{0},{0},{0},{0},\"float\"]", half));
  backward.dtypes = &backward_dtypes;
  backward.arguments = &kBackwardArguments;
  const OpWork backward_work = opWork(backward);
  if (!forward_work.flops || !forward_work.bytes || !forward_work.gemm || !backward_work.flops ||
      !backward_work.bytes || !backward_work.gemm) {
    return std::nullopt;
  }
  // A fused kernel computes whole tiles of queries x keys per head, at least kFusedAttentionTileMin
  // on each side, so shorter sequences cost a tile's work; the time model's own tiles go down to
  // 64 x 32. The FLOPs grow with the tile; the efficiency below counts only the useful ones.
  const auto tiled = [&](const OpWork& work) {
    GemmDims dims = *work.gemm;
    const double pairs = static_cast<double>(dims.m) * static_cast<double>(dims.n);
    dims.m = std::max(dims.m, kFusedAttentionTileMin);
    dims.n = std::max(dims.n, kFusedAttentionTileMin);
    const double flops = *work.flops * static_cast<double>(dims.m) * static_cast<double>(dims.n) / pairs;
    return std::make_pair(dims, flops);
  };
  const auto [forward_dims, forward_flops] = tiled(forward_work);
  const auto [backward_dims, backward_flops] = tiled(backward_work);
  const auto f = estimateMatrixTime(device, precision, forward_dims, forward_flops, *forward_work.bytes + mask_bytes, 1);
  const auto b = estimateMatrixTime(device, precision, backward_dims, backward_flops,
                                    *backward_work.bytes + mask_bytes, kBackwardKernels);
  if (!f || !b || f->compute_ns <= 0) return std::nullopt;
  // The share of the peak its useful work runs at: the tiles' padding does none.
  const double efficiency = *forward_work.flops / (f->compute_ns * 1e-9) / (peakTflops(device, precision) * 1e12);
  return FusedAttentionCost{f->ns, b->ns, efficiency};
}

}  // namespace ampscope::analyzer
