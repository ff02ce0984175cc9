#pragma once
// The one entry point for reading any trace: picks the importer by the file's content (gzip or
// JSON text, SQLite schema), never by its name.

#include <string>
#include <vector>

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

// The file as one trace per process that ran kernels, where the file holds several: an Nsight
// Systems export is read straight into its processes' traces, so that its rows are never held
// twice (nsys_importer.h). Every other file, and an export of one process, is one part: the whole
// trace as importTrace reads it, its pid that of its first kernel (a Kineto trace of several
// processes is cut by analyzer::splitByProcess, which copies).
trace::Result<std::vector<trace::ProcessTrace>> importTraceByProcess(const std::string& path,
                                                                     const ImportOptions& options = {},
                                                                     const StageCallback& stage_done = {});

// Whether the file's first bytes are those of a format importTrace reads (SQLite, JSON, gzip):
// how a job's folder tells its traces from other files, by content as importTrace does.
bool looksLikeTraceFile(const std::string& path);

}  // namespace ampscope::analyzer::import
