#include "analyzer/correlate/correlator.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "analyzer/core/forward_cursor.h"
#include "analyzer/core/memo_by_id.h"
#include "analyzer/core/operator_labels.h"
#include "analyzer/correlate/kernel_metric_links.h"
#include "analyzer/correlate/launch_lookup.h"
#include "analyzer/normalise/phase_rules.h"
#include "base/run_beside.h"
#include "base/thread_count.h"

namespace ampscope::analyzer {

namespace {

using trace::Index;
using trace::kNone;
using trace::Phase;
using trace::Range;
using trace::RangeKind;

std::size_t at(Index index) { return static_cast<std::size_t>(index); }

// Ranges of each thread, in start order, for containment look-ups.
using ThreadRanges = std::vector<std::vector<Index>>;

ThreadRanges rangesByThread(const trace::Trace& trace) {
  ThreadRanges by_thread(trace.threads.size() + 1);
  for (std::size_t i = 0; i < trace.ranges.size(); ++i) {
    const Index thread = trace.ranges[i].thread;
    // Ranges without a thread share the last slot.
    const std::size_t slot = thread == kNone ? trace.threads.size() : at(thread);
    by_thread[slot].push_back(static_cast<Index>(i));
  }
  return by_thread;
}

// The phase a range takes from where it sits: a backward op Kineto marked with its forward
// thread's id is backward; else a range of no phase of its own takes its parent's, a step's
// excepted (the normaliser set the phase each range's own name announces).
void inheritPhase(Range& range, const trace::Trace& trace) {
  if (range.phase == Phase::kUnknown && range.fwd_thread_tid != 0) range.phase = Phase::kBackward;
  if (range.phase == Phase::kUnknown && range.parent != kNone) {
    const Phase inherited = trace.ranges[at(range.parent)].phase;
    if (inherited != Phase::kStep) range.phase = inherited;
  }
}

// Each range's parent, depth and inherited phase, thread by thread. A parent is on its child's
// thread and starts before it, so it has its phase when its child is visited. Returns whether the
// trace has steps or backward ranges (a trace of training).
bool computeNestingAndPhases(trace::Trace& trace, const ThreadRanges& by_thread) {
  std::vector<Index> stack;
  bool training_or_steps = false;
  for (const std::vector<Index>& ranges : by_thread) {
    stack.clear();
    for (Index index : ranges) {
      Range& range = trace.ranges[at(index)];
      // Ranges are sorted by start, longer first on ties, so an enclosing range is on the stack.
      // A range that ends where this one starts is a sibling, unless both are instants.
      while (!stack.empty()) {
        const Range& top = trace.ranges[at(stack.back())];
        if (top.end_ns > range.start_ns || (top.end_ns == range.start_ns && top.start_ns == range.start_ns)) break;
        stack.pop_back();
      }
      range.parent = stack.empty() ? kNone : stack.back();
      range.depth = static_cast<std::uint8_t>(std::min<std::size_t>(stack.size(), Range::kMaxDepth));
      stack.push_back(index);
      inheritPhase(range, trace);
      training_or_steps = training_or_steps || range.phase == Phase::kStep || range.phase == Phase::kBackward;
    }
  }
  return training_or_steps;
}

// `backward_name`: whether an op name announces a backward op, decided once per name.
bool isBackwardRoot(const trace::Trace& trace, const Range& range, NameTest& backward_name) {
  if (range.sequence_number < 0) return false;
  if (range.fwd_thread_tid != 0) return true;  // Kineto marks autograd ops with their fwd thread
  return range.sequence_number > 0 && backward_name(opNameId(range), [&] {
           return phaseFromName(opName(trace, range)) == Phase::kBackward;
         });
}

// The op that created each autograd node, by the number PyTorch stamps: the last outermost
// forward op with the number. PyTorch stamps the autograd counter's current value on every op,
// also on ops that create no autograd node (a data loader's view before the convolution that
// creates node N carries N). (A backward op's "Fwd thread id" is the profiler's own thread number,
// not the thread's id in the trace, so the number alone decides.) In the same pass, where the
// trace is one of training, an operator that is neither data loading, backward nor optimizer runs
// in the forward pass (the loss included); elsewhere the phase stays unknown.
struct ForwardCandidate {
  Index range = kNone;
  std::int64_t end_ns = 0;
};
using ForwardBySequence = std::unordered_map<std::int64_t, ForwardCandidate>;

ForwardBySequence findForwardOps(trace::Trace& trace, bool training_or_steps) {
  ForwardBySequence forward_by_sequence;
  for (std::size_t i = 0; i < trace.ranges.size(); ++i) {
    Range& range = trace.ranges[i];
    if (training_or_steps && range.phase == Phase::kUnknown && range.kind == RangeKind::kOperator) {
      range.phase = Phase::kForward;
    }
    if (range.kind != RangeKind::kOperator || range.sequence_number < 0 ||
        range.phase == Phase::kBackward || range.fwd_thread_tid != 0) {
      continue;
    }
    ForwardCandidate& c = forward_by_sequence[range.sequence_number];
    // A range nested in the candidate (aten::convolution inside aten::conv2d) is part of it.
    if (c.range != kNone && range.start_ns < c.end_ns) continue;
    c = {static_cast<Index>(i), range.end_ns};
  }
  return forward_by_sequence;
}

// The layer a range takes from where it sits, in start order, which visits a parent before its
// children and a forward op before its backward.
void inheritLayer(Range& range, const trace::Trace& trace) {
  if (range.text_form == trace::RangeTextForm::kPyProfModule && range.parent != kNone) {
    // A PyProf module marker names only its class ("LSTM"); the call stack marker it sits in,
    // where its funcStack was recorded, names the instance ("Net/LSTM(2)"): one layer per
    // instance, not one per class.
    const Range& call = trace.ranges[at(range.parent)];
    if (call.text_form == trace::RangeTextForm::kPyProfCallStack && call.module_path != trace::StringTable::kEmpty &&
        call.layer != trace::StringTable::kEmpty) {
      range.layer = call.layer;
      return;
    }
  }
  if (range.layer != trace::StringTable::kEmpty) return;
  if (range.forward_range != kNone) {
    range.layer = trace.ranges[at(range.forward_range)].layer;
    if (range.layer != trace::StringTable::kEmpty) return;
  }
  if (range.parent != kNone) range.layer = trace.ranges[at(range.parent)].layer;
}

// Each backward op's forward op, and then its layer: a range's layer reads its forward op's, set
// in this pass when the forward op came first (as it does), or as the normaliser left it.
std::uint64_t linkBackwardAndLayers(trace::Trace& trace, const ForwardBySequence& forward_by_sequence) {
  std::uint64_t linked = 0;
  NameTest backward_name;
  for (Range& range : trace.ranges) {
    if (isBackwardRoot(trace, range, backward_name)) {
      const auto found = forward_by_sequence.find(range.sequence_number);
      if (found != forward_by_sequence.end()) {
        range.forward_range = found->second.range;
        ++linked;
      }
    }
    inheritLayer(range, trace);
  }
  return linked;
}

bool canOwnLaunch(const Range& range) {
  // Python frames and step markers enclose operators; they are not operators themselves.
  return (range.kind == RangeKind::kOperator || range.kind == RangeKind::kAnnotation) &&
         range.phase != Phase::kStep;
}

// The ranges of one thread that start at or before each time asked about: launches come in time
// order, so a cursor per thread answers them without a search per launch.
class StartedRanges {
 public:
  StartedRanges(const trace::Trace& trace, const std::vector<Index>& ranges)
      : ranges_(ranges), cursor_(ranges.size(), StartOf{&trace, &ranges}) {}

  // The last range starting at or before time_ns; kNone when none does.
  Index lastAt(std::int64_t time_ns) {
    const std::size_t after = cursor_.upTo(time_ns);
    return after == 0 ? kNone : ranges_[after - 1];
  }

 private:
  struct StartOf {
    const trace::Trace* trace;
    const std::vector<Index>* ranges;
    std::int64_t operator()(std::size_t i) const { return trace->ranges[at((*ranges)[i])].start_ns; }
  };
  const std::vector<Index>& ranges_;
  ForwardCursor<StartOf> cursor_;
};

// candidate: the last range of the thread starting at or before time_ns. With proper nesting
// every range containing time_ns is it or one of its ancestors.
Index innermostOperatorAt(const trace::Trace& trace, Index candidate, std::int64_t time_ns) {
  while (candidate != kNone) {
    const Range& range = trace.ranges[at(candidate)];
    if (range.end_ns >= time_ns && canOwnLaunch(range)) return candidate;
    candidate = range.parent;
  }
  return kNone;
}

}  // namespace

Index topLevelOperator(const trace::Trace& trace, Index range) {
  if (range == kNone) return kNone;
  Index top = range;
  for (Index parent = trace.ranges[at(range)].parent; parent != kNone;
       parent = trace.ranges[at(parent)].parent) {
    const Range& candidate = trace.ranges[at(parent)];
    if (candidate.kind == RangeKind::kOperator && candidate.phase != Phase::kStep &&
        candidate.phase != Phase::kData) {
      top = parent;
    }
  }
  return top;
}

namespace {

// Ties each kernel and memory op to its launch call by correlation id (record.launch), and counts
// those without one. Reads only the launches' process and correlation ids, which nothing here
// changes, and writes only the GPU records: it runs beside the ranges' work.
void linkGpuRecordsToLaunches(trace::Trace& trace, CorrelationCounts& counts) {
  const LaunchLookup lookup(trace);
  std::uint64_t without_launch = 0;
  for (trace::Kernel& kernel : trace.kernels) {
    kernel.launch = lookup.find(kernel.pid, kernel.correlation_id);
    if (kernel.launch != kNone) ++counts.kernels_linked_to_launch;
    else ++without_launch;
  }
  for (trace::MemoryOp& op : trace.memory_ops) {
    op.launch = lookup.find(op.pid, op.correlation_id);
    if (op.launch != kNone) ++counts.memory_ops_linked_to_launch;
    else ++without_launch;
  }
  trace.import_stats.gpu_records_without_launch = without_launch;
}

// Ranges: nesting, phases, backward-to-forward links, layers; then each launch's enclosing op.
void correlateHostSide(trace::Trace& trace, CorrelationCounts& counts) {
  const ThreadRanges by_thread = rangesByThread(trace);
  const bool training_or_steps = computeNestingAndPhases(trace, by_thread);
  counts.backward_ranges_linked_to_forward = linkBackwardAndLayers(trace, findForwardOps(trace, training_or_steps));

  std::vector<StartedRanges> started;
  started.reserve(by_thread.size());
  for (const std::vector<Index>& ranges : by_thread) started.emplace_back(trace, ranges);
  for (trace::LaunchCall& launch : trace.launches) {
    const std::size_t slot = launch.thread == kNone ? trace.threads.size() : at(launch.thread);
    launch.op_range = innermostOperatorAt(trace, started[slot].lastAt(launch.start_ns), launch.start_ns);
    if (launch.op_range != kNone) ++counts.launches_in_op;
  }
  // An allocation belongs to the op running on its thread when it was made (an allocation's
  // event sits inside the op that asked for the memory, PyTorch's and the trainer's alike).
  std::vector<StartedRanges> started_again;
  started_again.reserve(by_thread.size());
  for (const std::vector<Index>& ranges : by_thread) started_again.emplace_back(trace, ranges);
  for (trace::MemoryEvent& event : trace.memory_events) {
    if (event.thread == kNone) continue;
    event.op_range = innermostOperatorAt(trace, started_again[at(event.thread)].lastAt(event.time_ns), event.time_ns);
  }
}

// Below this many GPU records, a thread costs more than the linking it would take over.
constexpr std::size_t kGpuRecordsForAThread = 1 << 15;

}  // namespace

CorrelationCounts correlate(trace::Trace& trace, unsigned threads) {
  CorrelationCounts counts;
  counts.launches = trace.launches.size();
  counts.kernels = trace.kernels.size();
  counts.memory_ops = trace.memory_ops.size();
  // The GPU records' links to their launches and the ranges' work touch disjoint fields (and
  // disjoint counts): on a thread of their own when there are enough records to be worth one.
  CorrelationCounts gpu_counts;
  auto gpu_links = runBeside(
      threadsToUse(threads) > 1 && trace.kernels.size() + trace.memory_ops.size() >= kGpuRecordsForAThread,
      [&] { linkGpuRecordsToLaunches(trace, gpu_counts); });
  correlateHostSide(trace, counts);
  gpu_links.get();
  counts.kernels_linked_to_launch = gpu_counts.kernels_linked_to_launch;
  counts.memory_ops_linked_to_launch = gpu_counts.memory_ops_linked_to_launch;

  // A GPU record belongs to the op its launch belongs to.
  const auto opOfLaunch = [&](Index launch) { return launch == kNone ? kNone : trace.launches[at(launch)].op_range; };
  for (trace::Kernel& kernel : trace.kernels) {
    kernel.op_range = opOfLaunch(kernel.launch);
    if (kernel.op_range != kNone) ++counts.kernels_attributed_to_op;
  }
  for (trace::MemoryOp& op : trace.memory_ops) op.op_range = opOfLaunch(op.launch);
  linkKernelMetrics(trace);
  return counts;
}

}  // namespace ampscope::analyzer
