#include "analyzer/core/tensor_core_verdict.h"

namespace ampscope::analyzer {

namespace {

template <typename T, std::size_t N>
const char* nameOf(const std::array<std::pair<T, std::string_view>, N>& names, T value) {
  for (const auto& [candidate, name] : names) {
    if (candidate == value) return name.data();  // the literals are NUL-terminated
  }
  return "?";
}

}  // namespace

const char* precisionName(MathPrecision precision) {
  // Not in kPrecisionNames, which is also the rule file's vocabulary: host verdicts only.
  if (precision == MathPrecision::kFp32) return "FP32";
  return nameOf(kPrecisionNames, precision);
}
const char* confidenceName(Confidence confidence) { return nameOf(kConfidenceNames, confidence); }
const char* architectureName(GpuArchitecture architecture) {
  return nameOf(kArchitectureNames, architecture);
}
const char* tensorCoreUseName(TensorCoreUse use) {
  // Not in kVerdictNames, which is also the rule file's vocabulary: host verdicts only.
  if (use == TensorCoreUse::kHost) return "host";
  return nameOf(kVerdictNames, use.value());
}

}  // namespace ampscope::analyzer
