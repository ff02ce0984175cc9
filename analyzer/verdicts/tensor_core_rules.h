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

#include "analyzer/core/tensor_core_verdict.h"
#include "trace/result.h"

namespace re2 {
class RE2;
}

namespace ampscope::analyzer {

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

}  // namespace ampscope::analyzer
