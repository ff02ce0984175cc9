#include "analyzer/advice/attention_advice.h"

#include <fmt/format.h>

namespace ampscope::analyzer {

namespace {

constexpr std::size_t kLayersNamed = 4;

std::string ms(std::int64_t ns) { return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6); }

std::string bytesText(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.1f} MB", bytes / 1e6);
  return fmt::format("{:.0f} kB", bytes / 1e3);
}

std::string dimsText(const std::vector<std::int64_t>& dims) {
  std::string text = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) text += fmt::format("{}{}", i == 0 ? "" : ", ", dims[i]);
  return text + "]";
}

std::string joined(const std::vector<std::string>& items, std::string_view separator) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : std::string(separator)) + item;
  return text;
}

// "B=8, H=12, S=3137, E=64": what the shapes say of the batch, heads, lengths and head sizes.
std::string shapeText(const UnfusedAttention& a) {
  std::string text = a.heads > 0 ? fmt::format("B={}, H={}", a.batch, a.heads)
                                 : fmt::format("B x H={} (heads folded into the batch)", a.batch);
  text += a.query_length == a.key_length ? fmt::format(", S={}", a.query_length)
                                         : fmt::format(", Sq={}, Sk={}", a.query_length, a.key_length);
  text += a.head_size == a.value_head_size ? fmt::format(", E={}", a.head_size)
                                           : fmt::format(", E={}, Ev={}", a.head_size, a.value_head_size);
  return text;
}

std::string layersText(const UnfusedAttention& a) {
  if (a.layers.empty()) return ", found by the ops' nesting, order and shapes on their thread (the trace names no modules)";
  std::string names;
  for (std::size_t i = 0; i < a.layers.size() && i < kLayersNamed; ++i) names += (i == 0 ? "" : ", ") + a.layers[i];
  if (a.layers.size() > kLayersNamed) names += fmt::format(" and {} more", a.layers.size() - kLayersNamed);
  return fmt::format(" in {} layer{}: {}", a.layers.size(), a.layers.size() == 1 ? "" : "s", names);
}

std::string measuredText(const UnfusedAttention& a, double steps, std::string_view per) {
  const auto step = [&](std::int64_t ns) { return ms(static_cast<std::int64_t>(static_cast<double>(ns) / steps)); };
  std::string text = fmt::format("its pieces' kernels take {} {} (matrix ops {}, softmax {}, scale/mask/dropout {}",
                                 ms(a.measured_ns_per_step), per, step(a.gemm_ns), step(a.softmax_ns),
                                 step(a.elementwise_ns));
  if (a.backward_calls > 0) text += fmt::format(", their backward {}", step(a.backward_ns));
  return text + ")";
}

std::string estimateText(const UnfusedAttention& a, const TraceSummary& s, std::string_view per) {
  const std::string device = s.device.spec ? s.device.spec->name : std::string("the device");
  const bool padded = a.query_length < a.fused_tile_min || a.key_length < a.fused_tile_min;
  const double percent = 100.0 * a.fused_efficiency;
  std::string text = fmt::format(
      "the time model puts scaled_dot_product_attention at {} {} on {}: one FlashAttention-class kernel per call{} "
      "at {:.{}f}% of the {} Tensor Core peak, doing the two matrix products' 2*B*H*Sq*Sk*(E+Ev) FLOPs and reading "
      "Q, K and V{} and writing O once, with no Sq x Sk scores in memory",
      ms(a.fused_ns_per_step), per, device,
      padded ? fmt::format(", computing whole {0} x {0} tiles of queries x keys for its {1} x {2} scores, its useful "
                           "work",
                           a.fused_tile_min, a.query_length, a.key_length)
             : std::string(),
      percent, percent < 10.0 ? 1 : 0, precisionName(a.fused_precision), a.masked ? " (and the mask)" : "");
  if (a.backward_calls > 0) {
    text += "; its backward as FlashAttention-2's: 2.5x the forward's FLOPs in three kernels, recomputing the scores";
  }
  if (a.includes_amp && a.precision == MathPrecision::kUnknown) {
    text += fmt::format("; the pieces' precision is not known and the fused kernels run in FP16/BF16, so the "
                        "estimate, in {}, may include AMP's gain",
                        precisionName(a.fused_precision));
  } else if (a.includes_amp) {
    text += fmt::format("; the pieces ran in {} and the fused kernels run in FP16/BF16, so the estimate, in {}, "
                        "includes AMP's gain",
                        precisionName(a.precision), precisionName(a.fused_precision));
  }
  return text + " (bounds: docs/performance_model.md)";
}

std::string actionText(const UnfusedAttention& a) {
  std::string action = fmt::format(
      "Compute the attention with torch.nn.functional.scaled_dot_product_attention(q, k, v{}, dropout_p=..., "
      "scale=...) in place of {}: it runs a fused FlashAttention, memory-efficient or cuDNN kernel that never "
      "writes the Sq x Sk scores{}",
      a.masked ? ", attn_mask=mask" : "", joined(a.ops, " -> "),
      a.backward_calls > 0 ? ", and recomputes them in the backward pass instead of storing them" : "");
  if (a.in_multi_head_attention) {
    action += "; nn.MultiheadAttention computes attention in pieces when it returns the attention weights: call it "
              "with need_weights=False, and it calls scaled_dot_product_attention";
  }
  if (a.includes_amp) {
    action += fmt::format("; run it in {} under torch.autocast(device_type=\"cuda\", dtype=torch.{}), as the fused "
                          "kernels need half precision",
                          precisionName(a.fused_precision),
                          a.fused_precision == MathPrecision::kBf16 ? "bfloat16" : "float16");
  }
  return action;
}

}  // namespace

std::vector<AttentionAdvice> adviseFusedAttention(const TraceSummary& s, std::string_view per) {
  std::vector<AttentionAdvice> out;
  const double steps = static_cast<double>(std::max<std::size_t>(1, s.iterations.iterations.size()));
  for (const UnfusedAttention& a : s.unfused_attention) {
    if (a.estimated() && a.gain_ns_per_step <= 0) continue;
    AttentionAdvice advice;
    advice.target = a.query_length == a.key_length
                        ? fmt::format("attention S={} E={}", a.query_length, a.head_size)
                        : fmt::format("attention Sq={} Sk={} E={}", a.query_length, a.key_length, a.head_size);
    const std::string evidence = fmt::format(
        "{} call{} compute{} attention in pieces ({}){}; scores {} ({}, {}), {} a call, pass through memory "
        "between its kernels; {}",
        a.calls, a.calls == 1 ? "" : "s", a.calls == 1 ? "s" : "", joined(a.ops, " -> "), layersText(a),
        dimsText(a.scores_shape), shapeText(a), precisionName(a.precision), bytesText(a.scores_bytes),
        measuredText(a, steps, per));
    advice.evidence = a.estimated() ? evidence + "; " + estimateText(a, s, per) : evidence + "; " + a.note;
    advice.action = actionText(a);
    advice.gain_ns = a.estimated() ? a.gain_ns_per_step : 0;
    advice.ops = a.ops;
    advice.layers = a.layers;
    out.push_back(std::move(advice));
  }
  return out;
}

}  // namespace ampscope::analyzer
