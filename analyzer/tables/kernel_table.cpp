#include "analyzer/tables/kernel_table.h"

#include <algorithm>
#include <map>
#include <utility>
#include <unordered_map>

#include <fmt/format.h>


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

std::vector<KernelRow> buildKernelTable(const trace::Trace& trace, const KernelAttribution& kernels) {
  std::vector<KernelRow> rows;
  // A run launches millions of kernels with a few hundred names, from a few thousand origins:
  // each kernel costs two look-ups in flat vectors and one in a hash of (row, use) pairs.
  // The row of each verdict: one per name and where it ran (a name on a GPU and on the host gets
  // two verdicts, and two rows).
  std::vector<std::int32_t> row_of_verdict(kernels.verdicts.size(), -1);
  // A kernel's use (its group and pass) depends only on its origin: interned once per origin
  // (slot 0: no origin) by group and pass.
  std::vector<std::int32_t> use_key_of_origin(kernels.origins.origins.size() + 1, -1);
  std::map<std::pair<std::int32_t, trace::Phase>, std::int32_t> use_key_of_group;
  std::unordered_map<std::uint64_t, std::size_t> use_of;  // (row << 32 | use key) -> index in the row's uses
  for (std::size_t k = 0; k < trace.kernels.size(); ++k) {
    const trace::Kernel& kernel = trace.kernels[k];
    const KernelOwner& owner = kernels.kernels[k];
    std::int32_t& row_index = row_of_verdict[static_cast<std::size_t>(owner.verdict)];
    if (row_index < 0) {
      KernelRow& row = rows.emplace_back();
      row.name = std::string(trace.str(kernel.name));
      if (const auto mangled = trace.mangledName(kernel.name)) row.mangled_name = std::string(*mangled);
      row.verdict = kernels.verdictOf(k);
      row.evidence = verdictEvidence(row.verdict);
      row_index = static_cast<std::int32_t>(rows.size() - 1);
    }
    const auto index = static_cast<std::size_t>(row_index);
    KernelRow& row = rows[index];
    const std::int64_t ns = kernel.end_ns - kernel.start_ns;
    ++row.calls;
    row.time_ns += ns;
    const KernelOrigin& origin = kernels.originOf(k);
    std::int32_t& use_key = use_key_of_origin[static_cast<std::size_t>(owner.origin + 1)];
    if (use_key < 0) {
      use_key = use_key_of_group.try_emplace({origin.group, origin.phase}, use_key_of_group.size()).first->second;
    }
    const std::uint64_t use_id = (static_cast<std::uint64_t>(index) << 32) | static_cast<std::uint32_t>(use_key);
    auto [use, new_use] = use_of.try_emplace(use_id, row.uses.size());
    if (new_use) row.uses.push_back({std::string(kernels.origins.label(origin.group)), origin.phase, 0, 0});
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
