#pragma once
// Every kernel of the run by name (and where it ran: a name on a GPU and on the host are two
// rows), with its Tensor Core verdict, the evidence for it in words, and its time split by the
// layer (or top-level operator) and pass that launched it: what the kernel views filter and sum.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/model/kernel_attribution.h"
#include "analyzer/model/row_performance.h"
#include "analyzer/verdicts/tensor_core_rules.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

// Where one kernel's calls came from: a layer (or top-level operator; empty: none) and a pass.
struct KernelUse {
  std::string group;
  trace::Phase pass = trace::Phase::kUnknown;
  std::uint64_t calls = 0;
  std::int64_t time_ns = 0;
};

struct KernelRow {
  std::string name;
  std::string mangled_name;  // the symbol the file gave, where the importer demangled it; "" otherwise
  TensorCoreVerdict verdict;
  std::string evidence;  // why the verdict: the rule's pattern and note, its confidence, alignment
  std::uint64_t calls = 0;
  std::int64_t time_ns = 0;
  std::vector<KernelUse> uses;  // in the order first seen
  std::string heaviest_group;   // the layer (or top-level operator) most of its time ran for; "": none
  std::size_t groups = 0;       // how many layers (or operators) ran it
  RowPerformance performance;   // the per-op model over the ops that ran it (layer_performance.h)
  // The tensor pipe's measured busy share over `measured_tensor_ns` of its time (hardware counters:
  // analyzer/counters/); nullopt where none of its kernels was measured.
  std::optional<double> measured_tensor_active;
  std::int64_t measured_tensor_ns = 0;
};

// "high confidence: the name matches (?i)sm80_xmma... (FP32 FMA despite xmma); operands aligned
// to 4 elements".
std::string verdictEvidence(const TensorCoreVerdict& verdict, const TensorCoreRules& rules = TensorCoreRules::builtin());

// Heaviest first: a row per verdict of the per-kernel table (a name and where it ran), each
// kernel's use its origin's group and pass.
std::vector<KernelRow> buildKernelTable(const trace::Trace& trace, const KernelAttribution& kernels);

}  // namespace ampscope::analyzer
