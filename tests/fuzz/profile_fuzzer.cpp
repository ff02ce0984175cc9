// ampscope's own profile database (trace/db/profile_reader.cpp): the bytes are the database file;
// read as importTrace reads a profile (then processes assigned, sorted, normalised, demangled).

#include <cstddef>
#include <cstdint>

#include "analyzer/import/demangle.h"
#include "analyzer/import/range_normaliser.h"
#include "fuzz_support.h"
#include "trace/db/profile_reader.h"
#include "trace/db/sqlite_database.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using ampscope::trace::db::SqliteDatabase;
  namespace import = ampscope::analyzer::import;
  static ampscope::fuzz::ScratchFile scratch(".sqlite");
  auto db = SqliteDatabase::open(scratch.write(data, size), SqliteDatabase::Mode::kReadOnly);
  if (!db || !ampscope::trace::db::isProfileDatabase(*db)) return 0;
  auto trace = ampscope::trace::db::readProfile(*db);
  if (!trace) return 0;
  trace->assignLaunchingProcesses();
  trace->sortByTime();
  import::normaliseRanges(*trace);
  import::demangleKernelNames(*trace);
  ampscope::fuzz::checkTrace(*trace);
  return 0;
}
