// ampscope's own profile database (trace/db/profile_reader.cpp): the bytes are the database file;
// read as importTrace reads a profile (then processes assigned, sorted, normalised, demangled).

#include <cstddef>
#include <cstdint>

#include "analyzer/import/demangle.h"
#include "analyzer/normalise/range_normaliser.h"
#include "sqlite_harness.h"
#include "trace/db/profile_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace import = ampscope::analyzer::import;
  return ampscope::fuzz::fuzzSqliteImporter(data, size, ampscope::trace::db::isProfileDatabase, [](auto& db) {
    auto trace = ampscope::trace::db::readProfile(db);
    if (!trace) return trace;
    trace->assignLaunchingProcesses();
    trace->sortByTime();
    import::normaliseRanges(*trace);
    import::demangleKernelNames(*trace);
    return trace;
  });
}
