// The work of one op call: which family of formulas computes it (gemm_work.cpp, attention_work.cpp,
// convolution_work.cpp, memory_work.cpp), and what every family shares. Formulas, assumptions and
// sources: docs/performance_model.md, "Work per op".

#include "analyzer/model/op_work.h"

#include <cctype>

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

}  // namespace op_work

namespace {

using op_work::Call;
using op_work::Dims;
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
    return op_work::unknownMatrixWork(std::string(op) +
                                      ": the work depends on what the op computes, not in its shapes; "
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
  static const trace::RangeDtypes kNoDtypes;
  static const trace::RangeArguments kNoArguments;
  const Call c{call, opBaseName(call.op), call.shapes ? *call.shapes : kNoShapes,
               call.dtypes ? *call.dtypes : kNoDtypes, call.arguments ? *call.arguments : kNoArguments};
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
