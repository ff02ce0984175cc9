#pragma once
// One rank of a distributed job, reduced to what the job's analysis needs: its steps split into
// compute, communication, data and idle, its collective families, and the start and end of every
// collective kernel (what ranks are matched and put on one clock by). A few kB per step where a
// trace holds gigabytes: a job of many ranks keeps these, not their events (DESIGN.md,
// "Distributed runs"). `analyze RANK --json` writes it (the map step), `merge` reads it back.
// Integers and strings only, so that it survives JSON exactly.

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/collectives.h"
#include "analyzer/trace_summary.h"
#include "analyzer/step_split.h"

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

  bool operator==(const RankResult&) const = default;
};

// What rankResultOf adds to the summary's timestamps to put them on the rank's clock: the file's
// session start where it says one and its times do not already count from the Unix epoch, else 0.
// A view that draws a rank's events beside the job's results adds this, then the job's
// RankRow::clock_offset_ns.
std::int64_t epochShiftNs(const TraceSummary& summary);

// The compact result of one analyzed rank, from its summary (of the trace read from path).
// source names it in messages and views.
RankResult rankResultOf(const TraceSummary& summary, const std::string& path, std::string source);

}  // namespace ampscope::analyzer
