#pragma once
// Imports Nsight Systems SQLite exports (nsys export --type sqlite): CUPTI kernel, runtime,
// memcpy/memset and synchronisation tables, NVTX_EVENTS with inline text or textId, StringIds,
// TARGET_INFO_GPU, CUDA memory usage events (nsys_memory_usage.h), GPU metrics
// (nsys_gpu_metrics.h), and the thread ids packed into globalTid. The event tables are read in
// one pass, in slices of rows on several threads (nsys_pass.h, table_slices.h,
// nsys_event_tables.h), and put together in file order (nsys_slice_assembly.h), in time order
// where the export is not (nsys_row_order.h).

#include <cstdint>
#include <functional>
#include <optional>

#include "analyzer/import/import_options.h"
#include "base/stage_callback.h"
#include "trace/process_trace.h"
#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::trace::db {
class SqliteDatabase;
}

namespace ampscope::analyzer::import {

// True when db has the tables of an Nsight Systems export (StringIds plus one of
// CUPTI_ACTIVITY_KIND_KERNEL, NVTX_EVENTS or TARGET_INFO_GPU).
bool isNsightSystemsDatabase(trace::db::SqliteDatabase& db);

// The whole export as one trace. `stage_done` hears as each stage ends (base/stage_callback.h).
trace::Result<trace::Trace> importNsightSystems(trace::db::SqliteDatabase& db, const ImportOptions& options,
                                                const StageCallback& stage_done);
// The same with every hardware thread and no stages heard.
trace::Result<trace::Trace> importNsightSystems(trace::db::SqliteDatabase& db);

// The export one process at a time, for a file of several processes that ran kernels (a job's
// ranks): the event tables are read once, each row into its process's slices, the processes after
// the first waiting in a temporary file (spill_file.h); each process's rows are put in a trace of
// their own with the file's strings and devices and handed to `each` before the next process's
// are, so that memory holds one process's trace, not the file's. `only`: that process's rows
// alone are read (SQLite passes the others by before they are decoded).
// Processes come ordered by the lowest device each used, then pid.
// Each trace counts its own rows read and, under trace::kOtherProcessesSkipped, the file's other
// rows. Where fewer than two processes ran kernels, `each` gets the whole trace once, its pid
// that of its first kernel (or unknown), whatever `only` says.
trace::Status importNsightSystemsByProcess(trace::db::SqliteDatabase& db, const ImportOptions& options,
                                           const StageCallback& stage_done, std::optional<std::int64_t> only,
                                           const ProcessTraceSink& each);

}  // namespace ampscope::analyzer::import
