#pragma once
// The one entry point for reading any trace: picks the importer by the file's content (gzip or
// JSON text, SQLite schema), never by its name.

#include <string>

#include "analyzer/import/import_options.h"
#include "base/stage_callback.h"
#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer::import {

// `stage_done` hears as each stage of the import ends (base/stage_callback.h); only the Kineto
// importer names its stages so far.
trace::Result<trace::Trace> importTrace(const std::string& path, const ImportOptions& options = {},
                                        const StageCallback& stage_done = {});

// Whether the file's first bytes are those of a format importTrace reads (SQLite, JSON, gzip):
// how a job's folder tells its traces from other files, by content as importTrace does.
bool looksLikeTraceFile(const std::string& path);

}  // namespace ampscope::analyzer::import
