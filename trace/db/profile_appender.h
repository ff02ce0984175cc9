#pragma once
// Appends rows to an ampscope profile database, through prepared statements. The whole-trace
// ProfileWriter and the collector's background writer both use it: the collector commits a batch
// at a time while the program runs, so what was committed stays readable if the program dies.
// Rows of the big all-integer tables (launches, kernels, memory ops, synchronizations, ranges,
// gradient bins, memory events) are buffered and inserted many to a statement (BatchedInsert); commit() writes
// what is still buffered first, so a commit always holds every row appended before it.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/db/batched_insert.h"
#include "trace/db/kernel_rows.h"
#include "trace/db/sqlite_database.h"
#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::trace::db {

class ProfileAppender {
 public:
  // Prepares the inserts; db must already hold the schema (see createProfileDatabase).
  static Result<ProfileAppender> create(SqliteDatabase& db);

  Status begin();
  // Writes the rows still buffered and commits.
  Status commit();

  Status meta(std::string_view key, std::string_view value);
  // Strings must be appended with dense ids from 0 (id 0 is the empty string).
  Status string(StringId id, std::string_view text);
  Status device(const Device& device);
  Status thread(Index id, const Thread& thread);
  Status launch(const LaunchCall& launch);
  // Stores the kernel's configuration once (kernel_configs) and the kernel row against it.
  Status kernel(const Kernel& kernel);
  Status memoryOp(const MemoryOp& op);
  Status synchronization(const Synchronization& sync);
  Status range(const Range& range);
  Status counter(const Counter& counter);
  Status gradientBin(const GradientBin& bin);
  Status memoryEvent(const MemoryEvent& event);
  Status metricSample(const MetricSample& sample);
  // Stores the range under the next kernel_metrics id (0, 1, ... in the order appended) and each
  // of its values against that id, in their order.
  Status kernelMetrics(const KernelMetrics& range);
  // Replaces the stored value of (section, key).
  // place: where a reason not understood was first met in the source file ("" where unknown).
  Status stat(std::string_view section, std::string_view key, std::uint64_t value, std::string_view place = {});

  std::uint64_t kernelConfigCount() const { return configs_.size(); }

 private:
  enum Insert : std::size_t;
  enum Batched : std::size_t;
  ProfileAppender(SqliteDatabase& db, std::vector<Statement> statements, std::vector<BatchedInsert> batched);

  SqliteDatabase* db_;
  std::vector<Statement> statements_;
  std::vector<BatchedInsert> batched_;
  std::unordered_map<KernelConfig, std::uint32_t, KernelConfigHash> configs_;
  std::int64_t next_kernel_metrics_id_ = 0;

 public:
  ProfileAppender(ProfileAppender&&) noexcept;
  ProfileAppender& operator=(ProfileAppender&&) noexcept;
  ~ProfileAppender();
};

// Creates (or truncates) path as an empty profile: 64 KiB pages, WAL, the schema and its version.
Result<SqliteDatabase> createProfileDatabase(const std::string& path);

// The import_stats rows of stats, in the order they are stored.
struct StatRow {
  std::string section;
  std::string key;
  std::uint64_t value = 0;
  std::string place;
};
std::vector<StatRow> statRows(const ImportStats& stats);

}  // namespace ampscope::trace::db
