// Nsight Systems SQLite exports: the bytes are the database file; read as importTrace does
// (recognised by its tables, then imported and demangled).

#include <cstddef>
#include <cstdint>

#include "analyzer/import/demangle.h"
#include "analyzer/import/nsight/nsys_importer.h"
#include "sqlite_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace import = ampscope::analyzer::import;
  return ampscope::fuzz::fuzzSqliteImporter(data, size, import::isNsightSystemsDatabase, [](auto& db) {
    auto trace = import::importNsightSystems(db);
    if (trace) import::demangleKernelNames(*trace);
    return trace;
  });
}
