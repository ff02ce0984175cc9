#pragma once
// A what-if replay of the steady steps. Amdahl's law on GPU time assumes the GPU is what the step
// waits for; when the host issues work no faster than the GPU runs it (Python dispatch, profiler
// overhead, tiny kernels), faster kernels only make the GPU wait longer. The replay keeps what the
// trace says about the host and changes only what the scenario changes:
//  - every GPU item (kernel, memcpy, memset) starts no earlier than the host asked for it (its API
//    call, plus the trace's own launch latency) and no earlier than the previous item on its stream
//    ended; its duration is divided by the scenario's speedup for it;
//  - host time runs as recorded, except where the GPU held it back: a synchronising call
//    (cudaStreamSynchronize, cudaMemcpy, ...) ends when the replayed GPU has finished the work
//    queued before it, and a launch call that waited on a full launch queue (launch_queue.h) ends
//    when the replayed GPU frees the slot it waited for, or after a typical call's duration when
//    the GPU is faster: backpressure is given back to the host, not kept as its own pace; in the
//    hidden-pipeline scenario, data loading on the training threads takes no time;
//  - all host threads share one clock shift (a training loop's threads wait on one another).
// Streams and launch queues are per process. Not modelled: cross-stream event dependencies (items
// wait only on their own stream) and GPU work with no recorded API call (counted; the replay is
// refused when it is a large share).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/correlate/iterations.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

class QueuedWork;  // queued_work.h

struct ReplayScenario {
  // Per trace kernel (aligned with Trace::kernels), the factor its duration shrinks by; empty:
  // kernels unchanged. Infinity makes a kernel free.
  std::vector<double> kernel_speedup;
  bool hide_data_loading = false;
};

struct StepReplay {
  bool done = false;
  std::string note;  // why there is no replay, when there is none
  std::int64_t original_ns = 0;  // the steady steps as recorded, including GPU work that ran past them
  std::int64_t baseline_ns = 0;  // the replay without changes: how well the model fits this trace
  std::int64_t replayed_ns = 0;  // the replay with the scenario's changes
  double speedup = 1.0;  // baseline_ns / replayed_ns
};

// The steady steps of one trace, collected and replayed as recorded once, so that each scenario
// costs one replay. The trace and the iterations must outlive it and stay unchanged. replay() is
// const and may be called from several threads at once.
class StepReplayer {
 public:
  StepReplayer(const trace::Trace& trace, const IterationSummary& iterations);
  // With the trace's queued work, worked out already (the launch queue's measurement uses it too).
  StepReplayer(const trace::Trace& trace, const IterationSummary& iterations, std::shared_ptr<const QueuedWork> queued);
  ~StepReplayer();
  StepReplayer(const StepReplayer&) = delete;
  StepReplayer& operator=(const StepReplayer&) = delete;

  StepReplay replay(const ReplayScenario& scenario) const;

 private:
  struct Recorded;  // the collected items and the replay as recorded
  std::size_t kernels_ = 0;
  std::unique_ptr<Recorded> recorded_;
};

// One scenario: StepReplayer(trace, iterations).replay(scenario).
StepReplay replaySteadySteps(const trace::Trace& trace, const IterationSummary& iterations,
                             const ReplayScenario& scenario);

}  // namespace ampscope::analyzer
