// The Tensor Core rule file parser (analyzer/verdicts/tensor_core_rules.cpp): the bytes are a rule file.
// A file that parses is then used as the analyzer uses it: every row's example classified, and
// the alignment read from it.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analyzer/verdicts/tensor_core_rules.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using ampscope::analyzer::TensorCoreRules;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto rules = TensorCoreRules::parse(text, "fuzz.tsv");
  if (!rules) return 0;
  for (const auto& rule : rules->rules()) {
    (void)rules->classify(rule.example);
    (void)ampscope::analyzer::alignmentFromName(rule.example);
  }
  (void)rules->classify(text);
  return 0;
}
