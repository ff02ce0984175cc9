#include "analyzer/model/op_work.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iterator>

// Formulas, assumptions and sources: docs/performance_model.md, "Work per op". Argument positions
// follow the ops' schemas in PyTorch's aten/src/ATen/native/native_functions.yaml: Kineto's
// "Concrete Inputs" has one entry per schema argument, in order.

namespace ampscope::analyzer {

namespace {

using Dims = std::vector<std::int64_t>;
constexpr auto npos = std::string_view::npos;

std::string_view baseName(std::string_view op) { return opBaseName(op); }

template <std::size_t N>
bool isOneOf(std::string_view name, const std::string_view (&names)[N]) {
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

// Autograd nodes (MmBackward0, CudnnConvolutionBackward, evaluate_function wrappers,
// AccumulateGrad) record only their gradients' shapes; the aten ops they call do the work.
bool isAutogradNode(std::string_view op) {
  if (op.starts_with("autograd::") || op.starts_with("torch::autograd::")) return true;
  if (op.find("::") != npos || op.find('.') != npos || op.empty() || !std::isupper(static_cast<unsigned char>(op[0]))) {
    return false;
  }
  while (!op.empty() && std::isdigit(static_cast<unsigned char>(op.back()))) op.remove_suffix(1);
  return op.ends_with("Backward");
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

}  // namespace

std::string_view opBaseName(std::string_view op) {
  if (const auto colon = op.rfind(": "); colon != npos) op = op.substr(colon + 2);
  if (const auto colons = op.rfind("::"); colons != npos) op = op.substr(colons + 2);
  if (const auto dot = op.rfind('.'); dot != npos) op = op.substr(dot + 1);
  return op;
}

std::vector<std::string> parseTextArray(std::string_view json) {
  std::vector<std::string> out;
  json = trim(json);
  if (json.size() < 2 || json.front() != '[') return out;
  std::size_t i = 1;
  while (i < json.size()) {
    const char c = json[i];
    if (c == ']') break;
    if (c == ',' || std::isspace(static_cast<unsigned char>(c))) { ++i; continue; }
    std::string& value = out.emplace_back();
    if (c == '"') {
      for (++i; i < json.size() && json[i] != '"'; ++i) {
        if (json[i] == '\\' && i + 1 < json.size()) ++i;
        value += json[i];
      }
      ++i;
      continue;
    }
    int depth = 0;
    const std::size_t start = i;
    for (; i < json.size(); ++i) {
      if (json[i] == '[') ++depth;
      if (json[i] == ']' && depth-- == 0) break;
      if (json[i] == ',' && depth == 0) break;
    }
    value = std::string(trim(json.substr(start, i - start)));
  }
  return out;
}

namespace {

// "[2, 2]" or "2" -> {2, 2} / {2}; nullopt for anything else.
std::optional<Dims> parseIntList(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  if (text.front() == '[') {
    if (text.back() != ']') return std::nullopt;
    text = text.substr(1, text.size() - 2);
  }
  Dims out;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == ',' || std::isspace(static_cast<unsigned char>(text[i]))) { ++i; continue; }
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), value);
    if (ec != std::errc()) return std::nullopt;
    out.push_back(value);
    i = static_cast<std::size_t>(end - text.data());
  }
  return out;
}

std::optional<std::int64_t> parseInt(std::string_view text) {
  const auto list = parseIntList(text);
  if (!list || list->size() != 1 || trim(text).front() == '[') return std::nullopt;
  return list->front();
}

std::optional<bool> parseBool(std::string_view text) {
  text = trim(text);
  if (text == "True" || text == "true" || text == "1") return true;
  if (text == "False" || text == "false" || text == "0") return false;
  return std::nullopt;
}

double numel(const Dims& dims, std::size_t from = 0) {
  double n = 1;
  for (std::size_t i = from; i < dims.size(); ++i) n *= static_cast<double>(dims[i]);
  return n;
}

// Bytes of c10::ScalarType by its number, as Concrete Inputs writes a dtype argument ("15").
int scalarTypeBytes(std::int64_t code) {
  switch (code) {
    case 0: case 1: case 11: case 12: case 13: case 23: case 24: case 25: case 26: return 1;
    case 2: case 5: case 15: return 2;
    case 3: case 6: case 8: case 14: return 4;
    case 4: case 7: case 9: return 8;
    case 10: return 16;
    default: return 0;
  }
}

// Accumulates bytes; one tensor of unknown element size makes the total unknown.
struct ByteCount {
  double bytes = 0;
  bool known = true;
  void add(double elements, int element_bytes) {
    if (elements <= 0) return;
    if (element_bytes <= 0) known = false;
    bytes += elements * element_bytes;
  }
  std::optional<double> value() const { return known ? std::optional<double>(bytes) : std::nullopt; }
};

// The recorded call, parsed once.
struct Call {
  const OpCall& op;
  std::string_view name;  // base name
  const Shapes& shapes;
  std::vector<std::string> dtypes;
  std::vector<std::string> args;

  const Dims* shape(std::size_t i) const { return i < shapes.size() && !shapes[i].empty() ? &shapes[i] : nullptr; }
  int elementBytes(std::size_t i) const {
    const int bytes = i < dtypes.size() ? dtypeBytes(dtypes[i]) : 0;
    return bytes > 0 ? bytes : op.element_bytes_fallback;
  }
  // Elements of input i: "[]" is a scalar argument, or a 0-dim tensor where its dtype says so.
  double elements(std::size_t i) const {
    if (i >= shapes.size()) return 0;
    if (!shapes[i].empty()) return numel(shapes[i]);
    return i < dtypes.size() && dtypeBytes(dtypes[i]) > 0 ? 1 : 0;
  }
  std::string_view arg(int i) const {
    if (i < 0 || static_cast<std::size_t>(i) >= args.size()) return "";
    return args[static_cast<std::size_t>(i)];
  }
  // Every recorded tensor input read once.
  ByteCount inputBytes() const {
    ByteCount count;
    for (std::size_t i = 0; i < shapes.size(); ++i) count.add(elements(i), elementBytes(i));
    return count;
  }
};

constexpr const char* kUnknownElementSize = "element sizes unknown (no dtypes recorded): bytes unknown";

void finishBytes(OpWork& work, const ByteCount& bytes) {
  work.bytes = bytes.value();
  if (!bytes.known) work.note += work.note.empty() ? kUnknownElementSize : std::string("; ") + kUnknownElementSize;
}

// ---- GEMMs -------------------------------------------------------------------------------------

OpWork matrixWork(const Call& c, double batch, std::int64_t m, std::int64_t n, std::int64_t k, double extra_flops,
                  double output_elements, int output_bytes) {
  OpWork work;
  work.matrix = true;
  work.basis = WorkBasis::kShapes;
  work.flops = 2.0 * batch * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) + extra_flops;
  work.gemm = GemmDims{m, n, k, static_cast<std::int64_t>(batch), false, 0, std::nullopt};
  ByteCount bytes = c.inputBytes();
  bytes.add(output_elements, output_bytes);
  finishBytes(work, bytes);
  return work;
}

// The GEMM's leading dimensions, from the strides of its operands a and b where recorded.
OpWork withLayout(OpWork work, const Call& c, std::size_t a, std::size_t b, bool b_as_transpose) {
  if (work.gemm) work.gemm->leading = leadingDimsOfInputs(c.shapes, c.op.strides, a, b, b_as_transpose);
  return work;
}

OpWork unknownMatrixWork(std::string note) {
  OpWork work;
  work.matrix = true;
  work.note = std::move(note);
  return work;
}

// torch.matmul's rules: 1-D operands gain a unit dimension that the result drops, batch
// dimensions broadcast, and a batch of matrices times one matrix folds the batch into M (one GEMM).
OpWork matmulWork(const Call& c, const Dims& a, const Dims& b) {
  const std::int64_t m = a.size() >= 2 ? a[a.size() - 2] : 1;
  const std::int64_t k = a.back();
  const std::int64_t kb = b.size() >= 2 ? b[b.size() - 2] : b.back();
  const std::int64_t n = b.size() >= 2 ? b.back() : 1;
  if (k != kb) return unknownMatrixWork("matmul: inner dimensions differ");
  const std::size_t a_batch = a.size() > 2 ? a.size() - 2 : 0;
  const std::size_t b_batch = b.size() > 2 ? b.size() - 2 : 0;
  double batch = 1;
  for (std::size_t i = 0; i < std::max(a_batch, b_batch); ++i) {
    const std::int64_t x = i < a_batch ? a[a_batch - 1 - i] : 1;
    const std::int64_t y = i < b_batch ? b[b_batch - 1 - i] : 1;
    if (x != y && x != 1 && y != 1) return unknownMatrixWork("matmul: batch dimensions do not broadcast");
    batch *= static_cast<double>(std::max(x, y));
  }
  OpWork work = matrixWork(c, batch, m, n, k, 0, batch * static_cast<double>(m * n), c.elementBytes(0));
  if (b_batch == 0 && a_batch > 0) *work.gemm = GemmDims{static_cast<std::int64_t>(batch) * m, n, k, 1, false, 0, std::nullopt};
  return work;
}

OpWork gemmWork(const Call& c) {
  const std::string_view op = c.name;
  const auto need = [&](std::size_t i, std::size_t rank) { return c.shape(i) && c.shape(i)->size() == rank; };
  const std::string shapes_note = std::string(op) + ": the matrix shapes are not recorded";
  if (op == "mm" || op == "_int_mm" || op == "_scaled_mm") {
    if (!need(0, 2) || !need(1, 2)) return unknownMatrixWork(shapes_note);
    const Dims& a = *c.shape(0);
    const Dims& b = *c.shape(1);
    int out_bytes = c.elementBytes(0);
    if (op == "_int_mm") out_bytes = 4;  // int8 x int8 -> int32
    if (op == "_scaled_mm") {
      // out_dtype (argument 6) where given; the result takes the inputs' dtype otherwise.
      if (const auto code = parseInt(c.arg(6)); code && scalarTypeBytes(*code) > 0) out_bytes = scalarTypeBytes(*code);
    }
    return withLayout(matrixWork(c, 1, a[0], b[1], a[1], 0, static_cast<double>(a[0] * b[1]), out_bytes), c, 0, 1, false);
  }
  if (op == "addmm" || op == "_addmm_activation") {
    if (!need(1, 2) || !need(2, 2)) return unknownMatrixWork(shapes_note);
    const Dims& a = *c.shape(1);
    const Dims& b = *c.shape(2);
    const double mn = static_cast<double>(a[0] * b[1]);
    return withLayout(matrixWork(c, 1, a[0], b[1], a[1], mn, mn, c.elementBytes(1)), c, 1, 2, false);
  }
  if (op == "bmm" || op == "baddbmm" || op == "addbmm") {
    const std::size_t first = op == "bmm" ? 0 : 1;
    if (!need(first, 3) || !need(first + 1, 3)) return unknownMatrixWork(shapes_note);
    const Dims& a = *c.shape(first);
    const Dims& b = *c.shape(first + 1);
    const double batch = static_cast<double>(a[0]);
    const double mn = static_cast<double>(a[1] * b[2]);
    // baddbmm adds C to each product; addbmm sums the products into one M x N matrix.
    const double extra = op == "bmm" ? 0 : batch * mn;
    return withLayout(matrixWork(c, batch, a[1], b[2], a[2], extra, op == "addbmm" ? mn : batch * mn, c.elementBytes(first)),
                      c, first, first + 1, false);
  }
  if (op == "linear") {
    // input [..., K], weight [N, K], bias [N]
    if (!c.shape(0) || !need(1, 2)) return unknownMatrixWork(shapes_note);
    const Dims& x = *c.shape(0);
    const Dims& w = *c.shape(1);
    const auto m = static_cast<std::int64_t>(numel(Dims(x.begin(), x.end() - 1)));
    const double mn = static_cast<double>(m) * static_cast<double>(w[0]);
    return withLayout(matrixWork(c, 1, m, w[0], w[1], c.shape(2) ? mn : 0, mn, c.elementBytes(0)), c, 0, 1, true);
  }
  // matmul
  if (!c.shape(0) || !c.shape(1)) return unknownMatrixWork(shapes_note);
  return withLayout(matmulWork(c, *c.shape(0), *c.shape(1)), c, 0, 1, false);
}

// ---- Attention ---------------------------------------------------------------------------------

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

OpWork attentionWork(const Call& c, const AttentionSignature& sig) {
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
    const auto max_q = parseInt(c.arg(sig.max_q));
    const auto max_k = parseInt(c.arg(sig.max_q + 1));
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
    if (const auto type = parseInt(c.arg(sig.causal))) causal = *type != 0;
  } else {
    causal = parseBool(c.arg(sig.causal));
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
        sig.logsumexp == kAlways || (sig.logsumexp >= 0 && parseBool(c.arg(sig.logsumexp)).value_or(false));
    if (logsumexp) bytes.add(rows, 4);  // float logsumexp per query row
  }
  work.note = std::move(note);
  finishBytes(work, bytes);
  return work;
}

// ---- Convolutions -----------------------------------------------------------------------------

struct ConvSignature {
  std::string_view name;
  int stride, padding, dilation, groups;  // argument positions; -1: the op has none (1 by definition)
  int output_padding = -1;
  int transposed = -1;  // argument position of the transposed flag; -1: fixed by the op
  bool always_transposed = false;
  bool forward = true;
};

constexpr ConvSignature kConvolutions[] = {
    {"conv1d", 3, 4, 5, 6}, {"conv2d", 3, 4, 5, 6}, {"conv3d", 3, 4, 5, 6},
    {"convolution", 3, 4, 5, 8, 7, 6}, {"_convolution", 3, 4, 5, 8, 7, 6},
    {"convolution_overrideable", 3, 4, 5, 8, 7, 6}, {"_convolution_mode", 3, 4, 5, 6},
    {"conv_transpose1d", 3, 4, 7, 6, 5, -1, true}, {"conv_transpose2d", 3, 4, 7, 6, 5, -1, true},
    {"conv_transpose3d", 3, 4, 7, 6, 5, -1, true},
    // cuDNN, MKL-DNN and MIOpen ops put padding before stride.
    {"cudnn_convolution", 3, 2, 4, 5}, {"cudnn_convolution_transpose", 4, 2, 5, 6, 3, -1, true},
    {"cudnn_convolution_relu", 3, 4, 5, 6}, {"cudnn_convolution_add_relu", 5, 6, 7, 8},
    {"mkldnn_convolution", 4, 3, 5, 6}, {"miopen_convolution", 4, 3, 5, 6},
    {"miopen_depthwise_convolution", 4, 3, 5, 6}, {"miopen_convolution_transpose", 5, 3, 6, 7, 4, -1, true},
    {"_slow_conv2d_forward", 4, 5, -1, -1}, {"thnn_conv2d", 4, 5, -1, -1}, {"slow_conv3d", 4, 5, -1, -1},
    {"slow_conv3d_forward", 4, 5, -1, -1}, {"slow_conv_dilated2d", 4, 5, 6, -1}, {"slow_conv_dilated3d", 4, 5, 6, -1},
    {"slow_conv_transpose2d", 4, 5, 7, -1, 6, -1, true}, {"slow_conv_transpose3d", 4, 5, 7, -1, 6, -1, true},
    {"_conv_depthwise2d", 4, 5, 6, -2}, {"_nnpack_spatial_convolution", 4, 3, -1, -1},
    // Backward ops.
    {"convolution_backward", 4, 5, 6, 9, 8, 7, false, false},
    {"convolution_backward_overrideable", 3, 4, 5, 8, 7, 6, false, false},
    {"cudnn_convolution_backward", 4, 3, 5, 6, -1, -1, false, false},
    {"cudnn_convolution_backward_input", 4, 3, 5, 6, -1, -1, false, false},
    {"cudnn_convolution_backward_weight", 4, 3, 5, 6, -1, -1, false, false},
    {"cudnn_convolution_transpose_backward", 5, 3, 6, 7, 4, -1, true, false},
    {"mkldnn_convolution_backward", 4, 3, 5, 6, -1, -1, false, false},
    {"miopen_convolution_backward", 4, 3, 5, 6, -1, -1, false, false},
    {"miopen_convolution_backward_input", 4, 3, 5, 6, -1, -1, false, false},
    {"miopen_convolution_backward_weight", 4, 3, 5, 6, -1, -1, false, false},
    {"miopen_convolution_transpose_backward", 5, 3, 6, 7, 4, -1, true, false},
};

const ConvSignature* convSignature(std::string_view op) {
  for (const ConvSignature& s : kConvolutions) {
    if (s.name == op) return &s;
  }
  return nullptr;
}

struct ParsedConv {
  ConvGeometry geometry;
  bool same_padding = false;  // padding="same": the output keeps the input's size
};

// `filter`: the weight's filter sizes, needed only for padding="same"; empty when not known.
std::optional<ParsedConv> parseConv(std::string_view op, const std::vector<std::string>& args, std::size_t spatial,
                                    const Dims& filter) {
  const ConvSignature* sig = convSignature(op);
  if (!sig || args.empty() || spatial == 0) return std::nullopt;
  int shift = 0;
  // Older cuDNN ops took a bias before padding (cudnn_convolution(self, weight, bias, padding, ...)).
  if ((op == "cudnn_convolution" || op == "cudnn_convolution_transpose") &&
      !parseIntList(args.size() > 2 ? args[2] : "") && parseIntList(args.size() > 3 ? args[3] : "")) {
    shift = 1;
  }
  const auto at = [&](int pos) -> std::string_view {
    const int i = pos + shift;
    if (pos < 0 || static_cast<std::size_t>(i) >= args.size()) return "";
    return args[static_cast<std::size_t>(i)];
  };
  // An int[] argument: one value per spatial dimension, or one value for all.
  const auto list = [&](int pos, std::int64_t fixed) -> std::optional<Dims> {
    if (pos < 0) return Dims(spatial, fixed);
    auto values = parseIntList(at(pos));
    if (!values || values->empty()) return std::nullopt;
    if (values->size() == 1) return Dims(spatial, values->front());
    if (values->size() != spatial) return std::nullopt;
    return values;
  };
  ParsedConv out;
  ConvGeometry& g = out.geometry;
  auto stride = list(sig->stride, 1);
  auto dilation = list(sig->dilation, 1);
  auto output_padding = list(sig->output_padding, 0);
  if (!stride || !dilation || !output_padding) return std::nullopt;
  g.stride = *stride;
  g.dilation = *dilation;
  g.output_padding = *output_padding;
  const std::string_view padding_text = trim(at(sig->padding));
  if (padding_text == "valid" || padding_text == "'valid'") {
    g.padding = Dims(spatial, 0);
  } else if (padding_text == "same" || padding_text == "'same'") {
    // PyTorch pads d*(f-1) in total, the odd one on the far side; the near side is shown.
    if (filter.size() != spatial) return std::nullopt;
    for (std::size_t i = 0; i < spatial; ++i) g.padding.push_back(g.dilation[i] * (filter[i] - 1) / 2);
    out.same_padding = true;
  } else {
    auto padding = list(sig->padding, 0);
    if (!padding) return std::nullopt;
    g.padding = *padding;
  }
  if (sig->groups == -2) return std::nullopt;  // _conv_depthwise2d: groups = input channels, not an argument
  if (sig->groups >= 0) {
    const auto groups = parseInt(at(sig->groups));
    if (!groups || *groups <= 0) return std::nullopt;
    g.groups = *groups;
  }
  g.transposed = sig->always_transposed;
  if (sig->transposed >= 0) {
    const auto transposed = parseBool(at(sig->transposed));
    if (!transposed) return std::nullopt;
    g.transposed = *transposed;
  }
  return out;
}

// Output spatial sizes; nullopt where a size is not positive.
std::optional<Dims> convOutputSpatial(const Dims& in, const Dims& filter, const ParsedConv& p) {
  const ConvGeometry& g = p.geometry;
  Dims out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::int64_t span = g.dilation[i] * (filter[i] - 1);
    std::int64_t size = 0;
    if (p.same_padding) {
      size = in[i];
    } else if (g.transposed) {
      size = (in[i] - 1) * g.stride[i] - 2 * g.padding[i] + span + g.output_padding[i] + 1;
    } else {
      const std::int64_t reach = in[i] + 2 * g.padding[i] - span - 1;
      size = reach < 0 || g.stride[i] <= 0 ? 0 : reach / g.stride[i] + 1;
    }
    if (size <= 0) return std::nullopt;
    out.push_back(size);
  }
  return out;
}

Dims tail(const Dims& dims, std::size_t from) {
  return Dims(dims.begin() + static_cast<std::ptrdiff_t>(from), dims.end());
}

// Input [N, C, spatial...], weight [K, C/groups, filter...] (transposed: [C, K/groups, filter...]).
OpWork convolutionWork(const Call& c) {
  OpWork work;
  work.matrix = true;
  const Dims* in = c.shape(0);
  const Dims* wt = c.shape(1);
  if (!in || !wt || in->size() < 3 || wt->size() != in->size()) {
    work.note = "convolution: input and weight shapes not recorded";
    return work;
  }
  const std::size_t spatial = in->size() - 2;
  const Dims filter = tail(*wt, 2);
  const auto parsed = parseConv(c.name, c.args, spatial, filter);
  const ConvSignature* sig = convSignature(c.name);
  const bool transposed = parsed ? parsed->geometry.transposed : sig && sig->always_transposed;
  if (parsed) work.conv = parsed->geometry;
  const std::int64_t n = (*in)[0];
  Dims out_spatial;
  std::int64_t out_channels = transposed ? 0 : (*wt)[0];
  WorkBasis out_basis = WorkBasis::kUnknown;
  if (parsed) {
    const auto o = convOutputSpatial(tail(*in, 2), filter, *parsed);
    if (!o) {
      work.note = "convolution: the recorded arguments give an empty output";
      return work;
    }
    out_spatial = *o;
    out_basis = WorkBasis::kArguments;
    if (transposed) out_channels = (*wt)[1] * parsed->geometry.groups;
  } else if (const Dims& o = c.op.output_shape; o.size() == in->size() && o[0] == n &&
                                                (transposed || o[1] == out_channels)) {
    out_spatial = tail(o, 2);
    out_channels = o[1];
    out_basis = c.op.output_basis == WorkBasis::kUnknown ? WorkBasis::kOutputShape : c.op.output_basis;
  }
  const double weight_elements = numel(*wt);
  const double positions_in = numel(*in, 2);
  const double positions_out = out_spatial.empty() ? 0 : numel(out_spatial);
  const double out_elements = static_cast<double>(n) * static_cast<double>(out_channels) * positions_out;
  const double bias_flops = c.shape(2) ? out_elements : 0;
  if (!transposed) {
    if (out_spatial.empty()) {
      work.note = "convolution: stride, padding and dilation not recorded and no output shape known: output "
                  "positions unknown (stride 1 is never assumed)";
      return work;
    }
    // Implicit GEMM: M = N x output positions, N = K, K = C/groups x filter; each output channel
    // sees only its group's input channels, so FLOPs = 2 N P K (C/groups) R S = 2 N P |weight|.
    work.flops = 2.0 * static_cast<double>(n) * positions_out * weight_elements + bias_flops;
    work.gemm = GemmDims{n * static_cast<std::int64_t>(positions_out), (*wt)[0],
                         static_cast<std::int64_t>(numel(*wt, 1)), 1, true, (*in)[1], std::nullopt};
    work.basis = out_basis;
  } else {
    // Every input position meets every filter tap once: 2 N P_in |weight|, whatever the stride.
    work.flops = 2.0 * static_cast<double>(n) * positions_in * weight_elements + bias_flops;
    work.basis = WorkBasis::kShapes;
    if (out_channels > 0 && (*wt)[1] > 0) {
      const std::int64_t groups = out_channels / (*wt)[1];
      work.gemm = GemmDims{n * static_cast<std::int64_t>(positions_in), out_channels,
                           (*in)[1] / std::max<std::int64_t>(groups, 1) * static_cast<std::int64_t>(numel(filter)), 1,
                           true, (*in)[1], std::nullopt};
    }
    if (out_spatial.empty()) {
      work.note = "transposed convolution: output size not recorded: bytes unknown";
      return work;
    }
  }
  ByteCount bytes = c.inputBytes();
  bytes.add(out_elements, c.elementBytes(0));
  finishBytes(work, bytes);
  return work;
}

// The last argument that is a list of booleans: output_mask.
std::optional<std::vector<bool>> outputMask(const Call& c) {
  for (auto it = c.args.rbegin(); it != c.args.rend(); ++it) {
    const std::string_view text = trim(*it);
    if (text.size() < 2 || text.front() != '[') continue;
    // Only True/False: an int list of ones and zeros (dilation, padding) is not a mask.
    std::vector<bool> mask;
    for (std::string_view item : parseTextArray(text)) {
      if (item != "True" && item != "False" && item != "true" && item != "false") return std::nullopt;
      mask.push_back(item == "True" || item == "true");
    }
    return mask;
  }
  return std::nullopt;
}

OpWork convolutionBackwardWork(const Call& c) {
  OpWork work;
  work.matrix = true;
  const std::string_view op = c.name;
  const bool input_only = op.ends_with("_backward_input");
  const bool weight_only = op.ends_with("_backward_weight");
  const bool grad_first = op.starts_with("convolution_backward");
  // convolution_backward(grad_output, input, weight, ...); the cuDNN/MIOpen/MKL-DNN ops put
  // self (or its size) first: (self, grad_output, weight|self, ...).
  const Dims* go = c.shape(grad_first ? 0 : 1);
  const Dims* in = input_only ? nullptr : c.shape(grad_first ? 1 : (weight_only ? 2 : 0));
  const Dims* wt = weight_only ? nullptr : c.shape(2);
  // The size-only operand (the input's or the weight's) from the arguments, else the op's
  // output shape (the gradient has that shape).
  Dims sized;
  if (input_only || weight_only) {
    if (const auto size = parseIntList(c.arg(0)); size && !size->empty()) sized = *size;
    else if (!c.op.output_shape.empty()) sized = c.op.output_shape;
    if (!sized.empty()) (input_only ? in : wt) = &sized;
  }
  if (!go || go->size() < 3) {
    work.note = std::string(op) + ": grad_output shape not recorded";
    return work;
  }
  if (!wt || wt->size() != go->size()) {
    work.note = weight_only ? std::string(op) + ": the weight's size is not recorded, so neither is the filter's: "
                                                "FLOPs unknown (the enclosing convolution backward op records it)"
                            : std::string(op) + ": weight shape not recorded";
    return work;
  }
  const auto parsed = parseConv(op, c.args, go->size() - 2, tail(*wt, 2));
  if (parsed) work.conv = parsed->geometry;
  const ConvSignature* sig = convSignature(op);
  bool transposed = parsed ? parsed->geometry.transposed : sig && sig->always_transposed;
  if (!parsed && grad_first && in) {
    // Without arguments: a transposed convolution's grad_output has the weight's second dimension
    // (times groups) as channels, and its input the weight's first.
    transposed = (*go)[1] != (*wt)[0] && (*in)[1] == (*wt)[0];
  }
  const double n = static_cast<double>((*go)[0]);
  const double weight_elements = numel(*wt);
  double per_pass = 0;
  if (!transposed) {
    per_pass = 2.0 * n * numel(*go, 2) * weight_elements;
    work.gemm = GemmDims{(*go)[0] * static_cast<std::int64_t>(numel(*go, 2)), (*wt)[0],
                         static_cast<std::int64_t>(numel(*wt, 1)), 1, true,
                         in ? (*in)[1] : (parsed ? (*wt)[1] * parsed->geometry.groups : 0), std::nullopt};
  } else if (in) {
    per_pass = 2.0 * n * numel(*in, 2) * weight_elements;
  } else {
    work.note = std::string(op) + ": transposed convolution without its input shape";
    return work;
  }
  // output_mask: grad input, grad weight (and grad bias, a reduction); the _input/_weight ops do one.
  std::vector<bool> mask{!weight_only, !input_only, false};
  if (!input_only && !weight_only) {
    if (const auto recorded = outputMask(c); recorded && recorded->size() >= 2) {
      mask = *recorded;
      mask.resize(3, false);
    } else {
      work.note = "output_mask not recorded: grad input and grad weight both counted";
    }
  }
  const int passes = (mask[0] ? 1 : 0) + (mask[1] ? 1 : 0);
  work.flops = per_pass * passes;
  work.basis = WorkBasis::kShapes;
  ByteCount bytes = c.inputBytes();
  const int element_bytes = c.elementBytes(grad_first ? 0 : 1);
  if (input_only || weight_only) bytes.add(numel(sized), element_bytes);
  else {
    if (mask[0] && in) bytes.add(numel(*in), element_bytes);
    if (mask[1]) bytes.add(weight_elements, element_bytes);
    if (mask[2]) bytes.add(static_cast<double>((*go)[1]), element_bytes);
  }
  if ((input_only || weight_only) && sized.empty()) {
    work.note = std::string(op) + ": the gradient's size is not recorded: bytes unknown";
    return work;
  }
  finishBytes(work, bytes);
  return work;
}

// ---- Memory-bound ops --------------------------------------------------------------------------

constexpr std::string_view kViews[] = {
    "view", "view_as", "reshape", "_reshape_alias", "_unsafe_view", "as_strided", "as_strided_", "t", "t_",
    "transpose", "transpose_", "permute", "expand", "expand_as", "squeeze", "squeeze_", "unsqueeze", "unsqueeze_",
    "detach", "detach_", "alias", "slice", "select", "narrow", "resize_", "resize_as_", "empty", "empty_like",
    "empty_strided", "new_empty", "new_empty_strided", "flatten", "unflatten", "unfold", "split",
    "split_with_sizes", "chunk", "unbind", "contiguous", "lift_fresh", "numpy_T", "movedim", "diagonal",
    "conj", "resolve_conj", "resolve_neg", "record_stream", "set_"};

// Ops that write their tensor without reading it.
constexpr std::string_view kWriteOnly[] = {
    "fill_", "zero_", "normal_", "uniform_", "random_", "bernoulli_", "exponential_", "zeros_like", "ones_like",
    "full_like", "empty_permuted"};

OpWork memoryWork(const Call& c, bool write_only) {
  OpWork work;
  if (c.shapes.empty()) {
    work.note = "no shapes recorded (tensor lists are not read)";
    return work;
  }
  ByteCount bytes = write_only ? ByteCount{} : c.inputBytes();
  double largest = 0;
  int largest_bytes = 0;
  for (std::size_t i = 0; i < c.shapes.size(); ++i) {
    if (c.elements(i) <= largest) continue;
    largest = c.elements(i);
    largest_bytes = c.elementBytes(i);
  }
  if (c.name == "copy_" && largest > 0) {
    // copy_(self, src): src read, self written (in its own dtype): each input once.
    work.basis = WorkBasis::kShapes;
    work.note = "copies src into self: each once";
    finishBytes(work, bytes);
    return work;
  }
  if (largest == 0) {
    work.note = "no tensor input recorded: the output's size is unknown";
    return work;
  }
  bytes.add(largest, largest_bytes);
  work.basis = WorkBasis::kShapes;
  work.note = write_only ? "writes its tensor once"
                         : "memory-bound: inputs read once, an output the size of the largest input written once "
                           "(a reduction writes less)";
  finishBytes(work, bytes);
  return work;
}

OpWork dispatch(const Call& c) {
  const std::string_view op = c.name;
  if (isAutogradNode(c.op.op)) {
    OpWork work;
    work.matrix = isTensorCoreEligibleOp(op) || op.find("Attention") != npos;
    work.note = "autograd node: it records only gradient shapes; the aten ops it calls carry the work";
    return work;
  }
  if (isOneOf(op, kViews)) {
    OpWork work;
    work.basis = WorkBasis::kShapes;
    work.bytes = 0.0;
    work.note = "a view or allocation: no data moves";
    return work;
  }
  static constexpr std::string_view kGemms[] = {
      "mm", "_int_mm", "_scaled_mm", "addmm", "_addmm_activation", "bmm", "baddbmm", "addbmm", "linear", "matmul"};
  if (isOneOf(op, kGemms)) return gemmWork(c);
  static constexpr std::string_view kComposites[] = {
      "einsum", "multi_head_attention_forward", "_native_multi_head_attention", "chain_matmul", "tensordot"};
  if (isOneOf(op, kComposites)) {
    return unknownMatrixWork(std::string(op) + ": the work depends on what the op computes, not in its shapes; "
                                               "its matmul children carry it");
  }
  if (const AttentionSignature* sig = attentionSignature(op)) return attentionWork(c, *sig);
  if (const ConvSignature* sig = convSignature(op); sig && !sig->forward) return convolutionBackwardWork(c);
  if (isForwardConvolutionOp(op)) return convolutionWork(c);
  return memoryWork(c, isOneOf(op, kWriteOnly));
}

}  // namespace

const char* workBasisName(WorkBasis basis) {
  switch (basis) {
    case WorkBasis::kUnknown: return "unknown";
    case WorkBasis::kShapes: return "shapes";
    case WorkBasis::kArguments: return "arguments";
    case WorkBasis::kOutputShape: return "output shape";
    case WorkBasis::kConsumerInput: return "consumer input";
    case WorkBasis::kBackwardGradient: return "backward gradient";
  }
  return "unknown";
}

int dtypeBytes(std::string_view dtype) {
  dtype = trim(dtype);
  if (dtype.starts_with("torch.")) dtype.remove_prefix(6);
  if (dtype.starts_with("c10::")) dtype.remove_prefix(5);
  struct Size { std::string_view name; int bytes; };
  static constexpr Size kSizes[] = {
      {"float", 4}, {"float32", 4}, {"fp32", 4}, {"Float", 4}, {"int", 4}, {"int32", 4}, {"unsigned int", 4},
      {"Half", 2}, {"half", 2}, {"float16", 2}, {"fp16", 2}, {"BFloat16", 2}, {"bfloat16", 2}, {"bf16", 2},
      {"short int", 2}, {"short", 2}, {"int16", 2}, {"unsigned short", 2},
      {"double", 8}, {"float64", 8}, {"long int", 8}, {"long", 8}, {"int64", 8}, {"long long", 8},
      {"unsigned long", 8}, {"complex<float>", 8}, {"complex64", 8}, {"complex<double>", 16}, {"complex128", 16},
      {"complex<Half>", 4}, {"bool", 1}, {"signed char", 1}, {"char", 1}, {"int8", 1}, {"unsigned char", 1},
      {"uint8", 1}, {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1}, {"Float8_e4m3fnuz", 1}, {"Float8_e5m2fnuz", 1},
      {"fp8", 1}};
  for (const Size& size : kSizes) {
    if (size.name == dtype) return size.bytes;
  }
  if (dtype.starts_with("float8_")) return 1;
  return 0;
}

std::optional<ConvGeometry> convGeometry(std::string_view op, std::string_view arguments, std::size_t spatial_dims) {
  const auto parsed = parseConv(baseName(op), parseTextArray(arguments), spatial_dims, {});
  if (!parsed) return std::nullopt;
  return parsed->geometry;
}

bool isFusedAttentionOp(std::string_view op_name) {
  const std::string_view op = baseName(op_name);
  // The math implementation computes the pieces itself, inside the op the user already calls.
  static constexpr std::string_view kOthers[] = {"_scaled_dot_product_attention_math",
                                                  "_scaled_dot_product_attention_math_for_mps",
                                                  "_native_multi_head_attention", "_fused_sdp_choice"};
  return attentionSignature(op) != nullptr || isOneOf(op, kOthers);
}

bool isForwardConvolutionOp(std::string_view op_name) {
  const ConvSignature* sig = convSignature(baseName(op_name));
  return sig && sig->forward;
}

OpWork opWork(const OpCall& call) {
  static const Shapes kNoShapes;
  const Call c{call, baseName(call.op), call.shapes ? *call.shapes : kNoShapes, parseTextArray(call.dtypes),
               parseTextArray(call.arguments)};
  for (const Dims& shape : c.shapes) {
    if (std::any_of(shape.begin(), shape.end(), [](std::int64_t d) { return d < 0; })) {
      OpWork work;
      work.note = "a negative dimension was recorded";
      return work;
    }
  }
  OpWork work = dispatch(c);
  if (call.backward_pass) {
    // The gradient of the input and of the weight: the forward FLOPs twice; dY read in place of Y
    // written, the inputs read again and each input's gradient written.
    if (work.matrix && work.flops) *work.flops *= 2;
    if (work.bytes) {
      if (const auto inputs = c.inputBytes().value()) *work.bytes += *inputs;
    }
    work.note += work.note.empty() ? "" : "; ";
    work.note += "backward pass of the recorded forward shapes";
  }
  return work;
}

}  // namespace ampscope::analyzer
