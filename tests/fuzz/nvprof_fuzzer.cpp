// nvprof SQLite profiles: the bytes are the database file; read as importTrace does (recognised
// by its tables, then imported, PyProf markers normalised, kernel names demangled).

#include <cstddef>
#include <cstdint>

#include "analyzer/import/demangle.h"
#include "analyzer/import/nvprof_importer.h"
#include "fuzz_support.h"
#include "trace/db/sqlite_database.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using ampscope::trace::db::SqliteDatabase;
  namespace import = ampscope::analyzer::import;
  static ampscope::fuzz::ScratchFile scratch(".sqlite");
  auto db = SqliteDatabase::open(scratch.write(data, size), SqliteDatabase::Mode::kReadOnly);
  if (!db || !import::isNvprofDatabase(*db)) return 0;
  auto trace = import::importNvprof(*db);
  if (!trace) return 0;
  import::demangleKernelNames(*trace);
  ampscope::fuzz::checkTrace(*trace);
  return 0;
}
