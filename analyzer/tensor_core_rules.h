#pragma once
// Does a GPU kernel use Tensor Cores, and in which precision? Decided from the kernel's name by
// ordered rules kept as data (analyzer/rules/tensor_core_rules.tsv, compiled into the binary),
// because every GPU generation and library release brings new names: a new name family is a new
// row and its test, not new code. Format and sources: docs/tensor_core_rules.md.
//
// A name is evidence, not proof: each verdict says how sure it is. Where the collector has the
// kernel's SASS (HMMA/HGMMA/IMMA/QGMMA instructions), that is ground truth and overrides the name.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "trace/result.h"

namespace re2 {
class RE2;
}

namespace ampscope::analyzer {

// The math the kernel does: kFp32Simt is FP32 on CUDA cores; kFp64 is FP64 on either unit (the
// verdict's tensor_core tells which). A non-Tensor-Core kernel may still carry FP16/BF16 (a
// BF16 GEMV runs on CUDA cores). kFp32 is FP32 on the host CPU (host verdicts only; no rule
// row can name it).
// kUnknown first and kFp32 last: PrecisionTimes (time_by_kind.h) indexes an array by them.
enum class MathPrecision { kUnknown, kFp32Simt, kTf32, kFp16, kBf16, kFp8, kInt8, kFp4, kFp64, kFp32 };
enum class Confidence { kLow, kMedium, kHigh };
// The oldest architecture whose Tensor Cores run what a row matches (kAny for CUDA-core rows).
enum class GpuArchitecture { kAny, kVolta, kTuring, kAmpere, kAda, kHopper, kBlackwell };

// Does a kernel run on Tensor Cores: yes, no, or unknown (a matrix kernel no rule and no evidence
// can place). Unknown stays unknown: it is never counted as "not Tensor Core". In a condition it
// reads as "yes" only, so that code asking "is this Tensor Core time?" counts what is known to be;
// code that must tell "no" from "unknown" compares with kNo/kUnknown.
class TensorCoreUse {
 public:
  enum Value : std::uint8_t { kNo, kYes, kUnknown };
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
  // The kernel ran on the host CPU (a trace::DeviceKind::kCpu device: the trainer's CPU backend):
  // there is no Tensor Core question, so tensor_core is false without meaning "missed them".
  bool host = false;
};

// One RE2 expression of a row's pattern (a pattern is one or more joined by " && ").
struct RuleExpression {
  std::string text;  // as written, "(?i)" prefix included
  std::shared_ptr<const re2::RE2> re2;
  bool icase = false;  // a leading "(?i)"
  // Read from the expression: a match holds at least one literal of each group (lower-cased for
  // "(?i)"). A substring test that lets classify() skip the expression for most rows.
  std::vector<std::vector<std::string>> required_literals;
};

struct TensorCoreRule {
  std::string id;
  std::string pattern;  // as written in the file
  GpuArchitecture architecture = GpuArchitecture::kAny;
  MathPrecision precision = MathPrecision::kUnknown;
  TensorCoreUse tensor_core = TensorCoreUse::kNo;
  Confidence confidence = Confidence::kLow;
  std::string example;  // a real kernel name this row must decide
  std::string note;
  int line = 0;  // 1-based line in the rule file
  std::vector<RuleExpression> expressions;  // every one must match somewhere in the name

  // Every expression matches the whole name (no prefilter, no cut).
  bool matches(std::string_view name) const;
  // False when the name lacks a literal some expression requires; `lowered_name` is the name
  // in lower case, for "(?i)" expressions.
  bool mayMatch(std::string_view name, std::string_view lowered_name) const;
};

class TensorCoreRules {
 public:
  // Errors name the source, the line and the column, what was found and what was expected.
  static trace::Result<TensorCoreRules> parse(std::string_view tsv_text,
                                              std::string_view source_name);
  // The rule file built into the binary. Should it fail to parse (only possible when the file was
  // edited without running the tests), this set is empty and builtinStatus() says why.
  static const TensorCoreRules& builtin();
  static trace::Status builtinStatus();

  // The first matching row decides, over the whole name; no match gives a low-confidence
  // "unknown" with an empty rule id.
  TensorCoreVerdict classify(std::string_view kernel_name) const;

  const std::vector<TensorCoreRule>& rules() const { return rules_; }
  int version() const { return version_; }

 private:
  int version_ = 0;
  std::vector<TensorCoreRule> rules_;
};

// "_align8" -> 8, "_aligna4" (xmma's A-operand alignment) -> 4, none -> 0.
int alignmentFromName(std::string_view kernel_name);

const char* precisionName(MathPrecision precision);    // "FP16", "FP32-SIMT", "unknown", ...
const char* confidenceName(Confidence confidence);     // "high", "medium", "low"
const char* architectureName(GpuArchitecture architecture);  // "ampere", "any", ...
const char* tensorCoreUseName(TensorCoreUse use);  // "tensor_core", "not_tensor_core", "unknown"

}  // namespace ampscope::analyzer
