#include "analyzer/job/rank_result.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "analyzer/job/rank_tables.h"

namespace ampscope::analyzer {

namespace {

// Timestamps above 10^18 ns (September 2001) count from the Unix epoch: no recording session runs
// that long, and every epoch-based recorder (Kineto's microseconds since 1970, CUPTI's clock)
// writes such values.
constexpr std::int64_t kEpochThresholdNs = 1'000'000'000'000'000'000;

// The earliest time the rank's results hold (its steps and collectives): what tells its clock.
std::int64_t firstTimestamp(const TraceSummary& summary) {
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  if (!summary.iterations.iterations.empty()) first = summary.iterations.iterations.front().start_ns;
  if (!summary.communication.calls.empty()) first = std::min(first, summary.communication.calls.front().start_ns);
  return first;
}

bool countsFromEpoch(const TraceSummary& summary) {
  const std::int64_t first = firstTimestamp(summary);
  return first != std::numeric_limits<std::int64_t>::max() && first >= kEpochThresholdNs;
}

// The file says where its session's clock starts and its times do not count from the epoch.
bool shiftsToEpoch(const TraceSummary& summary) { return summary.epoch_offset_ns && !countsFromEpoch(summary); }

std::string devicesOf(const TraceSummary& summary) {
  std::string out;
  for (const DeviceSummary& d : summary.devices) {
    if (d.kernels == 0) continue;
    if (!out.empty()) out += ", ";
    out += d.name.empty() ? fmt::format("device {}", d.id) : fmt::format("{} (device {})", d.name, d.id);
  }
  return out.empty() ? "no device ran work" : out;
}

RankFindings findingsOf(const TraceSummary& summary, const std::vector<Recommendation>& recommendations) {
  RankFindings out;
  if (!summary.recorded_on_cpu) {
    out.tensor_core_share = finiteFigure(summary.tensor_cores.fraction);
    out.tensor_core_unknown_share = finiteFigure(summary.tensor_cores.unknown_fraction);
  }
  const AmdahlProjection& amp = summary.amdahl;
  if (!amp.parts.empty()) {
    out.amp_projected_speedup = finiteFigure(amp.projected_speedup);
    out.amp_reachable_speedup = finiteFigure(amp.reachableSpeedup());
    out.amp_ceiling = finiteFigure(amp.ceiling);
    out.amp_device = amp.device.name;
  }
  out.amp_per_step = amp.per_step;
  out.amp_note = amp.note;
  if (summary.tf32.relevant) {
    out.tf32_projected_speedup = finiteFigure(summary.tf32.projected_speedup);
    out.tf32_matrix_speedup = finiteFigure(summary.tf32.matrix_speedup);
  }
  if (const DeviceMemory* memory = summary.memory.primaryDevice()) {
    out.memory_peak_allocated_bytes = memory->peak_allocated_bytes;
    if (summary.memory.amp.applies) out.memory_amp_projected_peak_bytes = summary.memory.amp.projected_peak_allocated_bytes;
  }
  out.recommendations = recommendations;
  for (Recommendation& r : out.recommendations) {
    r.ops.clear();
    r.layers.clear();
    if (!std::isfinite(r.estimated_gain_pct)) r.estimated_gain_pct = 0;
  }
  return out;
}

}  // namespace

const char* rankOriginName(RankOrigin origin) {
  switch (origin) {
    case RankOrigin::kDistributedInfo: return "distributed_info";
    case RankOrigin::kProcess: return "process";
    case RankOrigin::kFileOrder: break;
  }
  return "file_order";
}

std::int64_t epochShiftNs(const TraceSummary& summary) {
  return shiftsToEpoch(summary) ? *summary.epoch_offset_ns : 0;
}

RankResult rankResultOf(const TraceSummary& summary, const std::vector<Recommendation>& recommendations,
                        const std::string& path, std::string source) {
  RankResult out;
  if (summary.distributed.rankKnown()) {
    out.rank = summary.distributed.rank;
    out.origin = RankOrigin::kDistributedInfo;
  }
  out.recorded_world_size = summary.distributed.world_size;
  out.backend = summary.distributed.backend;
  out.device = devicesOf(summary);
  out.clock = countsFromEpoch(summary) ? std::string(kUnixEpochClock) : "session:" + path;
  out.source = std::move(source);
  out.file = path;
  out.steps_source = summary.iterations.source;
  out.steps = summary.step_splits;
  out.collectives = summary.communication.collectives;
  for (CollectiveRow& row : out.collectives) {
    row.algbw_gbps.reset();
    row.busbw_gbps.reset();
  }
  out.calls = summary.communication.calls;
  out.findings = findingsOf(summary, recommendations);
  out.tables = rankTablesOf(summary);
  // A file that says where its clock starts (an Nsight export's session start) is put on the
  // epoch here, so that ranks recorded in separate sessions share a clock.
  if (shiftsToEpoch(summary)) {
    const std::int64_t shift = *summary.epoch_offset_ns;
    for (StepSplit& s : out.steps) {
      s.start_ns += shift;
      s.end_ns += shift;
    }
    for (CollectiveCall& c : out.calls) {
      c.start_ns += shift;
      c.end_ns += shift;
    }
    out.clock = std::string(kUnixEpochClock);
  }
  return out;
}

}  // namespace ampscope::analyzer
