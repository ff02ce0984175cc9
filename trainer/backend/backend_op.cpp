#include "trainer/backend/backend_op.h"

#include <array>
#include <string>

namespace ampscope::trainer {

namespace {

using enum OpDemand;
constexpr std::array<BackendOpInfo, static_cast<std::size_t>(BackendOp::kCount)> kOps = {{
    {"allocate", kNone},
    {"allocateStepState", kNone},
    {"upload", kLaunch},
    {"download", kHostRead},
    {"fill", kLaunch},
    {"copy", kLaunch},
    {"scale", kLaunch},
    {"synchronize", kHostRead},  // a wait for the device, as a read is
    {"gemm", kLaunch},
    {"convForward", kLaunch},
    {"convBackwardData", kLaunch},
    {"convBackwardFilter", kLaunch},
    {"addBias", kLaunch},
    {"biasGradient", kLaunch},
    {"activationForward", kLaunch},
    {"activationBackward", kLaunch},
    {"batchNormForward", kLaunch},
    {"batchNormBackward", kLaunch},
    {"layerNormForward", kLaunch},
    {"layerNormBackward", kLaunch},
    {"poolForward", kLaunch},
    {"poolBackward", kLaunch},
    {"softmaxCrossEntropy", kLaunch},
    {"countCorrect", kHostRead},
    {"readStepLog", kHostRead},
    {"copyAll", kMultiTensor},
    {"unscaleGradients", kMultiTensor},
    {"clipGradients", kMultiTensor},
    {"gradientHistograms", kHostRead},
    {"sgdStep", kMultiTensor},
    {"adamWStep", kMultiTensor},
    {"finishStep", kLaunch},
}};

}  // namespace

const BackendOpInfo& backendOpInfo(BackendOp op) { return kOps[static_cast<std::size_t>(op)]; }

std::optional<BackendOp> parseBackendOp(std::string_view name) {
  for (std::size_t i = 0; i < kOps.size(); ++i) {
    if (kOps[i].name == name) return static_cast<BackendOp>(i);
  }
  return std::nullopt;
}

std::string_view backendOpNames() {
  static const std::string names = [] {
    std::string out;
    for (const BackendOpInfo& op : kOps) out += (out.empty() ? "" : ", ") + std::string(op.name);
    return out;
  }();
  return names;
}

}  // namespace ampscope::trainer
