#pragma once
// Putting the slices of an Nsight Systems export's event tables together (nsys_event_tables.h):
// the slices' own names and threads get their numbers in the trace, their counts are added up,
// and their rows are moved into the trace, each slice freed as soon as its rows are: the rows are
// never held twice.

#include <cstdint>
#include <vector>

#include "analyzer/import/nsight/nsys_table_slice.h"
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
  std::vector<TableSlice<NvtxRow>> nvtx;
};

// Gives the slices' strings and threads their ids in `trace` (interned in the order the rows
// are in the file: API calls, then NVTX events; threads numbered by the table they first appear
// in, API calls first, then by their earliest start), renumbers the rows, adds the slices' counts
// to trace.import_stats, closes the ranges never ended at the latest time of any row and names
// the ranges' domains. `trace` holds the export's strings and devices, and no threads yet.
void resolveSlices(NsysSlices& slices, trace::Trace& trace);

// Moves every row into `trace` (resolved by resolveSlices). Each table's rows stay in file order
// where the file has them in time order, and are put in time order where not (nsys_row_order.h).
// With `threads` above 1, the ranges are moved on a thread of their own.
void moveSlicesInto(NsysSlices&& slices, trace::Trace& trace, unsigned threads);

}  // namespace ampscope::analyzer::import
