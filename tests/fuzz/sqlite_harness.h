#pragma once
// What the SQLite harnesses (nsys, nvprof, profile) do alike: the bytes become a database file,
// which is imported only when it is recognised as the harness's format (as importTrace dispatches),
// and the trace that comes back is checked. `import` reads the database and does what importTrace
// does after that format's importer (demangling, normalising), returning the Result.

#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "trace/db/sqlite_database.h"

namespace ampscope::fuzz {

template <typename IsFormat, typename Import>
int fuzzSqliteImporter(const std::uint8_t* data, std::size_t size, IsFormat is_format, Import import) {
  using trace::db::SqliteDatabase;
  static ScratchFile scratch(".sqlite");
  auto db = SqliteDatabase::open(scratch.write(data, size), SqliteDatabase::Mode::kReadOnly);
  if (!db || !is_format(*db)) return 0;
  auto trace = import(*db);
  if (!trace) return 0;
  checkTrace(*trace);
  return 0;
}

}  // namespace ampscope::fuzz
