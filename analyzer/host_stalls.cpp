#include "analyzer/host_stalls.h"

#include <algorithm>
#include <array>
#include <unordered_map>

#include "analyzer/gemm_shapes.h"
#include "analyzer/shape_checks.h"

namespace ampscope::analyzer {

bool isSynchronizingCall(std::string_view name) {
  static constexpr std::array<std::string_view, 7> kNames = {
      "cudaMemcpy", "cudaMemcpy2D", "cudaMemset", "cudaDeviceSynchronize", "cudaStreamSynchronize",
      "cudaEventSynchronize", "cudaThreadSynchronize"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

std::vector<std::uint8_t> hostBlockingCalls(const trace::Trace& trace) {
  std::vector<std::uint8_t> blocking(trace.launches.size(), 0);
  for (std::size_t i = 0; i < trace.launches.size(); ++i) {
    blocking[i] = isSynchronizingCall(trace.str(trace.launches[i].name)) ? 1 : 0;
  }
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
    const SteadySpans spans(iterations);
    for (const trace::LaunchCall& call : trace.launches) {
      if (!isSynchronizingCall(trace.str(call.name)) || !spans.contains(call.start_ns)) continue;
      sync_ns += call.end_ns - call.start_ns;
      ++sync_calls;
    }
    out.sync_ns_per_iteration = sync_ns / static_cast<std::int64_t>(steady);
    out.sync_calls_per_iteration = static_cast<double>(sync_calls) / static_cast<double>(steady);
  }

  std::unordered_map<std::uint32_t, std::int32_t> sm_count;
  for (const trace::Device& d : trace.devices) sm_count[d.id] = d.sm_count;
  std::unordered_map<trace::Index, bool> eligible;
  double blocks_per_sm = 0;
  for (const trace::Kernel& kernel : trace.kernels) {
    if (kernel.op_range == trace::kNone) continue;
    auto [cached, fresh] = eligible.try_emplace(kernel.op_range, false);
    if (fresh) cached->second = enclosingEligibleOp(trace, kernel.op_range, false) != trace::kNone;
    const auto sms = sm_count.find(kernel.device);
    if (!cached->second || sms == sm_count.end() || sms->second <= 0) continue;
    const double blocks = static_cast<double>(kernel.grid[0]) * kernel.grid[1] * kernel.grid[2];
    blocks_per_sm += blocks / sms->second;
    ++out.matrix_kernels;
  }
  if (out.matrix_kernels > 0) out.matrix_blocks_per_sm = blocks_per_sm / static_cast<double>(out.matrix_kernels);
  return out;
}

}  // namespace ampscope::analyzer
