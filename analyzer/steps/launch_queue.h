#pragma once
// Who sets the pace, the host or the GPU: the launch queue between them, measured. Every GPU item
// (kernel, memcpy, memset) is queued by an API call and starts later; the items queued but not yet
// started are the queue. A host that runs ahead of a busy GPU fills it, and once it is full (the
// driver's push buffer holds on the order of a thousand launches) each launch call blocks until
// the GPU frees a slot: the host's recorded launch times are then set by the GPU, not by the host.
// Amdahl replays must give that blocked time back when the GPU gets faster (step_replay.h), and a
// verdict of "host-bound" needs evidence: a shallow queue and a GPU idle between its kernels.
// The queued items, their queues and the blocked calls are worked out in queued_work.h.

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/correlate/iterations.h"
#include "analyzer/steps/queued_work.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

// GPU-bound: busy this share of the window behind a queue at least this deep (median).
inline constexpr double kGpuBoundBusyShare = 0.90;
inline constexpr double kDeepMedianDepth = 2.0;
// Host-bound: the GPU idle this share of the window while its queue is far from full (a median
// below kDeepQueueItems: no launch waits on it) and the host is blocked by the GPU for less than
// this share of the step (a host that waits for the GPU is not what holds the GPU back).
inline constexpr double kHostBoundIdleShare = 0.10;
inline constexpr double kHostBoundMaxBlockedShare = 0.10;

enum class Pacing : std::uint8_t {
  kUnknown,    // no GPU work linked to its API calls in the window
  kGpuBound,   // the GPU is busy behind a deep queue: faster kernels shorten the step
  kHostBound,  // a shallow queue and a GPU idle between kernels: the host's issue rate sets the step
  kMixed,      // neither: synchronisation, data waits or a queue that fills and drains
};
const char* pacingName(Pacing pacing);  // "gpu_bound", "host_bound", "mixed", "unknown"

// One stream's queue over the whole trace: a step function, for a timeline's counter track.
struct StreamQueue {
  std::int64_t pid = trace::kUnknownPid;
  std::uint32_t device = 0;
  std::uint32_t stream = 0;
  std::vector<QueuePoint> points;
};

struct LaunchQueue {
  bool measured = false;
  std::string note;  // why nothing was measured
  bool per_step = true;  // false: the trace has no steps; figures cover window_ns of GPU work
  std::int64_t window_ns = 0;
  // The time-weighted median depth over the window of the busiest process/device queue.
  double median_depth = 0.0;
  std::int64_t max_depth = 0;
  std::int64_t median_launch_to_start_ns = 0;  // from the API call's start to the item's start
  std::int64_t typical_launch_call_ns = 0;     // median duration of an asynchronous launch call
  // Host time blocked by the GPU, per steady iteration (per window without steps): synchronising
  // calls and blocking copies (sync_ns), and launch calls' time beyond the typical call while the
  // queue was full.
  std::int64_t sync_ns_per_iteration = 0;
  std::int64_t blocked_launch_ns_per_iteration = 0;
  std::int64_t host_blocked_ns_per_iteration = 0;  // the two together
  double host_blocked_fraction = 0.0;              // of the mean step (of the window without steps)
  std::uint64_t blocked_launches = 0;              // in the window
  double gpu_busy_fraction = 0.0;                  // of the window, on the busiest queue's device
  Pacing pacing = Pacing::kUnknown;
  std::string pacing_evidence;  // the figures the verdict rests on, in words
  std::vector<StreamQueue> streams;  // every stream that ran GPU work queued by a recorded call
};

// Expects a correlated trace; `queued` is its queued work, when the caller has it already.
LaunchQueue measureLaunchQueue(const trace::Trace& trace, const IterationSummary& iterations);
LaunchQueue measureLaunchQueue(const trace::Trace& trace, const IterationSummary& iterations, const QueuedWork& queued);

}  // namespace ampscope::analyzer
