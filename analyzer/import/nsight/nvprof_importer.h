#pragma once
// Imports nvprof SQLite profiles (the format NVIDIA PyProf read): kernels, runtime/driver calls,
// memcpy/memset, synchronisation and NVTX markers, with PyProf's marker texts parsed into
// operator, shapes, dtypes and autograd sequence numbers.

#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::trace::db {
class SqliteDatabase;
}

namespace ampscope::analyzer::import {

// True when db has nvprof's tables (StringTable and a CUPTI_ACTIVITY_KIND_* kernel table).
bool isNvprofDatabase(trace::db::SqliteDatabase& db);
trace::Result<trace::Trace> importNvprof(trace::db::SqliteDatabase& db);

}  // namespace ampscope::analyzer::import
