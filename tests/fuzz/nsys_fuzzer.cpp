// Nsight Systems SQLite exports: the bytes are the database file; read as importTrace does
// (recognised by its tables, then imported and demangled), and one process at a time as analyze
// reads a file of several, each process's trace checked, also in a window of the session.

#include <cstddef>
#include <cstdint>
#include <optional>

#include "analyzer/import/demangle.h"
#include "analyzer/import/nsight/nsys_importer.h"
#include "sqlite_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace import = ampscope::analyzer::import;
  return ampscope::fuzz::fuzzSqliteImporter(data, size, import::isNsightSystemsDatabase, [](auto& db) {
    const auto check = [](ampscope::trace::ProcessTrace&& part) {
      ampscope::fuzz::checkTrace(part.trace);
      return ampscope::trace::Status{};
    };
    (void)import::importNsightSystemsByProcess(db, {}, {}, std::nullopt, check);
    const import::ImportOptions windowed{.progress = {}, .threads = 0,
                                         .window = ampscope::analyzer::SecondsWindow{.from_s = 0.5, .to_s = 2.0}};
    (void)import::importNsightSystemsByProcess(db, windowed, {}, std::nullopt, check);
    auto trace = import::importNsightSystems(db);
    if (trace) import::demangleKernelNames(*trace);
    return trace;
  });
}
