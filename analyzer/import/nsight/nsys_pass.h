#pragma once
// One pass over an Nsight Systems export's event tables (nsys_event_tables.h), in slices of rowids
// on several threads (table_slices.h): every row it reads into one part, or each process's rows
// into a part of its own, the parts after the first waiting in a spill file (spill_file.h) until
// their turn, so that reading the file once costs no more memory than reading it once per process.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "analyzer/import/nsight/nsys_event_tables.h"
#include "analyzer/import/nsight/nsys_slice_assembly.h"
#include "analyzer/import/nsight/spill_file.h"
#include "trace/db/sqlite_database.h"
#include "trace/result.h"

namespace ampscope::analyzer::import {

// What one pass over the event tables reads into: one part holding every row it reads (all, or
// one process's, chosen by SQLite), or, where `pids` are given, one part per process, part i
// holding the rows of pids[i]. Where there is a spill file, the parts after the first wait in it
// for their turn (restorePart brings one back): memory holds one process's rows, not the file's.
struct PassOutput {
  std::vector<std::int64_t> pids;  // empty: one part
  std::vector<NsysSlices> parts;
  std::unique_ptr<SpillFile> spill;
  // Rows of no process in `pids`, passed by.
  std::atomic<std::uint64_t> rows_passed_by{0};
};

// The event tables, read in slices on `threads` threads into `pass`'s parts (sized here: one, or
// one per pid).
trace::Status readEventTables(trace::db::SqliteDatabase& db, const NsysReadScope& scope, unsigned threads,
                              PassOutput& pass);

// Brings part `part`'s rows and names back from the spill file, slices side by side on `threads`
// threads.
trace::Status restorePart(PassOutput& pass, std::size_t part, unsigned threads);

// The rows a pass stepped over: those its parts read and those it passed by.
std::uint64_t rowsOfPass(const PassOutput& pass);

// Whether a part kept any record (in memory or in the spill file).
bool holdsRecords(const NsysSlices& part);

}  // namespace ampscope::analyzer::import
