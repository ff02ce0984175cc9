#include "analyzer/import/nsight/nsys_row_conditions.h"

#include <cstdint>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "trace/db/table_page_scan.h"

namespace ampscope::analyzer::import {

namespace {

using trace::db::TablePageScan;
using Value = std::optional<std::int64_t>;  // nullopt: NULL

// SQL's three values: true, false and NULL (nullopt).
using Truth = std::optional<bool>;

Truth both(Truth a, Truth b) {
  if (a == false || b == false) return false;
  if (!a || !b) return std::nullopt;
  return true;
}
Truth either(Truth a, Truth b) {
  if (a == true || b == true) return true;
  if (!a || !b) return std::nullopt;
  return false;
}
Truth less(Value a, Value b) { return a && b ? Truth(*a < *b) : std::nullopt; }
Truth lessOrEqual(Value a, Value b) { return a && b ? Truth(*a <= *b) : std::nullopt; }
Truth equal(Value a, Value b) { return a && b ? Truth(*a == *b) : std::nullopt; }
Truth isNull(Value a) { return !a.has_value(); }

struct WindowSql {
  std::string sql;  // its parameters: the window's end, then its start `starts` times
  int starts = 0;
};

WindowSql windowSql(WindowTest test) {
  switch (test) {
    case WindowTest::kOverlaps: return {"start < ? AND (end > ? OR (end = start AND start >= ?))", 2};
    case WindowTest::kNvtx:
      return {fmt::format("eventType IN ({}, {}, {}, {}) OR (start < ? AND (end > ? OR ((end IS NULL OR end < start) "
                          "AND eventType <> {}) OR ((end IS NULL OR end <= start) AND start >= ?)))",
                          static_cast<std::int64_t>(kNvtxCategory), static_cast<std::int64_t>(kNvtxThread),
                          static_cast<std::int64_t>(kNvtxDomainCreate), static_cast<std::int64_t>(kNvtxDomainDestroy),
                          static_cast<std::int64_t>(kNvtxMark)),
              2};
  }
  return {};
}

// The same tests on a row from the pages.
Truth overlaps(const TablePageScan& row, const trace::ReadSpan& window) {
  const Value start = valueIfAny(row, 0);
  const Value end = valueIfAny(row, 1);
  return both(less(start, window.end_ns),
              either(less(window.start_ns, end), both(equal(end, start), lessOrEqual(window.start_ns, start))));
}

Truth nvtxInWindow(const TablePageScan& row, const trace::ReadSpan& window) {
  const Value start = valueIfAny(row, 0);
  const Value end = valueIfAny(row, 1);
  const Value type = valueIfAny(row, 2);
  const Truth named_whenever = type ? Truth(*type == kNvtxCategory || *type == kNvtxThread ||
                                            *type == kNvtxDomainCreate || *type == kNvtxDomainDestroy)
                                    : std::nullopt;
  const Truth not_a_mark = type ? Truth(*type != kNvtxMark) : std::nullopt;
  const Truth never_ended = both(either(isNull(end), less(end, start)), not_a_mark);
  const Truth instant_inside = both(either(isNull(end), lessOrEqual(end, start)), lessOrEqual(window.start_ns, start));
  return either(named_whenever,
                both(less(start, window.end_ns), either(either(less(window.start_ns, end), never_ended), instant_inside)));
}

}  // namespace

RowCondition scopeCondition(const NsysReadScope& scope, const NsysColumns& c, std::string_view pid_column,
                            WindowTest window_test) {
  // No row of a table without the process column is the process's: SQLite, told so, reads none
  // (the pages would step over every one).
  if (scope.pid && c[pid_column] < 0) return {.sql = "0", .values = {}, .keeps = {}};
  RowCondition out;
  const auto add = [&](const std::string& sql) { out.sql += (out.sql.empty() ? "" : " AND ") + sql; };
  if (scope.pid) {
    add(fmt::format("(({} >> 24) & 16777215) = ?", pid_column));
    out.values.push_back(*scope.pid);
  }
  if (scope.window) {
    const WindowSql window = windowSql(window_test);
    add(fmt::format("({})", window.sql));
    out.values.push_back(scope.window->end_ns);
    for (int i = 0; i < window.starts; ++i) out.values.push_back(scope.window->start_ns);
  }
  if (out.sql.empty()) return out;
  // The pid's bits, whether SQLite shifts a negative globalTid arithmetically or not: the mask
  // keeps bits 24-47 alone.
  const int pid_at = c[pid_column];
  out.keeps = [pid = scope.pid, pid_at, window = scope.window, window_test](const TablePageScan& row) {
    Truth kept = true;
    if (pid) {
      const Value packed = valueIfAny(row, pid_at);
      kept = packed ? Truth(decodeGlobalTid(*packed).pid == *pid) : std::nullopt;
    }
    if (window) kept = both(kept, window_test == WindowTest::kNvtx ? nvtxInWindow(row, *window) : overlaps(row, *window));
    return kept == true;
  };
  return out;
}

}  // namespace ampscope::analyzer::import
