#pragma once
// A distributed job, analyzed from its ranks' compact results (rank_result.h): the ranks put on
// one clock, steps matched by number, each rank's steady step split into compute, exposed
// communication, data and idle, the wait at each collective for ranks that arrived late, the
// slowest rank and why, load imbalance, stragglers, the job's collectives with their bandwidths,
// and what to do, its ranks' own findings merged (job_findings.h). The same function serves a folder of traces and `merge` of per-rank JSON
// results, so the two agree by construction. docs/distributed.md gives the definitions.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/advice/recommendations.h"
#include "analyzer/job/rank_result.h"
#include "trace/result.h"

namespace ampscope::analyzer {

// How a rank's timestamps were put on the job's clock.
enum class ClockAlignment : std::uint8_t {
  kRecordedClock,  // its recorded clock is the job's (same clock as the reference rank, and the
                   // collectives agree within kClockToleranceNs)
  kCollectives,    // shifted so that its collectives end when the reference rank's do
  kStepStarts,     // no matching collectives on another clock: its first matched step starts with the reference's
  kNone,           // nothing to align on: left on its own clock (said so)
};
const char* clockAlignmentName(ClockAlignment alignment);  // "recorded_clock", "collectives", ...

// Collectives whose ends differ by more than this between two ranks on one recorded clock mean
// the hosts' clocks disagree (NTP keeps hosts within about a millisecond, PTP within
// microseconds; a collective ends on all its ranks within a few microseconds of each other).
inline constexpr std::int64_t kClockToleranceNs = 100'000;

// What held the slowest rank's step beyond the others'; kNone where it is no straggler (the
// ranks are even within kStragglerMargin).
enum class SlowReason : std::uint8_t { kNone, kCompute, kDataLoading, kCommunication, kIdle };
const char* slowReasonName(SlowReason reason);  // "none", "compute", "data_loading", "communication", "idle"

// What named the slowest rank: its late arrivals at the collectives the others waited at, or,
// where no collective could be matched, its busy time.
enum class SlowestBasis : std::uint8_t { kArrivals, kBusyTime };
const char* slowestBasisName(SlowestBasis basis);  // "arrivals", "busy_time"

struct RankRow {
  std::int32_t rank = -1;
  RankOrigin origin = RankOrigin::kFileOrder;
  std::string source;
  std::string device;
  ClockAlignment alignment = ClockAlignment::kRecordedClock;
  std::int64_t clock_offset_ns = 0;  // added to its timestamps to put them on the job's clock
  std::size_t steps = 0;
  std::size_t steady_steps = 0;  // the steps the means below cover
  // Means per steady step.
  std::int64_t steady_step_ns = 0;
  std::int64_t compute_ns = 0;
  std::int64_t communication_ns = 0;
  std::int64_t exposed_communication_ns = 0;
  std::int64_t data_ns = 0;
  std::int64_t idle_ns = 0;
  // Time its collectives spent waiting for ranks that arrived later (nullopt: its collectives
  // could not be matched with the other ranks'). Part of communication_ns.
  std::optional<std::int64_t> wait_ns;
  std::int64_t busy_ns = 0;  // steady_step_ns - wait_ns: the step it would take alone
  // How long it held the matched collectives up, per steady step: at each it reached last, its
  // lead over the next-latest rank (nullopt: not matched). What the job would gain if it came on
  // time with the others; ranks late together hold up as a group and show none of it here.
  std::optional<std::int64_t> late_ns;
  bool straggler = false;
};

// One step number that every rank ran, on the job's clock.
struct JobStep {
  std::int64_t number = -1;
  std::int64_t start_ns = 0;  // the earliest rank's start
  std::int64_t end_ns = 0;    // the latest rank's end
  std::int32_t longest_rank = -1;  // the rank whose step took longest
};

// The waits at one matched series of collectives (one kind in one process group), over the
// steady steps: who arrived last, and how long the others waited for it.
struct CollectiveWait {
  CollectiveKind kind = CollectiveKind::kOther;
  std::string group;          // the process group's name; "" where the trace names none
  std::size_t ranks = 0;      // participants
  std::size_t calls = 0;      // collectives in the steady steps (each ran on every participant)
  std::int64_t wait_ns = 0;   // summed over participants and calls, per steady step
  std::int32_t last_rank = -1;      // the rank that arrived last most often
  std::size_t last_rank_calls = 0;  // how often
};

struct JobAnalysis {
  std::int32_t world_size = 0;  // as the traces say it, else the number of ranks given
  std::vector<RankRow> ranks;   // by rank
  std::vector<JobStep> steps;   // step numbers all ranks ran, in order
  std::optional<std::int32_t> slowest_rank;  // the rank the others wait for; none with one rank
  SlowReason slowest_reason = SlowReason::kNone;
  SlowestBasis slowest_basis = SlowestBasis::kBusyTime;
  std::string slowest_why;      // the numbers behind slowest_reason
  double imbalance = 1.0;       // max / mean of the ranks' busy time
  std::vector<std::int32_t> stragglers;  // by slowest_basis, more than kStragglerMargin behind the median rank
  std::vector<CollectiveRow> collectives;  // per family over all ranks, bandwidths by the job's size
  std::vector<CollectiveWait> collective_waits;  // per matched series, largest wait first
  std::vector<std::string> notes;  // what the analysis could not do and why
  // The job's own (fix-straggler, balance-ranks) and its ranks' findings merged by rule and target
  // (job_findings.h), each with the ranks it applies to and the job's gain; largest gain first.
  std::vector<Recommendation> recommendations;
  // The inputs, numbered: what views open and merge rereads. In the order of `ranks`:
  // rank_results[i] is ranks[i]'s (its findings and tables).
  std::vector<RankResult> rank_results;
};

// A rank is a straggler when it holds the collectives up (late_ns) by more than this share of the
// median rank's step, or, where no rank holds them up on its own (none matched, or late ones
// arriving together), when its busy time exceeds the median rank's by more than this share.
inline constexpr double kStragglerMargin = 0.05;


// Numbers the ranks that the traces do not number (by the order given) and analyzes the job.
// Fails, naming the sources, when two traces claim the same rank.
trace::Result<JobAnalysis> analyzeJob(std::vector<RankResult> ranks);

}  // namespace ampscope::analyzer
