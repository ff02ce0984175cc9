// `ampscope export --perfetto` through the command: a job of eight rank files is eight processes
// (pid = rank) on one clock, and bad input or an unwritable output gives one line, its exit code
// and no file.

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "../test_support.h"
#include "cli/exit_codes.h"
#include "cli/export_command.h"

namespace ampscope::cli {
namespace {

int runExportOf(const std::vector<std::string>& paths, const std::string& out_path, std::string& err_text) {
  std::ostringstream out;
  std::ostringstream err;
  ExportOptions options;
  options.trace_paths = paths;
  options.perfetto = out_path;
  const int code = runExport(options, out, err);
  err_text = err.str();
  return code;
}

std::size_t lines(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

TEST(ExportCommandTest, EightRankJobIsEightProcessesOnOneClock) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(folder, "kineto-v100-dlrm-8ranks");
  test::ScratchDir dir;
  const std::string out_path = dir.file("job.json");
  std::string err;
  ASSERT_EQ(runExportOf({folder}, out_path, err), kExitOk) << err;
  EXPECT_FALSE(std::filesystem::exists(out_path + ".tmp"));
  const auto document = nlohmann::json::parse(test::readFile(out_path));
  std::map<std::int64_t, std::string> process_names;
  std::set<std::int64_t> pids;
  // Per rank, the end of its last NCCL kernel: the job's clock alignment puts the ranks'
  // collectives together, so they end within the alignment's tolerance (100 us) of each other.
  std::map<std::int64_t, double> last_nccl_end_us;
  double earliest = 1e300;
  for (const auto& e : document["traceEvents"]) {
    pids.insert(e["pid"].get<std::int64_t>());
    if (e["ph"] == "M" && e["name"] == "process_name") process_names[e["pid"]] = e["args"]["name"];
    if (e.contains("ts")) earliest = std::min(earliest, e["ts"].get<double>());
    if (e["ph"] == "X" && e["cat"] == "kernel" && e["name"].get<std::string>().find("nccl") != std::string::npos) {
      double& end = last_nccl_end_us[e["pid"]];
      end = std::max(end, e["ts"].get<double>() + e["dur"].get<double>());
    }
  }
  EXPECT_EQ(pids, (std::set<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  ASSERT_EQ(process_names.size(), 8u);
  for (const auto& [pid, name] : process_names) {
    EXPECT_EQ(name.rfind("rank " + std::to_string(pid) + " (worker", 0), 0u) << name;
  }
  EXPECT_EQ(earliest, 0.0);  // relative to the job's earliest event
  ASSERT_EQ(last_nccl_end_us.size(), 8u);
  double low = 1e300;
  double high = 0;
  for (const auto& [pid, end] : last_nccl_end_us) {
    low = std::min(low, end);
    high = std::max(high, end);
  }
  EXPECT_LT(high - low, 100.0) << "the ranks' last collectives end " << high - low << " us apart";
}

TEST(ExportCommandTest, MissingTraceIsBadInputAndLeavesNoFile) {
  test::ScratchDir dir;
  const std::string out_path = dir.file("out.json");
  std::string err;
  EXPECT_EQ(runExportOf({dir.file("no-such-trace.json")}, out_path, err), kExitBadInput);
  EXPECT_EQ(err.rfind("ampscope: " + dir.file("no-such-trace.json") + ": ", 0), 0u) << err;
  EXPECT_EQ(lines(err), 1u) << err;
  EXPECT_FALSE(std::filesystem::exists(out_path));
  EXPECT_FALSE(std::filesystem::exists(out_path + ".tmp"));
}

TEST(ExportCommandTest, UnwritableOutputIsAFailureAndLeavesNoFile) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  test::ScratchDir dir;
  const std::string out_path = dir.file("no-such-folder/out.json");
  std::string err;
  EXPECT_EQ(runExportOf({path}, out_path, err), kExitFailure);
  EXPECT_EQ(err.rfind("ampscope: " + out_path + ": cannot write", 0), 0u) << err;
  EXPECT_EQ(lines(err), 1u) << err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("no-such-folder")));
}

TEST(ExportCommandTest, AnExistingOutputIsReplacedWhole) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  test::ScratchDir dir;
  const std::string out_path = dir.write("out.json", std::string(40'000'000, 'x'));
  std::string err;
  ASSERT_EQ(runExportOf({path}, out_path, err), kExitOk) << err;
  EXPECT_TRUE(nlohmann::json::accept(test::readFile(out_path)));
}

}  // namespace
}  // namespace ampscope::cli
