#include "analyzer/advice/communication_advice.h"

#include <fmt/format.h>

#include "analyzer/core/rule_ids.h"

namespace ampscope::analyzer {

namespace {

// Exposed communication worth a change: this share of the step.
constexpr double kWorthOverlapping = 0.03;
constexpr double kWorthHalving = 0.02;

std::string ms(std::int64_t ns) { return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6); }

std::string heaviest(const Communication& c) {
  std::string names;
  for (std::size_t i = 0; i < c.collectives.size() && i < 3; ++i) {
    const CollectiveRow& row = c.collectives[i];
    names += fmt::format("{}{} {} x{} {}", i == 0 ? "" : "; ", collectiveKindName(row.kind), row.name, row.calls,
                         ms(row.time_ns));
  }
  return names;
}

bool isGradientReduction(CollectiveKind kind) {
  return kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter;
}

}  // namespace

std::vector<CommunicationAdvice> adviseCommunication(const TraceSummary& s, std::int64_t step_ns) {
  std::vector<CommunicationAdvice> out;
  const Communication& c = s.communication;
  if (step_ns <= 0 || c.time_ns <= 0) return out;
  const std::string per = c.per_step ? "per step" : "in the window";
  const double step = static_cast<double>(step_ns);
  if (static_cast<double>(c.exposed_ns) >= kWorthOverlapping * step) {
    out.push_back({rule_ids::kOverlapCommunication, "communication",
                   fmt::format("{} {} of collectives ({:.1f}% of the step) run with no other kernel on their device, "
                               "of {} in all ({} overlap compute): {}; the gain assumes half the exposed time can be "
                               "hidden behind compute (the last bucket's reduction never can); a collective's time "
                               "includes waiting for late ranks, which overlap hides but does not remove",
                               ms(c.exposed_ns), per, 100.0 * static_cast<double>(c.exposed_ns) / step, ms(c.time_ns),
                               ms(c.overlapped_ns), heaviest(c)),
                   "Overlap communication with the backward pass: DDP starts each bucket's all-reduce as its gradients "
                   "are ready (tune bucket_cap_mb, gradient_as_bucket_view=True, find_unused_parameters=False); FSDP: "
                   "backward_prefetch=BackwardPrefetch.BACKWARD_PRE and forward_prefetch=True; do not synchronise "
                   "the host between backward and the optimizer step",
                   c.exposed_ns / 2});
  }
  std::int64_t fp32_reduction_ns = 0;
  std::string fp32_names;
  for (const CollectiveRow& row : c.collectives) {
    if (!isGradientReduction(row.kind) || row.element != MathPrecision::kFp32) continue;
    fp32_reduction_ns += row.time_ns;
    fp32_names += fmt::format("{}{} x{} {}", fp32_names.empty() ? "" : "; ", row.name, row.calls, ms(row.time_ns));
  }
  std::int64_t all_ns = 0;
  for (const CollectiveRow& row : c.collectives) all_ns += row.time_ns;
  if (fp32_reduction_ns > 0 && all_ns > 0) {
    // The FP32 reductions' share of the exposed time, in proportion to their share of all
    // collective time; halving their bytes halves a bandwidth-bound collective.
    const auto exposed = static_cast<std::int64_t>(static_cast<double>(c.exposed_ns) *
                                                   static_cast<double>(fp32_reduction_ns) / static_cast<double>(all_ns));
    if (static_cast<double>(exposed) >= kWorthHalving * step) {
      out.push_back({rule_ids::kReduceGradientsInBf16, "communication",
                     fmt::format("gradients are reduced in FP32 ({}); their share of the exposed communication is {} "
                                 "{} ({:.1f}% of the step); in BF16 they move half the bytes, so the gain assumes a "
                                 "bandwidth-bound collective takes half the time (time spent waiting for late ranks "
                                 "does not halve: one rank's trace cannot tell it apart)",
                                 fp32_names, ms(exposed), per, 100.0 * static_cast<double>(exposed) / step),
                     "Reduce gradients in BF16: DDP model.register_comm_hook(None, torch.distributed.algorithms."
                     "ddp_comm_hooks.default_hooks.bf16_compress_hook); FSDP MixedPrecision(reduce_dtype=torch.bfloat16). "
                     "Master weights and the optimizer stay FP32; check convergence, since the sum loses precision",
                     exposed / 2});
    }
  }
  return out;
}

}  // namespace ampscope::analyzer
