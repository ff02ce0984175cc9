#pragma once
// Which rows of an Nsight Systems table a read keeps (NsysReadScope): one process's, and those
// that overlap a window. Each condition is SQL that SQLite applies to a statement's rows and the
// same test on a row read from the file's pages (trace/db/table_page_scan.h), evaluated as SQL
// evaluates it, NULLs included: a row is kept where the condition is true, not where it is false
// or NULL. Both come from here, side by side, and tests read the same export both ways.

#include <string_view>

#include "analyzer/import/nsight/nsys_event_tables.h"
#include "analyzer/import/nsight/nsys_rows.h"
#include "analyzer/import/nsight/table_slices.h"

namespace ampscope::analyzer::import {

// How a table's rows overlap a window (its columns 0 and 1 are start and end, 2 NVTX's
// eventType).
enum class WindowTest {
  // A record with a start and an end: it starts before the window's end and ends after its
  // start, or is an instant inside it (read_window_filter.h keeps the same).
  kOverlaps,
  // An NVTX event: names of categories, threads and domains whatever their time; a range never
  // ended (no end, or one before its start) lasts to the end of the trace; a mark (no end either)
  // is an instant.
  kNvtx,
};

// The rows `scope` keeps of a table read with columns `c`: of its process, where it has one
// (those whose `pid_column`, globalPid or globalTid, packs its pid in bits 24-47: a table without
// the column names no process, so none of its rows is the process's), and overlapping its window,
// where it has one.
RowCondition scopeCondition(const NsysReadScope& scope, const NsysColumns& c, std::string_view pid_column,
                            WindowTest window_test);

}  // namespace ampscope::analyzer::import
