#include "analyzer/verdicts/tensor_core_evidence.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "analyzer/core/rule_ids.h"
#include "analyzer/verdicts/kernel_verdicts.h"

namespace ampscope::analyzer {

namespace {

// Element type tokens as CUDA, CUTLASS/CuTe, PyTorch and library kernel names spell them
// (lower case: names are searched lower-cased). Lowest precision first: an FP8 GEMM names its
// BF16 output type too, and a "bf16" holds an "f16".
struct TypeToken {
  std::string_view token;
  MathPrecision precision;
};
constexpr std::array<TypeToken, 22> kTypeTokens = {{
    {"float_e2m1", MathPrecision::kFp4}, {"e2m1", MathPrecision::kFp4}, {"nvfp4", MathPrecision::kFp4},
    {"float_e4m3", MathPrecision::kFp8}, {"float_e5m2", MathPrecision::kFp8}, {"__nv_fp8", MathPrecision::kFp8},
    {"e4m3", MathPrecision::kFp8}, {"e5m2", MathPrecision::kFp8}, {"fp8", MathPrecision::kFp8},
    {"int8", MathPrecision::kInt8}, {"signed char", MathPrecision::kInt8},
    {"__nv_bfloat16", MathPrecision::kBf16}, {"bfloat16", MathPrecision::kBf16}, {"bf16", MathPrecision::kBf16},
    {"__half", MathPrecision::kFp16}, {"half_t", MathPrecision::kFp16}, {"half", MathPrecision::kFp16},
    {"float16", MathPrecision::kFp16}, {"fp16", MathPrecision::kFp16}, {"f16", MathPrecision::kFp16},
    {"tfloat32", MathPrecision::kTf32}, {"tf32", MathPrecision::kTf32},
}};

bool isLetter(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// A token counts where it is not part of a longer word: no letter before it ("behalf", "uint8"),
// and after it no letter when it ends in one ("halfway") nor a digit when it ends in one ("bf160").
// A letter may follow a digit-final token: "e4m3fn", "f16f32".
bool containsToken(std::string_view text, std::string_view token) {
  for (std::size_t at = text.find(token); at != std::string_view::npos; at = text.find(token, at + 1)) {
    if (at > 0 && isLetter(text[at - 1]) && isLetter(token.front())) continue;
    const std::size_t end = at + token.size();
    if (end < text.size()) {
      const char next = text[end];
      if (isLetter(token.back()) && isLetter(next)) continue;
      if (isDigit(token.back()) && isDigit(next)) continue;
    }
    return true;
  }
  return false;
}

std::string lowered(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::optional<GpuArchitecture> architectureForComputeCapability(int major, int minor) {
  if (major == 7) return minor >= 5 ? GpuArchitecture::kTuring : GpuArchitecture::kVolta;
  if (major == 8) return minor == 9 ? GpuArchitecture::kAda : GpuArchitecture::kAmpere;
  if (major == 9) return GpuArchitecture::kHopper;
  if (major >= 10 && major <= 12) return GpuArchitecture::kBlackwell;
  return std::nullopt;
}

VerdictDevice verdictDevice(const trace::Trace& trace, const DeviceChoice& choice) {
  VerdictDevice out;
  if (choice.basis == DeviceBasis::kAmdGpu) {
    // HIP's compute capability is not NVIDIA's: no architecture is read from it.
    out.amd = true;
    return out;
  }
  if (choice.spec) {
    out.architecture = architectureForComputeCapability(choice.spec->compute_major, choice.spec->compute_minor);
    out.name = choice.spec->name;
    out.at_least = choice.lowerBound();
    return out;
  }
  for (const trace::Device& device : trace.devices) {
    if (device.kind != trace::DeviceKind::kGpu || device.compute_major <= 0) continue;
    out.architecture = architectureForComputeCapability(device.compute_major, device.compute_minor);
    out.name = fmt::format("{} (compute capability {}.{})", trace.str(device.name), device.compute_major,
                           device.compute_minor);
    break;
  }
  return out;
}

std::optional<GpuArchitecture> oldestTensorCoreArchitecture(MathPrecision precision) {
  switch (precision) {
    case MathPrecision::kFp16: return GpuArchitecture::kVolta;
    case MathPrecision::kInt8: return GpuArchitecture::kTuring;
    case MathPrecision::kBf16: case MathPrecision::kTf32: case MathPrecision::kFp64: return GpuArchitecture::kAmpere;
    case MathPrecision::kFp8: return GpuArchitecture::kAda;
    case MathPrecision::kFp4: return GpuArchitecture::kBlackwell;
    default: return std::nullopt;
  }
}

MathPrecision lowPrecisionInName(std::string_view name) {
  const std::string text = lowered(name);
  for (const TypeToken& t : kTypeTokens) {
    if (containsToken(text, t.token)) return t.precision;
  }
  return MathPrecision::kUnknown;
}

TensorCoreVerdict withNameEvidence(TensorCoreVerdict verdict, std::string_view name, const VerdictDevice& device) {
  if (verdict.tensor_core != TensorCoreUse::kUnknown) return verdict;
  const bool matrix = verdict.rule_id == rule_ids::kUnknownMatrixKernel;
  const MathPrecision precision = matrix ? lowPrecisionInName(name) : MathPrecision::kUnknown;
  const std::optional<GpuArchitecture> needs = oldestTensorCoreArchitecture(precision);
  verdict.confidence = Confidence::kLow;
  if (!matrix) {
    verdict.evidence = "no rule row matched the name";
  } else if (!needs) {
    verdict.evidence = "a matrix kernel of a family the rules do not know, with no low-precision element type in "
                       "its name: only its SASS or its rate can tell";
  } else if (!device.architecture) {
    verdict.precision = precision;
    verdict.evidence = fmt::format("a matrix kernel naming {}, but the device is unknown: its Tensor Cores cannot "
                                   "be claimed (pass --gpu NAME)", precisionName(precision));
  } else if (*device.architecture < *needs && device.at_least) {
    verdict.precision = precision;
    verdict.evidence = fmt::format("a matrix kernel naming {}; the GPU is at least {} (guessed from kernel names), "
                                   "which does not tell whether its Tensor Cores run {} (pass --gpu NAME)",
                                   precisionName(precision), architectureName(*device.architecture),
                                   precisionName(precision));
  } else if (*device.architecture < *needs) {
    verdict.precision = precision;
    verdict.evidence = fmt::format("a matrix kernel naming {}, but the {} ({}) has no {} Tensor Cores (they start "
                                   "with {})", precisionName(precision), device.name,
                                   architectureName(*device.architecture), precisionName(precision),
                                   architectureName(*needs));
  } else {
    verdict.tensor_core = TensorCoreUse::kYes;
    verdict.precision = precision;
    verdict.confidence = Confidence::kMedium;
    verdict.rule_id = std::string(rule_ids::kInferredLowPrecisionMatrix);
    verdict.evidence = fmt::format("likely Tensor Core: a matrix kernel (unknown family) naming {}, on the {} ({}), "
                                   "whose Tensor Cores run {}", precisionName(precision), device.name,
                                   architectureName(*device.architecture), precisionName(precision));
  }
  return verdict;
}

double cudaCorePeakTflops(const DeviceSpec& device) { return 4.0 * device.fp32_tflops; }

double tensorCorePeakTflops(const DeviceSpec& device) {
  return std::max({device.tf32_tflops, device.fp16_tflops, device.bf16_tflops, device.fp8_tflops, device.fp4_tflops,
                   device.int8_tops});
}

}  // namespace ampscope::analyzer
