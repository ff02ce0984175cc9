#pragma once
// Imports Nsight Systems SQLite exports (nsys export --type sqlite): CUPTI kernel, runtime,
// memcpy/memset and synchronisation tables, NVTX_EVENTS with inline text or textId, StringIds,
// TARGET_INFO_GPU, CUDA memory usage events (nsys_memory_usage.h), and the thread ids packed
// into globalTid.

#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::trace::db {
class SqliteDatabase;
}

namespace ampscope::analyzer::import {

// True when db has the tables of an Nsight Systems export (StringIds plus one of
// CUPTI_ACTIVITY_KIND_KERNEL, NVTX_EVENTS or TARGET_INFO_GPU).
bool isNsightSystemsDatabase(trace::db::SqliteDatabase& db);
trace::Result<trace::Trace> importNsightSystems(trace::db::SqliteDatabase& db);

}  // namespace ampscope::analyzer::import
