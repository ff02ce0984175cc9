#include "analyzer/model/amp_op_policy.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace ampscope::analyzer {

namespace {

// "aten::_log_softmax_backward_data" -> "logsoftmax", "LogSoftmaxBackward0" -> "logsoftmax",
// "torch.nn.functional.layer_norm" -> "layernorm": the op's own name, lower case, without
// underscores, namespace, a "native" prefix or a backward suffix.
std::string canonical(std::string_view op) {
  if (const auto colons = op.rfind("::"); colons != std::string_view::npos) op = op.substr(colons + 2);
  if (const auto dot = op.rfind('.'); dot != std::string_view::npos) op = op.substr(dot + 1);
  std::string out;
  for (char c : op) {
    if (c != '_') out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  for (std::string_view suffix : {"backwarddata", "backwardinput", "backward"}) {
    if (const auto at = out.find(suffix); at != std::string::npos) {
      out.erase(at);
      break;
    }
  }
  while (!out.empty() && std::isdigit(static_cast<unsigned char>(out.back()))) out.pop_back();
  if (out.rfind("native", 0) == 0) out.erase(0, 6);
  return out;
}

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

bool autocastKeepsFp32(std::string_view op_name) {
  // PyTorch's autocast "ops that can autocast to float32" (CUDA), plus the softmax and norm
  // kernels those ops dispatch to, in canonical form.
  static constexpr std::array<std::string_view, 58> kFp32 = {
      "pow", "rdiv", "rpow", "rtruediv", "acos", "asin", "binarycrossentropywithlogits", "cosh",
      "cosineembeddingloss", "cdist", "cosinesimilarity", "crossentropy", "crossentropyloss", "cumprod",
      "cumsum", "dist", "erfinv", "exp", "expm1", "groupnorm", "hingeembeddingloss", "kldiv", "l1loss",
      "layernorm", "log", "logsoftmax", "log10", "log1p", "log2", "marginrankingloss", "mseloss",
      "multilabelmarginloss", "multimarginloss", "nllloss", "nlllossnd", "nllloss2d", "norm", "normalize",
      "pdist", "poissonnllloss", "prod", "reciprocal", "rsqrt", "sinh", "smoothl1loss", "softmarginloss",
      "softmax", "softmin", "softplus", "sum", "renorm", "tan", "tripletmarginloss", "linalgvectornorm",
      "fusedlayernorm", "rmsnorm", "fusedrmsnorm", "logsumexp"};
  const std::string name = canonical(op_name);
  return std::find(kFp32.begin(), kFp32.end(), name) != kFp32.end();
}

bool updatesMasterWeights(std::string_view op_name, trace::Phase phase) {
  if (phase == trace::Phase::kOptimizer) return true;
  const std::string name = lower(op_name);
  return contains(name, "optimizer") || contains(name, "_foreach_") || contains(name, "fused_adam") ||
         contains(name, "fused_sgd") || contains(name, "multi_tensor_apply") || contains(name, "adam_") ||
         contains(name, "zero_grad");
}

bool isCollectiveKernel(std::string_view kernel_name) {
  return kernel_name.rfind("nccl", 0) == 0 || contains(kernel_name, "ncclKernel") ||
         contains(kernel_name, "ncclDevKernel") || contains(kernel_name, "nvshmem");
}

bool isCollectiveOp(std::string_view op_name) {
  return op_name.rfind("c10d::", 0) == 0 || op_name.rfind("nccl:", 0) == 0 || op_name == "record_param_comms" ||
         contains(op_name, "ProcessGroupNCCL");
}

bool dtypesAreHalf(std::string_view dtypes_json) {
  const std::string text = lower(dtypes_json);
  // Any half-precision tensor counts: an op mixing them with FP32 ones (half activations with FP32
  // norm statistics) already moves its large tensors in half precision.
  return contains(text, "half") || contains(text, "bfloat16") || contains(text, "float16") || contains(text, "float8");
}

}  // namespace ampscope::analyzer
