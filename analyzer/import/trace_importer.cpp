#include "analyzer/import/trace_importer.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <system_error>

#include <fmt/format.h>

#include "analyzer/import/byte_source.h"
#include "analyzer/import/demangle.h"
#include "analyzer/import/kineto/kineto_importer.h"
#include "analyzer/import/nsight/nsys_importer.h"
#include "analyzer/import/nsight/nvprof_importer.h"
#include "analyzer/import/read_window_filter.h"
#include "analyzer/normalise/range_normaliser.h"
#include "trace/db/profile_reader.h"
#include "trace/db/sqlite_database.h"

namespace ampscope::analyzer::import {

namespace {

using trace::Error;
using trace::Result;
using trace::Trace;

constexpr std::string_view kExpected =
    "expected a PyTorch profiler (Kineto) JSON trace (plain or .gz), an Nsight Systems or nvprof "
    "SQLite export, or an ampscope profile";

Result<Trace> importSqlite(const std::string& path, const ImportOptions& options, const StageCallback& stage_done) {
  auto db = trace::db::SqliteDatabase::open(path, trace::db::SqliteDatabase::Mode::kReadOnly);
  if (!db) return db.error();
  if (trace::db::isProfileDatabase(*db)) {
    // The collector appends rows as records complete (a range when it ends, after its children),
    // and the reader keeps table order; the analyzer needs every vector in start order.
    auto profile = trace::db::readProfile(*db);
    if (profile) {
      // Profiles before schema 1.4 (and records the collector could not place) name no process.
      profile->assignLaunchingProcesses();
      profile->sortByTime();
      normaliseRanges(*profile);
    }
    return profile;
  }
  if (isNvprofDatabase(*db)) return importNvprof(*db);
  if (isNsightSystemsDatabase(*db)) return importNsightSystems(*db, options, stage_done);
  std::string tables;
  if (auto statement = db->prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name LIMIT 6")) {
    while (statement->step()) tables += fmt::format("{}'{}'", tables.empty() ? "" : ", ", statement->text(0));
  }
  return Error{fmt::format("{}: an SQLite database of an unknown schema (tables: {}); {}", path,
                           tables.empty() ? "none" : tables, kExpected)};
}

std::string printable(const unsigned char* bytes, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) {
    const unsigned char c = bytes[i];
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '.';
  }
  return out;
}

enum class FileForm { kSqlite, kJsonOrGzip, kOther };

bool readHead(const std::string& path, std::array<unsigned char, 64>& head, std::size_t& got) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) return false;
  got = std::fread(head.data(), 1, head.size(), file);
  std::fclose(file);
  return true;
}

// What the first bytes say the file is: an SQLite database, JSON (plain, or gzip'd), or neither.
FileForm formOf(const std::array<unsigned char, 64>& head, std::size_t got) {
  static constexpr char kSqliteMagic[] = "SQLite format 3";  // 16 bytes with its NUL
  if (got >= sizeof(kSqliteMagic) && std::memcmp(head.data(), kSqliteMagic, sizeof(kSqliteMagic)) == 0) {
    return FileForm::kSqlite;
  }
  const bool gzip = got >= 2 && head[0] == 0x1f && head[1] == 0x8b;
  std::size_t first = 0;
  if (got >= 3 && head[0] == 0xef && head[1] == 0xbb && head[2] == 0xbf) first = 3;  // UTF-8 BOM
  while (first < got && std::strchr(" \t\r\n", head[first]) && head[first] != 0) ++first;
  const bool json = first < got && (head[first] == '{' || head[first] == '[');
  return gzip || json ? FileForm::kJsonOrGzip : FileForm::kOther;
}

// Reads the file in whichever format its content says; importTrace then demangles its kernels.
Result<Trace> importAnyFormat(const std::string& path, const ImportOptions& options, const StageCallback& stage_done);

// An Nsight Systems export, opened: nullopt where the file is not one.
std::optional<trace::db::SqliteDatabase> openNsightSystems(const std::string& path) {
  std::array<unsigned char, 64> head{};
  std::size_t got = 0;
  if (!readHead(path, head, got) || formOf(head, got) != FileForm::kSqlite) return std::nullopt;
  auto db = trace::db::SqliteDatabase::open(path, trace::db::SqliteDatabase::Mode::kReadOnly);
  if (!db || trace::db::isProfileDatabase(*db) || isNvprofDatabase(*db) || !isNsightSystemsDatabase(*db)) {
    return std::nullopt;
  }
  return std::move(db).value();
}

}  // namespace

trace::Status importTraceByProcess(const std::string& path, const ImportOptions& options, const StageCallback& stage_done,
                                   std::optional<std::int64_t> only, const ProcessTraceSink& each) {
  if (auto db = openNsightSystems(path)) {
    return importNsightSystemsByProcess(*db, options, stage_done, only, [&](trace::ProcessTrace&& part) {
      demangleKernelNames(part.trace);
      return each(std::move(part));
    });
  }
  auto trace = importTrace(path, options, stage_done);
  if (!trace) return trace.error();
  trace::ProcessTrace whole{
      .pid = trace::kUnknownPid, .first_device = 0, .trace = std::move(trace).value(), .one_of_several = false};
  if (!whole.trace.kernels.empty()) whole.pid = whole.trace.kernels.front().pid;
  return each(std::move(whole));
}

bool looksLikeTraceFile(const std::string& path) {
  std::array<unsigned char, 64> head{};
  std::size_t got = 0;
  return readHead(path, head, got) && got > 0 && formOf(head, got) != FileForm::kOther;
}

Result<Trace> importTrace(const std::string& path, const ImportOptions& options, const StageCallback& stage_done) {
  auto trace = importAnyFormat(path, options, stage_done);
  if (!trace) return trace;
  demangleKernelNames(*trace);
  // The Nsight Systems importer reads only the window; every other format is cut to it here.
  if (options.window && !trace->read_window) {
    auto span = windowSpan(*trace, *options.window, path);
    if (!span) return span.error();
    if (Status kept = keepWindowOfTrace(*trace, *span, path); !kept) return kept.error();
  }
  return trace;
}

namespace {

Result<Trace> importAnyFormat(const std::string& path, const ImportOptions& options, const StageCallback& stage_done) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    return Error{fmt::format("{}: no such file", path)};
  }
  if (std::filesystem::is_directory(status)) {
    return Error{fmt::format("{}: is a directory; {}", path, kExpected)};
  }
  std::array<unsigned char, 64> head{};
  std::size_t got = 0;
  if (!readHead(path, head, got)) return Error{fmt::format("{}: cannot open: {}", path, std::strerror(errno))};
  if (got == 0) return Error{fmt::format("{}: the file is empty; {}", path, kExpected)};
  const FileForm form = formOf(head, got);
  if (form == FileForm::kSqlite) return importSqlite(path, options, stage_done);
  if (form == FileForm::kOther) {
    return Error{fmt::format("{}: not a trace file (it starts with \"{}\"); {}", path,
                             printable(head.data(), std::min<std::size_t>(got, 16)), kExpected)};
  }
  auto source = ByteSource::open(path);
  if (!source) return source.error();
  return importKineto(**source, options, stage_done);
}

}  // namespace

}  // namespace ampscope::analyzer::import
