#include "analyzer/kernel_table.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "analyzer/kernel_verdicts.h"

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
  if (v.host) return "ran on the host CPU (the trainer's CPU backend): no Tensor Cores to use";
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
  // A name on a GPU and on the host gets two verdicts, so it is keyed with where it ran.
  std::unordered_map<std::uint64_t, std::size_t> row_of;
  // A kernel row's use by a layer and pass, found once per (row, op range): the group's name is
  // compared per op range, not per kernel.
  std::map<std::tuple<std::size_t, std::string_view, trace::Phase>, std::size_t> use_of;
  std::unordered_map<std::uint64_t, std::size_t> use_of_op_range;
  for (const trace::Kernel& kernel : trace.kernels) {
    const std::uint64_t key = (static_cast<std::uint64_t>(kernel.name) << 1) | (verdicts.onHost(kernel) ? 1U : 0U);
    auto [found, fresh] = row_of.try_emplace(key, rows.size());
    if (fresh) {
      KernelRow& row = rows.emplace_back();
      row.name = std::string(trace.str(kernel.name));
      if (const auto mangled = trace.mangledName(kernel.name)) row.mangled_name = std::string(*mangled);
      row.verdict = verdicts.of(kernel);
      row.evidence = verdictEvidence(row.verdict);
    }
    const std::size_t index = found->second;
    const std::int64_t ns = kernel.end_ns - kernel.start_ns;
    ++rows[index].calls;
    rows[index].time_ns += ns;
    const std::uint64_t op_key = (static_cast<std::uint64_t>(index) << 32) |
                                 static_cast<std::uint32_t>(kernel.op_range + 1);
    auto [cached, new_op_range] = use_of_op_range.try_emplace(op_key, 0);
    if (new_op_range) {
      const KernelOrigin& origin = attribution.of(kernel);
      auto [use, new_use] = use_of.try_emplace({index, origin.group, origin.phase}, rows[index].uses.size());
      if (new_use) rows[index].uses.push_back({std::string(origin.group), origin.phase, 0, 0});
      cached->second = use->second;
    }
    KernelUse& u = rows[index].uses[cached->second];
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
