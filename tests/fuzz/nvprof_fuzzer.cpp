// nvprof SQLite profiles: the bytes are the database file; read as importTrace does (recognised
// by its tables, then imported, PyProf markers normalised, kernel names demangled).

#include <cstddef>
#include <cstdint>

#include "analyzer/import/demangle.h"
#include "analyzer/import/nsight/nvprof_importer.h"
#include "sqlite_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace import = ampscope::analyzer::import;
  return ampscope::fuzz::fuzzSqliteImporter(data, size, import::isNvprofDatabase, [](auto& db) {
    auto trace = import::importNvprof(db);
    if (trace) import::demangleKernelNames(*trace);
    return trace;
  });
}
