#pragma once
// Nsight Systems' CUDA memory usage events (nsys profile --cuda-memory-usage=true): the table
// CUDA_GPU_MEMORY_USAGE_EVENTS, one row per allocation or deallocation that CUPTI's memory
// activity saw (cudaMalloc, cudaFree, the stream-ordered allocator, module statics, ...).
// docs/formats/nsight_systems.md says what is read.

#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::trace::db {
class SqliteDatabase;
}

namespace ampscope::analyzer::import {

// Appends the export's allocations and frees of GPU memory to out.memory_events. Reads after the
// API calls (out.launches): each event takes the thread of the call with its correlation id in
// its process. An export without the table has nothing to read.
trace::Status readCudaMemoryUsage(trace::db::SqliteDatabase& db, trace::Trace& out);

}  // namespace ampscope::analyzer::import
