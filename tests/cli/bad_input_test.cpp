// Bad input gets one clear line naming the file and the place, and exit code 2: never a crash,
// a hang or a silently partial result.

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <zlib.h>

#include <sstream>
#include <tuple>

#include "../test_support.h"
#include "cli/analyze_command.h"

namespace ampscope::cli {
namespace {

struct Outcome {
  int exit_code;
  std::string out;
  std::string err;
};

Outcome analyze(const std::string& path) {
  std::ostringstream out;
  std::ostringstream err;
  AnalyzeOptions options;
  options.trace_paths = {path};
  options.json = true;
  const int code = runAnalyze(options, out, err);
  return {code, out.str(), err.str()};
}

void expectBadInput(const Outcome& outcome, const std::string& path, const std::string& place) {
  EXPECT_EQ(outcome.exit_code, kExitBadInput);
  EXPECT_TRUE(outcome.out.empty()) << "no partial result on stdout: " << outcome.out;
  EXPECT_NE(outcome.err.find(path), std::string::npos) << outcome.err;
  EXPECT_NE(outcome.err.find(place), std::string::npos) << outcome.err;
  EXPECT_EQ(std::count(outcome.err.begin(), outcome.err.end(), '\n'), 1) << "one line: " << outcome.err;
}

std::string gzipped(const std::string& text) {
  uLongf size = compressBound(static_cast<uLong>(text.size())) + 32;
  std::string out(size, '\0');
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

const std::string kSmallTrace =
    "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, "
    "\"ts\": 10, \"dur\": 5, \"args\": {\"correlation\": 1, \"device\": 0, \"stream\": 7}}, "
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 8, \"dur\": 1, \"args\": {\"correlation\": 1}}]}";

void execute(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  sqlite3_close(db);
}

TEST(BadInputTest, SmallValidTraceIsAccepted) {
  test::ScratchDir dir;
  const Outcome outcome = analyze(dir.write("ok.json", kSmallTrace));
  EXPECT_EQ(outcome.exit_code, kExitOk) << outcome.err;
  EXPECT_NE(outcome.out.find("\"count\": 1"), std::string::npos);
}

TEST(BadInputTest, MissingPath) {
  test::ScratchDir dir;
  const std::string path = dir.file("nothing-here.json");
  expectBadInput(analyze(path), path, "no such file");
}

TEST(BadInputTest, Directory) {
  test::ScratchDir dir;
  // A folder is a job's traces; one without any says so.
  expectBadInput(analyze(dir.file("")), dir.file(""), "the folder holds no trace file");
}

TEST(BadInputTest, EmptyFile) {
  test::ScratchDir dir;
  const std::string path = dir.write("empty.json", "");
  expectBadInput(analyze(path), path, "empty");
}

TEST(BadInputTest, TextFile) {
  test::ScratchDir dir;
  const std::string path = dir.write("notes.txt", "these are my notes\nnot a trace\n");
  expectBadInput(analyze(path), path, "not a trace file (it starts with \"these are my not");
}

TEST(BadInputTest, TruncatedGzip) {
  test::ScratchDir dir;
  const std::string whole = gzipped(kSmallTrace);
  const std::string path = dir.write("cut.json.gz", whole.substr(0, whole.size() / 2));
  expectBadInput(analyze(path), path, "truncated gzip stream");
}

TEST(BadInputTest, CorruptGzip) {
  test::ScratchDir dir;
  std::string bytes = gzipped(kSmallTrace);
  for (std::size_t i = 12; i < bytes.size() - 8; i += 3) bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
  const std::string path = dir.write("corrupt.json.gz", bytes);
  expectBadInput(analyze(path), path, "gzip");
}

TEST(BadInputTest, TruncatedJsonNamesTheElementAndOffset) {
  test::ScratchDir dir;
  const std::string path = dir.write("cut.json", kSmallTrace.substr(0, 200));
  expectBadInput(analyze(path), path, "truncated?) inside traceEvents element #1 that starts at byte offset");
}

TEST(BadInputTest, InvalidJsonInsideAnEventNamesTheElement) {
  test::ScratchDir dir;
  std::string text = kSmallTrace;
  text.replace(text.find("\"dur\": 5"), 8, "\"dur\": @");
  const std::string path = dir.write("bad.json", text);
  expectBadInput(analyze(path), path, "traceEvents element #0 at byte offset 17");
}

TEST(BadInputTest, ATimestampWrittenAsAStringIsRead) {
  test::ScratchDir dir;
  std::string text = kSmallTrace;
  text.replace(text.find("\"ts\": 10"), 8, "\"ts\": \"10\"");
  const Outcome outcome = analyze(dir.write("string-ts.json", text));
  EXPECT_EQ(outcome.exit_code, kExitOk) << outcome.err;
  EXPECT_NE(outcome.out.find("\"count\": 1"), std::string::npos);
  EXPECT_NE(outcome.out.find("\"not_understood\": {}"), std::string::npos) << outcome.out;
}

// An event that cannot be placed in time is left out and counted with its place; the rest of the
// trace is read and the command succeeds (perfetto's way: a recorded trace is not refused for one
// event).
TEST(BadInputTest, AKernelWithoutATimeIsCountedAtItsPlaceAndTheRestRead) {
  for (const auto& [from, to, reason] :
       {std::tuple<std::string, std::string, std::string>{"\"dur\": 5, ", "", "'kernel' events without a readable \\\"dur\\\""},
        {"\"dur\": 5", "\"dur\": -5", "'kernel' events with a negative \\\"dur\\\""},
        {"\"ts\": 10", "\"ts\": \"soon\"", "'kernel' events without a readable \\\"ts\\\""}}) {
    SCOPED_TRACE(to);
    test::ScratchDir dir;
    std::string text = kSmallTrace;
    text.replace(text.find(from), from.size(), to);
    const Outcome outcome = analyze(dir.write("bad-time.json", text));
    EXPECT_EQ(outcome.exit_code, kExitOk) << outcome.err;
    EXPECT_NE(outcome.out.find(reason + " (left out)\": 1"), std::string::npos) << outcome.out;
    EXPECT_NE(outcome.out.find(reason + " (left out)\": \"traceEvents element at byte offset 17\""), std::string::npos)
        << outcome.out;
  }
}

TEST(BadInputTest, JsonWithoutTraceEvents) {
  test::ScratchDir dir;
  const std::string path = dir.write("config.json", "{\"learning_rate\": 0.1}");
  expectBadInput(analyze(path), path, "without a \"traceEvents\" array");
}

TEST(BadInputTest, SqliteOfAnotherSchema) {
  test::ScratchDir dir;
  const std::string path = dir.file("other.sqlite");
  execute(path, "CREATE TABLE customers (id INTEGER, name TEXT)");
  expectBadInput(analyze(path), path, "unknown schema (tables: 'customers')");
}

TEST(BadInputTest, NvprofMissingTable) {
  test::ScratchDir dir;
  const std::string path = dir.file("nvprof.sqlite");
  // A kernel table without the StringTable its names point into is no nvprof profile.
  execute(path, "CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL (start INT, end INT)");
  expectBadInput(analyze(path), path, "unknown schema");
}

TEST(BadInputTest, NvprofMissingColumn) {
  test::ScratchDir dir;
  const std::string path = dir.file("nvprof.sqlite");
  execute(path, "CREATE TABLE StringTable (_id_ INTEGER, value TEXT);"
                "CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL (start INT, end INT, deviceId INT);");
  expectBadInput(analyze(path), path, "table 'CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL' has no column 'streamId'");
}

TEST(BadInputTest, ProfileMissingTable) {
  test::ScratchDir dir;
  const std::string path = dir.file("profile.sqlite");
  execute(path, "CREATE TABLE ampscope_meta (key TEXT PRIMARY KEY, value TEXT);"
                "INSERT INTO ampscope_meta VALUES ('schema_version', '1.0');");
  expectBadInput(analyze(path), path, "table 'strings' is missing");
}

TEST(BadInputTest, TruncatedSqliteFile) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(source, "nvprof-v100-transformer-lm/net.sql");
  test::ScratchDir dir;
  const std::string bytes = test::readFile(source);
  const std::string path = dir.write("cut.sql", bytes.substr(0, bytes.size() / 3));
  const Outcome outcome = analyze(path);
  EXPECT_EQ(outcome.exit_code, kExitBadInput);
  EXPECT_NE(outcome.err.find(path), std::string::npos) << outcome.err;
  EXPECT_TRUE(outcome.out.empty());
}

}  // namespace
}  // namespace ampscope::cli
