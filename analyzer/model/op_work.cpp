// The work of one op call: which family of formulas computes it (gemm_work.cpp, attention_work.cpp,
// convolution_work.cpp, memory_work.cpp), and what every family shares. Formulas, assumptions and
// sources: docs/performance_model.md, "Work per op".

#include "analyzer/model/op_work.h"

#include <cctype>
#include <charconv>

#include "analyzer/model/op_work_call.h"

namespace ampscope::analyzer {

namespace op_work {

void finishBytes(OpWork& work, const ByteCount& bytes) {
  static constexpr const char* kUnknownElementSize = "element sizes unknown (no dtypes recorded): bytes unknown";
  work.bytes = bytes.value();
  if (!bytes.known) work.note += work.note.empty() ? kUnknownElementSize : std::string("; ") + kUnknownElementSize;
}

OpWork unknownMatrixWork(std::string note) {
  OpWork work;
  work.matrix = true;
  work.note = std::move(note);
  return work;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

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

}  // namespace op_work

namespace {

using op_work::Call;
using op_work::Dims;
using op_work::trim;
constexpr auto npos = std::string_view::npos;

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

OpWork dispatch(const Call& c) {
  const std::string_view op = c.name;
  if (isAutogradNode(c.op.op)) {
    OpWork work;
    work.matrix = isTensorCoreEligibleOp(op) || op.find("Attention") != npos;
    work.note = "autograd node: it records only gradient shapes; the aten ops it calls carry the work";
    return work;
  }
  if (op_work::isViewOp(op)) return op_work::viewWork();
  if (op_work::isGemmOp(op)) return op_work::gemmWork(c);
  static constexpr std::string_view kComposites[] = {
      "einsum", "multi_head_attention_forward", "_native_multi_head_attention", "chain_matmul", "tensordot"};
  if (op_work::isOneOf(op, kComposites)) {
    return op_work::unknownMatrixWork(std::string(op) + ": the work depends on what the op computes, not in its shapes; "
                                                        "its matmul children carry it");
  }
  if (op_work::isAttentionOp(op)) return op_work::attentionWork(c);
  if (op_work::isConvolutionBackwardOp(op)) return op_work::convolutionBackwardWork(c);
  if (isForwardConvolutionOp(op)) return op_work::convolutionWork(c);
  return op_work::memoryWork(c);
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

OpWork opWork(const OpCall& call) {
  static const Shapes kNoShapes;
  const Call c{call, opBaseName(call.op), call.shapes ? *call.shapes : kNoShapes, parseTextArray(call.dtypes),
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
