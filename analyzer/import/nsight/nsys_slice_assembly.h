#pragma once
// Putting the slices of an Nsight Systems export's event tables together (nsys_event_tables.h):
// the slices' own names and threads get their numbers in the trace, their counts are added up,
// and their rows are moved into one trace, or into one trace per process that ran kernels,
// each slice freed as soon as its rows are moved: the rows are never held twice.

#include <cstdint>
#include <vector>

#include "analyzer/import/nsight/nsys_table_slice.h"
#include "trace/process_trace.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer::import {

// Every table's slices, each table's in rowid order.
struct NsysSlices {
  std::vector<TableSlice<trace::Kernel>> kernels;
  std::vector<TableSlice<trace::LaunchCall>> runtime;
  std::vector<TableSlice<trace::LaunchCall>> driver;
  std::vector<TableSlice<trace::MemoryOp>> memcpy;
  std::vector<TableSlice<trace::MemoryOp>> memset;
  std::vector<TableSlice<trace::Synchronization>> syncs;
  std::vector<TableSlice<trace::Range>> nvtx;
};

// Gives the slices' strings and threads their ids in `trace` (interned in the order the rows
// are in the file: API calls, then NVTX events; threads numbered by the table they first appear
// in, API calls first, then by their earliest start), renumbers the rows, adds the slices' counts
// to trace.import_stats, closes the ranges never ended at the latest time of any row and names
// the ranges' domains. `trace` holds the export's strings and devices, and no threads yet.
void resolveSlices(NsysSlices& slices, trace::Trace& trace);

// The processes that ran kernels, ordered by the lowest device each used, then pid: empty where
// fewer than two did (the file is one rank as it is).
struct NsysProcess {
  std::int64_t pid = trace::kUnknownPid;
  std::uint32_t first_device = 0;
};
std::vector<NsysProcess> processesWithKernels(const NsysSlices& slices);

// Moves every row into `trace` (resolved by resolveSlices). Each table's rows stay in file order
// where the file has them in time order, and are put in time order where not (nsys_row_order.h).
void moveSlicesInto(NsysSlices&& slices, trace::Trace& trace);

// Moves each process's rows into its own copy of `shared` (a resolved trace without rows), each
// table's rows in time order as above; rows of other processes (a launcher, data loader workers, GPU
// records of no known process) are left out, counted in each part's import_stats.skipped under
// trace::kOtherProcessesSkipped.
std::vector<trace::ProcessTrace> moveSlicesIntoProcesses(NsysSlices&& slices, const trace::Trace& shared,
                                                         const std::vector<NsysProcess>& processes);

}  // namespace ampscope::analyzer::import
