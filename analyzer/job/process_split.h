#pragma once
// A file that holds several processes' GPU work (an Nsight Systems export of a multi-process
// job: one process per GPU) is several ranks. This splits an imported, not yet correlated trace
// into one trace per process that ran kernels, each with its own launches, ranges (and their
// communication messages), copies and synchronisations (the processes' correlation ids, threads and streams are their own).

#include <cstdint>
#include <vector>

#include "trace/process_trace.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

using trace::ProcessTrace;

// The processes with kernels, ordered by their first device, then pid; empty when the trace has
// fewer than two (it is one rank as it is). GPU records of no known process, and processes
// without kernels (a launcher, data loader workers), belong to no rank and are left out, counted
// in each part's import_stats.skipped. Counters (no process) go with every part; hardware metric
// samples (a device's) with the parts that ran kernels on their device.
std::vector<ProcessTrace> splitByProcess(const trace::Trace& trace);

}  // namespace ampscope::analyzer
