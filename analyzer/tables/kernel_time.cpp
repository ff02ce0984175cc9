#include "analyzer/tables/kernel_time.h"

#include <algorithm>
#include <unordered_map>

#include "analyzer/core/memo_by_id.h"
#include "analyzer/core/operator_labels.h"
#include "analyzer/core/time_by_kind.h"
#include "analyzer/verdicts/tensor_core_rules.h"

namespace ampscope::analyzer {

namespace {

using trace::Index;
using trace::kNone;

// Accumulates kernel time per group (an operator name or a layer name). Groups are named once:
// callers look a group up by name when they first meet its key, and add each kernel by index.
class GroupAccumulator {
 public:
  explicit GroupAccumulator(const trace::Trace& trace) : trace_(trace), counted_range_(trace.ranges.size(), false) {}

  std::size_t groupNamed(const std::string& name) {
    auto [found, fresh] = index_of_name_.try_emplace(name, groups_.size());
    if (fresh) groups_.emplace_back().name = name;
    return found->second;
  }

  // A range counts as one call of its group however many kernels it launched; each range must
  // be added under one group only (kNone, "no op", may be under several).
  void add(std::size_t group_index, Index op_range, trace::Phase phase, trace::StringId kernel,
           const TensorCoreVerdict& verdict, std::int64_t duration_ns) {
    Group& group = groups_[group_index];
    if (op_range == kNone) {
      group.unattributed = true;
    } else if (!counted_range_[static_cast<std::size_t>(op_range)]) {
      counted_range_[static_cast<std::size_t>(op_range)] = true;
      ++group.ranges;
    }
    ++group.kernels;
    group.time_ns += duration_ns;
    if (verdict.tensor_core) group.tensor_core_ns += duration_ns;
    group.phase_time.add(phase, duration_ns);
    auto [slot, fresh] = kernel_slot_.try_emplace((static_cast<std::uint64_t>(group_index) << 32) | kernel,
                                                  group.kernel_times.size());
    if (fresh) group.kernel_times.push_back({kernel, nullptr, 0, 0});
    Kernel& k = group.kernel_times[slot->second];
    k.verdict = &verdict;
    ++k.calls;
    k.time_ns += duration_ns;
  }

  // Every group, heaviest first, each with every kernel.
  std::vector<GroupTime> all() const {
    std::vector<GroupTime> out;
    for (const Group& group : groups_) {
      GroupTime g;
      g.name = group.name;
      g.op_calls = group.ranges + (group.unattributed ? 1 : 0);
      g.kernels = group.kernels;
      g.gpu_time_ns = group.time_ns;
      g.tensor_core_time_ns = group.tensor_core_ns;
      g.phase = group.phase_time.empty() ? "unknown" : trace::phaseName(group.phase_time.heaviest());
      for (const Kernel& kernel : group.kernel_times) {
        g.kernel_times.push_back({std::string(trace_.str(kernel.name)), kernel.calls, kernel.time_ns, *kernel.verdict});
      }
      std::sort(g.kernel_times.begin(), g.kernel_times.end(), [](const KernelTime& a, const KernelTime& b) {
        return a.time_ns != b.time_ns ? a.time_ns > b.time_ns : a.name < b.name;
      });
      out.push_back(std::move(g));
    }
    std::sort(out.begin(), out.end(), [](const GroupTime& a, const GroupTime& b) {
      return a.gpu_time_ns != b.gpu_time_ns ? a.gpu_time_ns > b.gpu_time_ns : a.name < b.name;
    });
    return out;
  }

 private:
  struct Kernel {
    trace::StringId name;
    const TensorCoreVerdict* verdict;  // the last one added (the per-kernel table keeps it)
    std::uint64_t calls;
    std::int64_t time_ns;
  };
  struct Group {
    std::string name;
    std::uint64_t ranges = 0;
    bool unattributed = false;  // kernels launched by no op range count as one call
    std::uint64_t kernels = 0;
    std::int64_t time_ns = 0;
    std::int64_t tensor_core_ns = 0;
    PhaseTimes phase_time;
    std::vector<Kernel> kernel_times;
  };
  const trace::Trace& trace_;
  std::vector<Group> groups_;
  std::unordered_map<std::string, std::size_t> index_of_name_;
  std::unordered_map<std::uint64_t, std::size_t> kernel_slot_;  // (group, kernel name) -> into its kernel_times
  std::vector<bool> counted_range_;
};

// Kernel and Tensor Core time inside each iteration. Kernels are sorted by start and
// iterations do not overlap, so one pass with a moving first iteration does it; a kernel that
// crosses a step's end also counts in the next step, for the part inside each.
std::vector<StepKernelTime> kernelTimePerStep(const trace::Trace& trace, const IterationSummary& iterations,
                                              const KernelAttribution& kernels) {
  const std::vector<Iteration>& steps = iterations.iterations;
  std::vector<StepKernelTime> out(steps.size());
  std::size_t first = 0;
  for (std::size_t k = 0; k < trace.kernels.size(); ++k) {
    const trace::Kernel& kernel = trace.kernels[k];
    while (first < steps.size() && steps[first].end_ns <= kernel.start_ns) ++first;
    const bool tensor_core = static_cast<bool>(kernels.verdictOf(k).tensor_core);
    for (std::size_t i = first; i < steps.size() && steps[i].start_ns < kernel.end_ns; ++i) {
      const std::int64_t inside =
          std::min(kernel.end_ns, steps[i].end_ns) - std::max(kernel.start_ns, steps[i].start_ns);
      if (inside <= 0) continue;
      out[i].kernel_ns += inside;
      if (tensor_core) out[i].tensor_core_ns += inside;
    }
  }
  return out;
}

}  // namespace

KernelTimeTables measureKernelTime(const trace::Trace& trace, const KernelAttribution& kernels,
                                   const IterationSummary& iterations) {
  KernelTimeTables out;
  GroupAccumulator by_operator(trace);
  GroupAccumulator by_layer(trace);
  out.tensor_cores.rules_version = TensorCoreRules::builtin().version();
  PrecisionTimes tensor_core_precision_time;
  // Each group's name is built once per top-level call or layer name, not per kernel.
  IndexById operator_group_of_top;  // by the top-level call's range index
  IndexById layer_group_of_name;    // by the layer's string id
  const auto groupOnce = [](IndexById& memo, std::size_t id, const auto& groupNamed) {
    return static_cast<std::size_t>(memo.get(id, [&] { return static_cast<std::int32_t>(groupNamed()); }));
  };
  TensorCoreTime& tensor_cores = out.tensor_cores;
  for (std::size_t k = 0; k < trace.kernels.size(); ++k) {
    const trace::Kernel& kernel = trace.kernels[k];
    const std::int64_t duration = kernel.end_ns - kernel.start_ns;
    out.kernel_time_ns += duration;
    const TensorCoreVerdict& verdict = kernels.verdictOf(k);
    if (verdict.tensor_core == TensorCoreUse::kYes) {
      tensor_cores.time_ns += duration;
      tensor_core_precision_time.add(verdict.precision, duration);
      switch (verdict.confidence) {
        case Confidence::kMeasured: tensor_cores.measured_ns += duration; break;
        case Confidence::kHigh: tensor_cores.high_confidence_ns += duration; break;
        case Confidence::kMedium: tensor_cores.medium_confidence_ns += duration; break;
        case Confidence::kLow: tensor_cores.low_confidence_ns += duration; break;
      }
    } else if (verdict.tensor_core == TensorCoreUse::kUnknown) {
      tensor_cores.unknown_time_ns += duration;
    }
    const KernelOrigin& origin = kernels.originOf(k);
    if (origin.op_range == kNone) {
      const std::size_t group = by_operator.groupNamed(kernel.launch == kNone ? "(no launch call in the trace)"
                                                                              : "(launched outside any operator)");
      by_operator.add(group, kNone, trace::Phase::kUnknown, kernel.name, verdict, duration);
      continue;
    }
    const Index top = origin.top_level_op;
    const std::size_t operator_group = groupOnce(operator_group_of_top, static_cast<std::size_t>(top), [&] {
      return by_operator.groupNamed(operatorLabel(trace, trace.ranges[static_cast<std::size_t>(top)]));
    });
    by_operator.add(operator_group, top, origin.phase, kernel.name, verdict, duration);
    if (origin.layer != trace::StringTable::kEmpty) {
      const std::size_t layer_group = groupOnce(layer_group_of_name, origin.layer, [&] {
        return by_layer.groupNamed(std::string(trace.str(origin.layer)));
      });
      by_layer.add(layer_group, origin.op_range, origin.phase, kernel.name, verdict, duration);
    }
  }
  tensor_core_precision_time.forEach([&](MathPrecision precision, std::int64_t ns) {
    tensor_cores.by_precision[precisionName(precision)] += ns;
  });
  if (out.kernel_time_ns > 0) {
    tensor_cores.fraction = static_cast<double>(tensor_cores.time_ns) / static_cast<double>(out.kernel_time_ns);
    tensor_cores.unknown_fraction =
        static_cast<double>(tensor_cores.unknown_time_ns) / static_cast<double>(out.kernel_time_ns);
  }
  tensor_cores.per_step = kernelTimePerStep(trace, iterations, kernels);
  out.operators = by_operator.all();
  out.layers = by_layer.all();
  return out;
}

}  // namespace ampscope::analyzer
