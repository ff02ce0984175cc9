// The work of attention computed in one fused kernel (scaled_dot_product_attention, its flash,
// memory-efficient and cuDNN implementations, the flash and efficient kernels' own ops), forward
// and backward. Formulas, assumptions and sources: docs/performance_model.md, "Work per op",
// "Attention". Argument and input positions follow the ops' schemas in PyTorch's
// aten/src/ATen/native/native_functions.yaml.

#include "analyzer/model/op_work_call.h"

namespace ampscope::analyzer {

namespace op_work {

namespace {

struct AttentionSignature {
  std::string_view name;
  std::size_t query;    // shape index of the query (then key, value)
  bool sequence_first;  // [B, L, H, E] (flash/efficient kernels' own ops) rather than [B, H, L, E]
  bool backward;
  int causal;           // argument position of is_causal (or custom_mask_type: mask_type)
  bool mask_type;       // custom_mask_type: 0 none, 1 and 2 causal (top-left, bottom-right)
  int cum_seq_q;        // shape index of the cumulative sequence lengths (variable-length batches)
  int max_q;            // argument position of max_q (max_k follows)
  int logsumexp;        // forward: argument position of compute_log_sumexp; -2 always; -1 never
};

constexpr int kAlways = -2;
constexpr AttentionSignature kAttention[] = {
    {"scaled_dot_product_attention", 0, false, false, 5, false, -1, -1, -1},
    {"_scaled_dot_product_flash_attention", 0, false, false, 4, false, -1, -1, kAlways},
    {"_scaled_dot_product_flash_attention_for_cpu", 0, false, false, 4, false, -1, -1, kAlways},
    {"_scaled_dot_product_efficient_attention", 0, false, false, 6, false, -1, -1, 4},
    {"_scaled_dot_product_cudnn_attention", 0, false, false, 6, false, -1, -1, 4},
    {"_scaled_dot_product_fused_attention_overrideable", 0, false, false, 5, false, -1, -1, kAlways},
    {"_flash_attention_forward", 0, true, false, 8, false, 3, 5, kAlways},
    {"_efficient_attention_forward", 0, true, false, 9, true, 4, 6, 10},
    {"_scaled_dot_product_flash_attention_backward", 1, false, true, 11, false, -1, -1, -1},
    {"_scaled_dot_product_flash_attention_for_cpu_backward", 1, false, true, 7, false, -1, -1, -1},
    {"_scaled_dot_product_efficient_attention_backward", 1, false, true, 11, false, -1, -1, -1},
    {"_scaled_dot_product_cudnn_attention_backward", 1, false, true, 14, false, -1, -1, -1},
    {"_flash_attention_backward", 1, true, true, 11, false, 6, 8, -1},
    {"_efficient_attention_backward", 1, true, true, 14, true, 6, 8, -1},
};

const AttentionSignature* attentionSignature(std::string_view op) {
  for (const AttentionSignature& s : kAttention) {
    if (s.name == op) return &s;
  }
  return nullptr;
}

OpWork workOf(const Call& c, const AttentionSignature& sig) {
  const Dims* q = c.shape(sig.query);
  const Dims* k = c.shape(sig.query + 1);
  const Dims* v = c.shape(sig.query + 2);
  if (!q || !k || !v || q->size() < 2 || k->size() != q->size() || v->size() != q->size()) {
    return unknownMatrixWork(std::string(c.name) + ": query, key and value shapes not recorded");
  }
  for (const Dims* t : {q, k, v}) {
    if (numel(*t) <= 0) return unknownMatrixWork(std::string(c.name) + ": an empty query, key or value");
  }
  const std::int64_t e = q->back();
  const std::int64_t ev = v->back();
  // Query-key pairs per head (summed over the batch) and heads x batch.
  double pairs_times_heads = 0;
  std::optional<GemmDims> gemm;
  std::string note;
  const bool cumulative_lengths = sig.cum_seq_q >= 0 && c.shape(static_cast<std::size_t>(sig.cum_seq_q));
  const bool variable_length = sig.sequence_first && (q->size() == 3 || cumulative_lengths);
  if (variable_length) {
    // [total tokens, H, E] (or a batch of 1): the sequences' lengths are in the cumulative-length
    // tensors, not recorded; with the longest lengths (max_q, max_k), sum of Lq*Lk <= the bound below.
    const auto max_q = c.arg(sig.max_q).integer();
    const auto max_k = c.arg(sig.max_q + 1).integer();
    if (!max_q || !max_k) {
      return unknownMatrixWork(std::string(c.name) + ": variable-length batch without max_q/max_k recorded");
    }
    const double tokens_q = numel(*q) / static_cast<double>((*q)[q->size() - 2] * e);
    const double tokens_k = numel(*k) / static_cast<double>((*k)[k->size() - 2] * k->back());
    const double heads = static_cast<double>((*q)[q->size() - 2]);
    pairs_times_heads =
        heads * std::min(tokens_q * static_cast<double>(*max_k), tokens_k * static_cast<double>(*max_q));
    note = "variable-length batch: FLOPs are an upper bound from the longest sequences";
  } else if (sig.sequence_first) {
    if (q->size() != 4) return unknownMatrixWork(std::string(c.name) + ": expected [B, L, H, E] shapes");
    const double bh = static_cast<double>((*q)[0] * (*q)[2]);
    pairs_times_heads = bh * static_cast<double>((*q)[1] * (*k)[1]);
    gemm = GemmDims{(*q)[1], (*k)[1], e, (*q)[0] * (*q)[2], false, 0, std::nullopt};
  } else {
    // [..., L, E]: every leading dimension (batch, heads) is a batch of the two matrix products.
    const double bh = numel(*q) / static_cast<double>((*q)[q->size() - 2] * e);
    const std::int64_t lq = (*q)[q->size() - 2];
    const std::int64_t lk = (*k)[k->size() - 2];
    pairs_times_heads = bh * static_cast<double>(lq) * static_cast<double>(lk);
    gemm = GemmDims{lq, lk, e, static_cast<std::int64_t>(bh), false, 0, std::nullopt};
  }
  // Causal masking skips about half of the pairs (exactly half only as L grows; tiles on the
  // diagonal are computed whole).
  double factor = 1;
  std::optional<bool> causal;
  if (sig.mask_type) {
    if (const auto type = c.arg(sig.causal).integer()) causal = *type != 0;
  } else {
    causal = c.arg(sig.causal).flag;
  }
  if (causal && *causal) factor = 0.5;
  const auto append = [&](const char* text) { note += note.empty() ? text : std::string("; ") + text; };
  if (causal && *causal) append("causal: about half the pairs");
  if (!causal) append("is_causal not recorded: full attention counted (an upper bound; causal does about half)");

  OpWork work;
  work.matrix = true;
  work.basis = WorkBasis::kShapes;
  work.gemm = gemm;
  // A fused kernel reads Q, K and V as rows of E (and Ev) elements and writes O as rows of Ev: the
  // sequence lengths count rows, never a row's length, so only the head size sets how wide its
  // loads can be (an odd sequence length costs a ragged last tile, nothing more).
  if (work.gemm) work.gemm->leading = LeadingDims{false, false, true};
  // Forward: S = Q K^T (E) and O = P V (Ev). Backward (FlashAttention-2): S recomputed (E),
  // dV = P^T dO (Ev), dP = dO V^T (Ev), dQ = dS K (E), dK = dS^T Q (E): 2.5x forward at E = Ev.
  const double per_pair = sig.backward ? static_cast<double>(3 * e + 2 * ev) : static_cast<double>(e + ev);
  work.flops = 2.0 * pairs_times_heads * per_pair * factor;
  ByteCount bytes = c.inputBytes();
  const double rows = numel(*q) / static_cast<double>(e);  // one output row per query (and head)
  if (sig.backward) {
    // dQ, dK, dV written.
    bytes.add(numel(*q), c.elementBytes(sig.query));
    bytes.add(numel(*k), c.elementBytes(sig.query + 1));
    bytes.add(numel(*v), c.elementBytes(sig.query + 2));
  } else {
    bytes.add(rows * static_cast<double>(ev), c.elementBytes(sig.query));
    const bool logsumexp =
        sig.logsumexp == kAlways || (sig.logsumexp >= 0 && c.arg(sig.logsumexp).flag.value_or(false));
    if (logsumexp) bytes.add(rows, 4);  // float logsumexp per query row
  }
  work.note = std::move(note);
  finishBytes(work, bytes);
  return work;
}

}  // namespace

bool isAttentionOp(std::string_view op) { return attentionSignature(op) != nullptr; }

OpWork attentionWork(const Call& c) {
  const AttentionSignature* sig = attentionSignature(c.name);
  return sig ? workOf(c, *sig) : unknownMatrixWork(std::string(c.name) + ": not an attention op");
}

}  // namespace op_work

bool isFusedAttentionOp(std::string_view op_name) {
  const std::string_view op = opBaseName(op_name);
  // The math implementation computes the pieces itself, inside the op the user already calls.
  static constexpr std::string_view kOthers[] = {"_scaled_dot_product_attention_math",
                                                  "_scaled_dot_product_attention_math_for_mps",
                                                  "_native_multi_head_attention", "_fused_sdp_choice"};
  return op_work::isAttentionOp(op) || op_work::isOneOf(op, kOthers);
}

}  // namespace ampscope::analyzer
