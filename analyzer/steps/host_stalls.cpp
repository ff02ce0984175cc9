#include "analyzer/steps/host_stalls.h"

#include <algorithm>
#include <array>
#include <unordered_map>

#include "analyzer/core/gemm_shapes.h"
#include "analyzer/core/memo_by_id.h"
#include "analyzer/correlate/eligible_ops.h"

namespace ampscope::analyzer {

bool isSynchronizingCall(std::string_view name) {
  static constexpr std::array<std::string_view, 7> kNames = {
      "cudaMemcpy", "cudaMemcpy2D", "cudaMemset", "cudaDeviceSynchronize", "cudaStreamSynchronize",
      "cudaEventSynchronize", "cudaThreadSynchronize"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

namespace {

// isSynchronizingCall decided once per call name: a run makes millions of calls with a few dozen
// names.
class SynchronizingNames {
 public:
  explicit SynchronizingNames(const trace::Trace& trace) : trace_(trace) {}

  bool of(const trace::LaunchCall& call) {
    return synchronizing_(call.name, [&] { return isSynchronizingCall(trace_.str(call.name)); });
  }

 private:
  const trace::Trace& trace_;
  NameTest synchronizing_;
};

}  // namespace

std::vector<std::uint8_t> hostBlockingCalls(const trace::Trace& trace) {
  std::vector<std::uint8_t> blocking(trace.launches.size(), 0);
  SynchronizingNames synchronizing(trace);
  for (std::size_t i = 0; i < trace.launches.size(); ++i) blocking[i] = synchronizing.of(trace.launches[i]) ? 1 : 0;
  for (const trace::MemoryOp& op : trace.memory_ops) {
    const bool pageable = op.src_kind == trace::MemoryKind::kPageable || op.dst_kind == trace::MemoryKind::kPageable;
    if (op.launch != trace::kNone && op.kind == trace::MemoryOpKind::kMemcpy && pageable) {
      blocking[static_cast<std::size_t>(op.launch)] = 1;
    }
  }
  return blocking;
}

HostStalls measureHostStalls(const trace::Trace& trace, const IterationSummary& iterations) {
  HostStalls out;
  const std::size_t steady = iterations.steadyCount();
  if (steady > 0) {
    std::int64_t sync_ns = 0;
    std::uint64_t sync_calls = 0;
    const SteadySpans spans(iterations, StepClock::kHost);
    SynchronizingNames synchronizing(trace);
    for (const trace::LaunchCall& call : trace.launches) {
      if (!synchronizing.of(call) || !spans.contains(call.start_ns)) continue;
      sync_ns += call.end_ns - call.start_ns;
      ++sync_calls;
    }
    out.sync_ns_per_iteration = sync_ns / static_cast<std::int64_t>(steady);
    out.sync_calls_per_iteration = static_cast<double>(sync_calls) / static_cast<double>(steady);
  }

  std::unordered_map<std::uint32_t, std::int32_t> sm_count;
  for (const trace::Device& d : trace.devices) sm_count[d.id] = d.sm_count;
  EligibleOps eligible_ops(trace);
  double blocks_per_sm = 0;
  for (const trace::Kernel& kernel : trace.kernels) {
    if (kernel.op_range == trace::kNone) continue;
    const auto sms = sm_count.find(kernel.device);
    if (sms == sm_count.end() || sms->second <= 0 || eligible_ops.enclosing(kernel.op_range, false) == trace::kNone) {
      continue;
    }
    const double blocks = static_cast<double>(kernel.grid[0]) * kernel.grid[1] * kernel.grid[2];
    blocks_per_sm += blocks / sms->second;
    ++out.matrix_kernels;
  }
  if (out.matrix_kernels > 0) out.matrix_blocks_per_sm = blocks_per_sm / static_cast<double>(out.matrix_kernels);
  return out;
}

}  // namespace ampscope::analyzer
