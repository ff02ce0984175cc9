#pragma once
// Nsight Systems wrote each table's rows in time order until 2025.6, which stopped promising it
// (rows come as each stream's or thread's buffer is flushed). Each table's rows are checked, in
// one pass, and put in time order only where they are not. Rows that start together on different
// streams or threads are ordered by stream or thread, which does not depend on the order of the
// rows in the file, and on one stream or thread keep their order in the file: a sorted export
// and the same export with its rows in another order read the same, as long as each stream's and
// thread's rows keep their order.

#include <span>

#include "trace/trace_model.h"

namespace ampscope::analyzer::import {

// Each returns true where it had to reorder. Kernels, copies and sets, synchronisations: by
// start, then device and stream. API calls: by start, then thread (threads are numbered
// independently of row order, nsys_slice_assembly.h). Ranges: by start, the longer first (a
// parent before the child it encloses), then thread.
bool putInTimeOrder(std::span<trace::Kernel> rows);
bool putInTimeOrder(std::span<trace::LaunchCall> rows);
bool putInTimeOrder(std::span<trace::MemoryOp> rows);
bool putInTimeOrder(std::span<trace::Synchronization> rows);
bool putInTimeOrder(std::span<trace::Range> rows);

}  // namespace ampscope::analyzer::import
