#pragma once
// What the SQLite importers (nvprof, Nsight Systems) share: the tool's own string table mapped
// to the trace's interned strings, and the checks every row's values go through.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "trace/result.h"
#include "trace/string_table.h"
#include "trace/trace_model.h"

namespace ampscope::trace::db {
class SqliteDatabase;
}

namespace ampscope::analyzer::import {

class ForeignStrings {
 public:
  // Reads every (id_column, value) row of table into strings.
  trace::Status load(trace::db::SqliteDatabase& db, std::string_view table,
                     std::string_view id_column, trace::StringTable& strings);

  // The interned id for a foreign id found in table/row/column; an error naming all three when
  // the foreign id is not in the string table.
  trace::Status lookup(std::string_view table, std::int64_t row, std::string_view column,
                       std::int64_t foreign_id, trace::StringId& out) const;

 private:
  std::string path_;
  std::string table_;
  std::unordered_map<std::int64_t, trace::StringId> ids_;
};

// The GPU's activity tables (kernels, memory operations, synchronisations) need nothing from the
// host's (API calls, markers) but the string lookup, which is read-only once loaded: read_gpu runs
// on a second connection to db's file, in a thread, while read_host runs on db here. Where no
// second connection opens, they run one after the other on db. The GPU side's error comes first.
trace::Status readGpuAndHostAtOnce(trace::db::SqliteDatabase& db,
                                   const std::function<trace::Status(trace::db::SqliteDatabase&)>& read_gpu,
                                   const std::function<trace::Status()>& read_host);

// Moves what a GPU-side reader put in its own trace (kernels, memory operations, synchronisations
// and their counts) into out, which has none of them yet.
void takeGpuRecords(trace::Trace&& gpu, trace::Trace& out);

// Where a row lies, for import_stats.first_place: "table 'CUPTI_ACTIVITY_KIND_KERNEL' row 17".
std::string rowPlace(std::string_view table, std::int64_t row);

// False for a record that ends before it starts: it cannot be placed in time, so it is counted
// in stats with its place and left out, and the rest of the file is read.
bool intervalReadable(std::string_view table, std::int64_t row, std::int64_t start_ns, std::int64_t end_ns,
                      trace::ImportStats& stats);

// A copy's or memset's size as the row gives it. A negative one is no size (read as unsigned it
// would be some 2^64 bytes): 0, counted in stats with its place; the record is kept.
std::uint64_t byteCount(std::string_view table, std::int64_t row, std::int64_t bytes, trace::ImportStats& stats);

// A kernel's shared memory per block, static + dynamic as the row gives them. Where either is
// negative or the sum does not fit 32 bits (the sum of two arbitrary 64-bit values overflowed
// before: found by the nsys and nvprof fuzz harnesses), 0, counted in stats with its place.
std::uint32_t sharedMemoryBytes(std::string_view table, std::int64_t row, std::int64_t static_bytes,
                                std::int64_t dynamic_bytes, trace::ImportStats& stats);

}  // namespace ampscope::analyzer::import
