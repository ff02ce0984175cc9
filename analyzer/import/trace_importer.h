#pragma once
// The one entry point for reading any trace: picks the importer by the file's content (gzip or
// JSON text, SQLite schema), never by its name.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "analyzer/import/import_options.h"
#include "base/stage_callback.h"
#include "trace/process_trace.h"
#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer::import {

// `stage_done` hears as each stage of the import ends (base/stage_callback.h): the Kineto and
// Nsight Systems importers name theirs.
trace::Result<trace::Trace> importTrace(const std::string& path, const ImportOptions& options = {},
                                        const StageCallback& stage_done = {});

// The file one process at a time, where it holds several that ran kernels (a job's ranks): an
// Nsight Systems export is read in one pass that puts each row with its process, and each
// process's trace handed to `each` before the next is put together (nsys_importer.h), so that
// memory holds one process's trace, not the file's; `only`: that process alone. Every other file, and an export of one
// process, goes to `each` once whole, as importTrace reads it, its pid that of its first kernel (a
// Kineto trace of several processes is cut later by analyzer::splitByProcess).
trace::Status importTraceByProcess(const std::string& path, const ImportOptions& options,
                                   const StageCallback& stage_done, std::optional<std::int64_t> only,
                                   const ProcessTraceSink& each);

// Whether the file's first bytes are those of a format importTrace reads (SQLite, JSON, gzip):
// how a job's folder tells its traces from other files, by content as importTrace does.
bool looksLikeTraceFile(const std::string& path);

}  // namespace ampscope::analyzer::import
