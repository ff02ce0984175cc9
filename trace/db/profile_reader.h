#pragma once
// Reads ampscope's profile database back into a Trace, refusing newer major schema versions.

#include <string>

#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::trace::db {

class SqliteDatabase;

// True when db carries ampscope's meta table (the content check used to pick this reader).
bool isProfileDatabase(SqliteDatabase& db);

Result<Trace> readProfile(SqliteDatabase& db);
Result<Trace> readProfile(const std::string& path);

}  // namespace ampscope::trace::db
