#pragma once
// The words every stage uses of a kernel's math: its precision, whether it ran on Tensor Cores,
// how sure a verdict is, and the verdict itself. Decided in verdicts/ (from names by the rule
// file, or by evidence); read by the model, the tables and every view.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace ampscope::analyzer {

// The math the kernel does: kFp32Simt is FP32 on CUDA cores; kFp64 is FP64 on either unit (the
// verdict's tensor_core tells which). A non-Tensor-Core kernel may still carry FP16/BF16 (a
// BF16 GEMV runs on CUDA cores). kFp32 is FP32 on the host CPU (host verdicts only; no rule
// row can name it).
// kUnknown first and kFp32 last: PrecisionTimes (time_by_kind.h) indexes an array by them.
enum class MathPrecision { kUnknown, kFp32Simt, kTf32, kFp16, kBf16, kFp8, kInt8, kFp4, kFp64, kFp32 };
// kMeasured: the tensor pipe's hardware counters decided (analyzer/counters/), which outranks any
// reading of the name or the rate; never written in the rule file, which reads names only.
enum class Confidence { kLow, kMedium, kHigh, kMeasured };
// The oldest architecture whose Tensor Cores run what a row matches (kAny for CUDA-core rows).
enum class GpuArchitecture { kAny, kVolta, kTuring, kAmpere, kAda, kHopper, kBlackwell };

// Does a kernel run on Tensor Cores: yes, no, unknown (a matrix kernel no rule and no evidence
// can place), or host (an op of a host CPU device, a trace::DeviceKind::kCpu device such as the
// trainer's CPU backend: there is no Tensor Core to use, so it is neither "no" nor "unknown").
// Unknown stays unknown: it is never counted as "not Tensor Core". In a condition it reads as "yes"
// only, so that code asking "is this Tensor Core time?" counts what is known to be; code that must
// tell the others apart compares with kNo, kUnknown or kHost.
class TensorCoreUse {
 public:
  enum Value : std::uint8_t { kNo, kYes, kUnknown, kHost };
  constexpr TensorCoreUse(Value value = kNo) : value_(value) {}  // NOLINT: a Value is a use
  constexpr explicit operator bool() const { return value_ == kYes; }
  constexpr Value value() const { return value_; }
  friend constexpr bool operator==(TensorCoreUse, TensorCoreUse) = default;

 private:
  Value value_;
};

struct TensorCoreVerdict {
  TensorCoreUse tensor_core = TensorCoreUse::kNo;
  MathPrecision precision = MathPrecision::kUnknown;
  Confidence confidence = Confidence::kLow;
  std::string rule_id;  // the row (or evidence path: tensor_core_evidence.h) that decided; "" when none
  std::string evidence;  // in words, for verdicts not read from a row (inferred); "" for rows
  int alignment = 0;    // operand alignment in elements from "_alignN"/"_alignaN"; 0 when absent
};

// The names of each value, as the rule file (analyzer/rules/tensor_core_rules.tsv) and the reports
// write them: one table per type, read by the rule parser and by the name functions below.
inline constexpr std::array<std::pair<MathPrecision, std::string_view>, 9> kPrecisionNames = {{
    {MathPrecision::kUnknown, "unknown"}, {MathPrecision::kFp32Simt, "FP32-SIMT"},
    {MathPrecision::kTf32, "TF32"}, {MathPrecision::kFp16, "FP16"}, {MathPrecision::kBf16, "BF16"},
    {MathPrecision::kFp8, "FP8"}, {MathPrecision::kInt8, "INT8"}, {MathPrecision::kFp4, "FP4"},
    {MathPrecision::kFp64, "FP64"}}};
inline constexpr std::array<std::pair<Confidence, std::string_view>, 4> kConfidenceNames = {{
    {Confidence::kLow, "low"}, {Confidence::kMedium, "medium"}, {Confidence::kHigh, "high"},
    {Confidence::kMeasured, "measured"}}};
// The confidences a rule row may state: a name is never a measurement.
inline constexpr std::array<std::pair<Confidence, std::string_view>, 3> kRuleConfidenceNames = {{
    {Confidence::kLow, "low"}, {Confidence::kMedium, "medium"}, {Confidence::kHigh, "high"}}};
inline constexpr std::array<std::pair<GpuArchitecture, std::string_view>, 7> kArchitectureNames = {{
    {GpuArchitecture::kAny, "any"}, {GpuArchitecture::kVolta, "volta"},
    {GpuArchitecture::kTuring, "turing"}, {GpuArchitecture::kAmpere, "ampere"},
    {GpuArchitecture::kAda, "ada"}, {GpuArchitecture::kHopper, "hopper"},
    {GpuArchitecture::kBlackwell, "blackwell"}}};
// The rule file's verdicts. Not kHost: a rule reads a kernel's name, and where a kernel ran is its
// device's to say (kernel_verdicts.h, hostVerdict), so the rule parser refuses "host".
inline constexpr std::array<std::pair<TensorCoreUse::Value, std::string_view>, 3> kVerdictNames = {{
    {TensorCoreUse::kYes, "tensor_core"}, {TensorCoreUse::kNo, "not_tensor_core"},
    {TensorCoreUse::kUnknown, "unknown"}}};

const char* precisionName(MathPrecision precision);    // "FP16", "FP32-SIMT", "unknown", ...
const char* confidenceName(Confidence confidence);     // "measured", "high", "medium", "low"
const char* architectureName(GpuArchitecture architecture);  // "ampere", "any", ...
const char* tensorCoreUseName(TensorCoreUse use);  // "tensor_core", "not_tensor_core", "unknown", "host"

}  // namespace ampscope::analyzer
