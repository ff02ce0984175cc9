#pragma once
// Communication of one rank: collective kernels recognised by family, their time per step, how
// much of it ran beside compute on the same device (overlapped) and how much alone (exposed: the
// step waits for it), and, where the launching op recorded its message, the achieved algorithm
// and bus bandwidth by nccl-tests' definitions (PERFORMANCE.md of NVIDIA/nccl-tests):
//   algbw = bytes / time; busbw = algbw x factor, with n ranks
//   all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n; broadcast, reduce,
//   send/recv 1.
// For all-gather the bytes are the gathered output (n x each rank's input), as nccl-tests counts
// them; for reduce-scatter the input. The message comes from the op's recorded elements and dtype
// (PyTorch 2.1+), else its first tensor's shape; n is the op's recorded group size, else the
// job's world size. A message size the trace does not record gives no bandwidth.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/core/tensor_core_verdict.h"
#include "analyzer/correlate/iterations.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

enum class CollectiveKind : std::uint8_t {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kReduce,
  kSendRecv,
  kAllToAll,  // NCCL builds all-to-all from send/recv; MoE dispatch/combine kernels (DeepEP, NVSHMEM)
  kOther,     // a communication kernel of a family not named here
};
const char* collectiveKindName(CollectiveKind kind);  // "all_reduce", "all_gather", ...

// The collective a kernel performs, from its name: NCCL's "ncclKernel_<Coll>_<Algo>_<Proto>_<Op>_
// <type>" and "ncclDevKernel_<Coll>_..." (2.19+), DeepEP's dispatch/combine, NVSHMEM kernels;
// nullopt for kernels that are no communication.
std::optional<CollectiveKind> collectiveKindOfKernel(std::string_view kernel_name);

// The element type a reduction runs in, from an NCCL kernel name's type token ("_float", "_f32",
// "_bf16", "_half", "_f16", "__nv_bfloat16"): FP32, BF16 or FP16; kUnknown for other types (the
// int8_t of send/recv moves bytes, not values) and names without one.
MathPrecision collectiveElementType(std::string_view kernel_name);

// nccl-tests' bus bandwidth factor for n ranks (1 for n < 2 where the factor needs n).
double busBandwidthFactor(CollectiveKind kind, int ranks);

struct CollectiveRow {
  CollectiveKind kind = CollectiveKind::kOther;
  MathPrecision element = MathPrecision::kUnknown;  // what a reduction adds up in, from the name
  std::string name;  // the kernel family as the trace names it: "ncclKernel_AllReduce_RING_LL_Sum_float"
  std::int32_t group_size = 0;  // the process group's size where the ops recorded it; 0 unknown
  std::uint64_t calls = 0;
  std::int64_t time_ns = 0;  // over the trace
  std::uint64_t calls_with_bytes = 0;
  std::uint64_t bytes = 0;              // over the calls whose message size is recorded
  std::int64_t time_with_bytes_ns = 0;  // their time
  std::optional<double> algbw_gbps;     // bytes / time over those calls
  std::optional<double> busbw_gbps;     // needs the job's rank count

  bool operator==(const CollectiveRow&) const = default;
};

// One collective kernel as it ran: what a job's ranks are matched and aligned by.
struct CollectiveCall {
  CollectiveKind kind = CollectiveKind::kOther;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::string group;  // its process group's name where the op recorded it (the same on every rank)
  bool operator==(const CollectiveCall&) const = default;
};

struct Communication {
  bool per_step = true;  // false: the trace has no steps; figures are over window_ns of GPU work
  std::int64_t window_ns = 0;
  int ranks = 0;  // the job's world size where the trace says it; 0 unknown
  // Per steady step (per window without steps), summed over devices.
  std::int64_t time_ns = 0;        // collective kernels running (union per device)
  std::int64_t overlapped_ns = 0;  // of which other kernels ran on the same device
  std::int64_t exposed_ns = 0;     // of which nothing else ran on the device
  std::vector<CollectiveRow> collectives;  // by time, largest first
  std::vector<CollectiveCall> calls;       // every collective kernel of the trace, by start time
  std::string note;  // what the bandwidths could not use
};

// Expects a correlated trace (kernels linked to the ops that launched them).
Communication measureCommunication(const trace::Trace& trace, const IterationSummary& iterations);

}  // namespace ampscope::analyzer
