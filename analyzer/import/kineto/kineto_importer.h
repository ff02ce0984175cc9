#pragma once
// Imports PyTorch profiler (Kineto) Chrome traces, plain or gzip, of every schema year:
// 2021 (Operator/Runtime/Kernel/Memcpy/Memset, lower-case "external id") and later
// (cpu_op/cuda_runtime/cuda_driver/kernel/gpu_memcpy/gpu_memset/cuda_sync, ac2g flows,
// baseTimeNanoseconds, fractional microsecond timestamps).

#include <cstddef>
#include <string>

#include "analyzer/import/import_options.h"
#include "base/stage_callback.h"
#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer::import {

class ByteSource;

// Reads a PyTorch profiler (Kineto) Chrome-trace JSON document from source (plain or gzip), its
// events parsed on up to options.threads threads and kept in document order. `stage_done` hears
// as each stage ends: the events parsed, sorted by time, the ranges normalised.
trace::Result<trace::Trace> importKineto(ByteSource& source, const ImportOptions& options = {},
                                         const StageCallback& stage_done = {});
// The same, parsing batches of about batch_bytes (small ones exercise batching in tests).
trace::Result<trace::Trace> importKineto(ByteSource& source, const ImportOptions& options, std::size_t batch_bytes,
                                         const StageCallback& stage_done = {});

}  // namespace ampscope::analyzer::import
