#pragma once
// One rank of a distributed job, reduced to what the job's analysis and views need: its steps split
// into compute, communication, data and idle, its collective families, the start and end of every
// collective kernel (what ranks are matched and put on one clock by), and what its own analysis
// found: its Tensor Core share, AMP and TF32 projections, recommendations, and its kernel, layer and
// op tables (rank_tables.h). A few kB per step and per kernel name or layer where a trace holds
// gigabytes: a job of many ranks keeps these, not their events (docs/distributed.md).
// `analyze RANK --json` writes it (the map step), `merge` reads it back. Integers, strings and
// finite numbers, so that it survives JSON exactly.

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/advice/recommendations.h"
#include "analyzer/job/rank_tables.h"
#include "analyzer/steps/collectives.h"
#include "analyzer/steps/step_split.h"
#include "analyzer/summary/trace_summary.h"

namespace ampscope::analyzer {

// Where a rank's number comes from, most trusted first.
enum class RankOrigin : std::uint8_t {
  kDistributedInfo,  // the trace says it (Kineto's "distributedInfo")
  kProcess,          // one process of a file that holds several, numbered by device, then pid
  kFileOrder,        // the order of the files given (said so in the output)
};
const char* rankOriginName(RankOrigin origin);  // "distributed_info", "process", "file_order"

// The clock a trace's timestamps count on. Traces that count from the Unix epoch (Kineto, CUPTI)
// read the hosts' clocks, one clock where the hosts agree; any other counts from its own
// recording's start ("session:" and the file) and shares a clock only with the file's other ranks.
inline constexpr std::string_view kUnixEpochClock = "unix-epoch";

// What a rank's own analysis found, as its summary and recommendations say it.
struct RankFindings {
  // Tensor Core time over all kernel time (TensorCoreTime::fraction) and the share whose verdict
  // stays unknown; nullopt on a CPU run, where Tensor Cores do not apply.
  std::optional<double> tensor_core_share;
  std::optional<double> tensor_core_unknown_share;
  // AMP (amdahl.h): nullopt where there is no projection, amp_note saying why (an unknown device, a
  // CPU run, no GPU work); per step, or over the trace's window where amp_per_step is false.
  std::optional<double> amp_projected_speedup;
  std::optional<double> amp_reachable_speedup;  // at the host's pace (AmdahlProjection::reachableSpeedup)
  std::optional<double> amp_ceiling;            // with infinitely fast math
  bool amp_per_step = true;
  std::string amp_device;  // the device row projected on; "" without a projection
  std::string amp_note;
  // allow_tf32 (tf32_projection.h): nullopt where it is not relevant (no FP32 matrix math on CUDA
  // cores, or a GPU without TF32 Tensor Cores).
  std::optional<double> tf32_projected_speedup;
  std::optional<double> tf32_matrix_speedup;
  // Memory (memory/memory_analysis.h): the primary device's peak allocated, measured, and the peak
  // AMP's projection gives the steps' peak; nullopt where the rank recorded no memory events or
  // no projection applies.
  std::optional<std::int64_t> memory_peak_allocated_bytes;
  std::optional<std::int64_t> memory_amp_projected_peak_bytes;
  // Every recommendation of its analysis, largest gain first, gains per its own step (or window);
  // their op and layer lists are left out: its tables hold those rows.
  std::vector<Recommendation> recommendations;

  bool operator==(const RankFindings&) const = default;
};

struct RankResult {
  std::int32_t rank = -1;  // -1 until the job numbers it (where the trace does not say)
  RankOrigin origin = RankOrigin::kFileOrder;
  std::int32_t recorded_world_size = 0;  // as the trace says it; 0 unknown
  std::string backend;                   // "nccl", ... where the trace says it
  std::string source;                    // the file, with the process where the file holds several
  std::string file;                      // the trace file it was read from
  std::int64_t pid = trace::kUnknownPid; // its process where the file holds several (else unknown)
  std::string device;  // the GPUs (or the CPU) it ran on, as the trace names them
  std::string clock;   // kUnixEpochClock or "session:<file>"; the times below count on it (a
                       // trace whose file gives its session's epoch start is shifted onto the epoch)
  std::string steps_source;               // IterationSummary::source
  std::vector<StepSplit> steps;           // every iteration, warm-up ones flagged
  std::vector<CollectiveRow> collectives; // per family; bandwidths are the job's to compute
  std::vector<CollectiveCall> calls;      // every collective kernel, by start time
  RankFindings findings;
  RankTables tables;

  bool operator==(const RankResult&) const = default;
};

// What rankResultOf adds to the summary's timestamps to put them on the rank's clock: the file's
// session start where it says one and its times do not already count from the Unix epoch, else 0.
// A view that draws a rank's events beside the job's results adds this, then the job's
// RankRow::clock_offset_ns.
std::int64_t epochShiftNs(const TraceSummary& summary);

// The compact result of one analyzed rank, from its summary (of the trace read from path) and
// recommendations. source names it in messages and views.
RankResult rankResultOf(const TraceSummary& summary, const std::vector<Recommendation>& recommendations,
                        const std::string& path, std::string source);

}  // namespace ampscope::analyzer
