#include "analyzer/import/nsight/nsys_pass.h"

#include <functional>
#include <optional>
#include <utility>

#include "analyzer/import/nsight/table_slices.h"
#include "base/task_queue.h"

namespace ampscope::analyzer::import {

using trace::Status;
using trace::db::SqliteDatabase;

namespace {

// Calls each(table) for each of a part's tables (const or not, as the part is).
template <typename Part, typename Each>
void forEachTable(Part& part, Each each) {
  each(part.kernels);
  each(part.runtime);
  each(part.driver);
  each(part.memcpy);
  each(part.memset);
  each(part.syncs);
  each(part.nvtx);
}

// One task per slice of each event table, decoding into each part's TableSlice for that slice.
template <typename Table, typename Record>
Status addSliceTasks(SqliteDatabase& db, const char* table, const Table& reader, bool read_pages,
                     std::vector<TableSlice<Record>> NsysSlices::*slices_of, PassOutput& pass,
                     std::vector<SliceTask>& tasks) {
  auto slices = rowidSlices(db, table);
  if (!slices) return slices.error();
  for (NsysSlices& part : pass.parts) (part.*slices_of).resize(slices->size());
  for (std::size_t i = 0; i < slices->size(); ++i) {
    tasks.push_back([&reader, read_pages, &pass, slices_of, i, slice = (*slices)[i]](SqliteDatabase& connection) {
      const auto sliceOf = [&](std::size_t part) { return &(pass.parts[part].*slices_of)[i]; };
      const auto outputOf = [&](RowSource source) {
        if (pass.pids.empty()) return SliceOutput<Record>(*sliceOf(0), source);
        std::vector<std::pair<std::int64_t, TableSlice<Record>*>> by_pid;
        for (std::size_t part = 0; part < pass.parts.size(); ++part) by_pid.emplace_back(pass.pids[part], sliceOf(part));
        return SliceOutput<Record>(std::move(by_pid), source);
      };
      // From the file's pages; where they give up, once more with a statement, from empty slices.
      for (const RowSource source : {RowSource::kPagesFirst, RowSource::kStatement}) {
        if (source == RowSource::kPagesFirst && !read_pages) continue;
        for (std::size_t part = 0; part < pass.parts.size(); ++part) *sliceOf(part) = {};
        const SliceOutput<Record> output = outputOf(source);
        if (Status read = reader.read(connection, slice, output); !read) return read;
        if (output.pagesGaveUp()) continue;
        pass.rows_passed_by += output.rowsPassedBy();
        break;
      }
      for (std::size_t part = 0; part < pass.parts.size(); ++part) {
        packNames(*sliceOf(part));
        if (pass.spill && part > 0) spillSlice(*pass.spill, *sliceOf(part));
      }
      return Status{};
    });
  }
  return {};
}

}  // namespace

Status readEventTables(SqliteDatabase& db, const NsysReadScope& scope, unsigned threads, PassOutput& pass) {
  pass.parts.resize(pass.pids.empty() ? 1 : pass.pids.size());
  std::vector<SliceTask> tasks;
  Status status;
  const auto add = [&](const char* table, const auto& reader, auto slices_of) {
    if (status) status = addSliceTasks(db, table, reader, scope.read_pages, slices_of, pass, tasks);
  };
  // The readers outlive the tasks that use them. The largest tables first, so that no thread is
  // left with a long one at the end.
  std::optional<NvtxTable> nvtx;
  std::optional<ApiTable> runtime;
  std::optional<KernelTable> kernels;
  std::optional<ApiTable> driver;
  std::optional<MemoryOpTable> memcpy;
  std::optional<MemoryOpTable> memset;
  std::optional<SyncTable> syncs;
  if (db.hasTable(kNsysNvtx)) add(kNsysNvtx, nvtx.emplace(db, scope), &NsysSlices::nvtx);
  if (db.hasTable(kNsysRuntime)) add(kNsysRuntime, runtime.emplace(db, kNsysRuntime, scope), &NsysSlices::runtime);
  if (db.hasTable(kNsysKernels)) {
    auto made = KernelTable::make(db, scope);
    if (!made) return made.error();
    add(kNsysKernels, kernels.emplace(std::move(made).value()), &NsysSlices::kernels);
  }
  if (db.hasTable(kNsysDriver)) add(kNsysDriver, driver.emplace(db, kNsysDriver, scope), &NsysSlices::driver);
  if (db.hasTable(kNsysMemcpy)) add(kNsysMemcpy, memcpy.emplace(db, kNsysMemcpy, scope), &NsysSlices::memcpy);
  if (db.hasTable(kNsysMemset)) add(kNsysMemset, memset.emplace(db, kNsysMemset, scope), &NsysSlices::memset);
  if (db.hasTable(kNsysSync)) add(kNsysSync, syncs.emplace(db, scope), &NsysSlices::syncs);
  if (!status) return status;
  return runSliceTasks(db, threads, tasks);
}

Status restorePart(PassOutput& pass, std::size_t part, unsigned threads) {
  if (!pass.spill) return {};
  std::vector<std::function<Status()>> restores;
  forEachTable(pass.parts[part], [&](auto& table) {
    for (auto& slice : table) {
      if (slice.spilled) restores.emplace_back([&spill = *pass.spill, &slice] { return restoreSlice(spill, slice); });
    }
  });
  std::vector<Status> restored(restores.size());
  runTasks(restores.size(), threads, [&](std::size_t i, std::size_t) { restored[i] = restores[i](); });
  for (const Status& status : restored) {
    if (!status) return status;
  }
  return {};
}

std::uint64_t rowsOfPass(const PassOutput& pass) {
  std::uint64_t rows = pass.rows_passed_by.load();
  for (const NsysSlices& part : pass.parts) {
    forEachTable(part, [&](const auto& table) {
      for (const auto& slice : table) rows += slice.stats.events_read;
    });
  }
  return rows;
}

bool holdsRecords(const NsysSlices& part) {
  bool any = false;
  forEachTable(part, [&](const auto& table) {
    for (const auto& slice : table) any = any || !slice.rows.empty() || slice.spilled.has_value();
  });
  return any;
}

}  // namespace ampscope::analyzer::import
