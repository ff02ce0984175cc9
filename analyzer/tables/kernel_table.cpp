#include "analyzer/tables/kernel_table.h"

#include <algorithm>
#include <map>
#include <utility>
#include <unordered_map>

#include <fmt/format.h>

#include "analyzer/core/memo_by_id.h"
#include "analyzer/verdicts/kernel_verdicts.h"

namespace ampscope::analyzer {

namespace {

const TensorCoreRule* ruleNamed(const TensorCoreRules& rules, const std::string& id) {
  for (const TensorCoreRule& rule : rules.rules()) {
    if (rule.id == id) return &rule;
  }
  return nullptr;
}

}  // namespace

std::string verdictEvidence(const TensorCoreVerdict& v, const TensorCoreRules& rules) {
  if (v.tensor_core == TensorCoreUse::kHost) return "ran on the host CPU (the trainer's CPU backend): no Tensor Cores to use";
  // Verdicts from evidence beyond the rows (and unknown ones) say in words what they rest on.
  if (!v.evidence.empty()) return fmt::format("{} confidence: {}", confidenceName(v.confidence), v.evidence);
  std::string out;
  const TensorCoreRule* rule = v.rule_id.empty() ? nullptr : ruleNamed(rules, v.rule_id);
  // A row that matches even an empty name is the rules' fallback: no family was recognised.
  if (rule && !rule->matches("")) {
    out = fmt::format("{} confidence: the name matches {}", confidenceName(v.confidence), rule->pattern);
  } else {
    out = fmt::format("{} confidence: no kernel family recognised in the name", confidenceName(v.confidence));
  }
  if (rule && !rule->note.empty()) out += fmt::format(" ({})", rule->note);
  if (v.alignment > 0) out += fmt::format("; operands aligned to {} element{}", v.alignment, v.alignment == 1 ? "" : "s");
  return out;
}

std::vector<KernelRow> buildKernelTable(const trace::Trace& trace, LayerAttribution& attribution,
                                        const TensorCoreEvidence* evidence) {
  KernelVerdicts verdicts(trace, evidence);
  std::vector<KernelRow> rows;
  // A run launches millions of kernels with a few hundred names, under as many op ranges: each
  // kernel costs two look-ups in flat vectors and one in a hash of (row, use) pairs, which holds
  // a few thousand entries, not one per op range.
  // The row of each name, keyed with where it ran (a name on a GPU and on the host gets two
  // verdicts): by (name id << 1 | on host).
  IndexById row_of_key;
  // A kernel's layer (or operator) and pass depend only on its op range: interned once per op
  // range (slot 0: no op range), by name and pass, so that a group's name is compared per op
  // range and not per kernel.
  std::vector<std::int32_t> use_key_of_op_range(trace.ranges.size() + 1, -1);
  std::map<std::pair<std::string_view, trace::Phase>, std::int32_t> use_key_of_origin;
  std::unordered_map<std::uint64_t, std::size_t> use_of;  // (row << 32 | use key) -> index in the row's uses
  for (const trace::Kernel& kernel : trace.kernels) {
    const std::size_t key = (static_cast<std::size_t>(kernel.name) << 1) | (verdicts.onHost(kernel) ? 1U : 0U);
    const auto index = static_cast<std::size_t>(row_of_key.get(key, [&] {
      KernelRow& row = rows.emplace_back();
      row.name = std::string(trace.str(kernel.name));
      if (const auto mangled = trace.mangledName(kernel.name)) row.mangled_name = std::string(*mangled);
      row.verdict = verdicts.of(kernel);
      row.evidence = verdictEvidence(row.verdict);
      return static_cast<std::int32_t>(rows.size() - 1);
    }));
    KernelRow& row = rows[index];
    const std::int64_t ns = kernel.end_ns - kernel.start_ns;
    ++row.calls;
    row.time_ns += ns;
    std::int32_t& use_key = use_key_of_op_range[static_cast<std::size_t>(kernel.op_range + 1)];
    const KernelOrigin* origin = nullptr;
    if (use_key < 0) {
      origin = &attribution.of(kernel);
      use_key = use_key_of_origin.try_emplace({origin->group, origin->phase}, use_key_of_origin.size()).first->second;
    }
    const std::uint64_t use_id = (static_cast<std::uint64_t>(index) << 32) | static_cast<std::uint32_t>(use_key);
    auto [use, new_use] = use_of.try_emplace(use_id, row.uses.size());
    if (new_use) {
      if (origin == nullptr) origin = &attribution.of(kernel);
      row.uses.push_back({std::string(origin->group), origin->phase, 0, 0});
    }
    KernelUse& u = row.uses[use->second];
    ++u.calls;
    u.time_ns += ns;
  }
  for (KernelRow& row : rows) {
    std::map<std::string_view, std::int64_t> group_time;  // over every pass
    for (const KernelUse& use : row.uses) {
      if (!use.group.empty()) group_time[use.group] += use.time_ns;
    }
    row.groups = group_time.size();
    const auto heaviest = std::max_element(group_time.begin(), group_time.end(),
                                           [](const auto& a, const auto& b) { return a.second < b.second; });
    if (heaviest != group_time.end()) row.heaviest_group = std::string(heaviest->first);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const KernelRow& a, const KernelRow& b) {
    return a.time_ns != b.time_ns ? a.time_ns > b.time_ns : a.name < b.name;
  });
  return rows;
}

}  // namespace ampscope::analyzer
