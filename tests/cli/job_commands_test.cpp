// A distributed job through the commands: `analyze` of a folder, `analyze RANK --json` per rank
// then `merge` of the results (the map and reduce steps), `--rank N`, and `report` of a job.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "../test_support.h"
#include "analyzer/job_files.h"
#include "cli/analyze_command.h"
#include "cli/exit_codes.h"
#include "cli/merge_command.h"
#include "cli/report_command.h"

namespace ampscope::cli {
namespace {

constexpr const char* kDlrmJob = "kineto-v100-dlrm-8ranks";

constexpr const char* kNsysTwoRanks = "nsys-h100x2-fp32gemm-emitnvtx/h100_2gpu_1s.sqlite";

std::string analyzeOut(std::vector<std::string> paths, bool json, std::optional<std::int32_t> rank = std::nullopt,
                       std::string gpu = {}) {
  std::ostringstream out;
  std::ostringstream err;
  AnalyzeOptions options;
  options.trace_paths = std::move(paths);
  options.json = json;
  options.rank = rank;
  options.gpu = std::move(gpu);
  EXPECT_EQ(runAnalyze(options, out, err), kExitOk) << err.str();
  return out.str();
}

int merge(const std::vector<std::string>& inputs, std::string& out_text, std::string& err_text) {
  std::ostringstream out;
  std::ostringstream err;
  MergeOptions options;
  options.inputs = inputs;
  options.json = true;
  const int code = runMerge(options, out, err);
  out_text = out.str();
  err_text = err.str();
  return code;
}

// The map step on each rank file, the reduce step on their results: the same document, byte for
// byte, as analyzing the folder at once.
TEST(JobCommandsTest, MergeOfPerRankResultsEqualsAnalyzingTheFolder) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(folder, kDlrmJob);
  test::ScratchDir dir;
  auto files = analyzer::listTraceFiles({folder});
  ASSERT_TRUE(files);
  ASSERT_EQ(files->size(), 8u);
  std::vector<std::string> results;
  for (std::size_t i = 0; i < files->size(); ++i) {
    const std::string text = analyzeOut({(*files)[i]}, true);
    ASSERT_TRUE(nlohmann::json::parse(text).contains("rank_result"));
    results.push_back(dir.write("rank" + std::to_string(i) + ".json", text));
  }
  std::reverse(results.begin(), results.end());  // the order given does not matter: ranks say who they are
  std::string merged;
  std::string err;
  ASSERT_EQ(merge(results, merged, err), kExitOk) << err;
  const std::string together = analyzeOut({folder}, true);
  EXPECT_EQ(merged, together);
  const nlohmann::json job = nlohmann::json::parse(together);
  EXPECT_EQ(job.at("world_size"), 8);
  EXPECT_EQ(job.at("ranks").size(), 8u);
  EXPECT_FALSE(job.at("slowest_rank").is_null());
  for (const char* key : {"rank", "steady_step_ns", "compute_ns", "communication_ns", "exposed_communication_ns",
                          "data_ns", "idle_ns", "tensor_core_share", "amp_projected_speedup", "amp_ceiling",
                          "amp_note", "tf32_projected_speedup", "top_findings"}) {
    EXPECT_TRUE(job.at("ranks").at(0).contains(key)) << key;
  }
  // The ranks' own findings, merged: each names the ranks it applies to.
  ASSERT_FALSE(job.at("recommendations").empty());
  for (const auto& rec : job.at("recommendations")) EXPECT_FALSE(rec.at("ranks").empty()) << rec.at("rule");
  for (const char* key : {"name", "kind", "calls", "bytes", "time_ns", "algbw_gbps", "busbw_gbps"}) {
    EXPECT_TRUE(job.at("collectives").at(0).contains(key)) << key;
  }
  // A merge of a merge is the same job.
  const std::string again_path = dir.write("job.json", merged);
  std::string again;
  ASSERT_EQ(merge({again_path}, again, err), kExitOk) << err;
  EXPECT_EQ(again, merged);
}

// The shared two-process Nsight export (FP32 GEMMs on CUDA cores) opens as a job: with --gpu, its
// document shows each rank's Tensor Core share and AMP projection and an enable-amp finding naming
// both ranks; its report writes each rank's kernels with the rank first.
TEST(JobCommandsTest, TheNsightExportsJobShowsItsRanksAmpFindings) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, kNsysTwoRanks);
  const nlohmann::json job = nlohmann::json::parse(analyzeOut({path}, true, std::nullopt, "H100-SXM"));
  EXPECT_EQ(job.at("format"), "job");
  ASSERT_EQ(job.at("ranks").size(), 2u);
  for (const auto& rank : job.at("ranks")) {
    EXPECT_EQ(rank.at("tensor_core_share"), 0.0) << rank.at("rank");
    ASSERT_TRUE(rank.at("amp_projected_speedup").is_number()) << rank.at("amp_note");
    EXPECT_GT(rank.at("amp_projected_speedup").get<double>(), 1.0);
    EXPECT_EQ(rank.at("top_findings").at(0).at("rule"), "enable-amp");
  }
  bool amp = false;
  for (const auto& rec : job.at("recommendations")) {
    if (rec.at("rule") != "enable-amp") continue;
    amp = true;
    EXPECT_EQ(rec.at("ranks"), nlohmann::json::array({0, 1}));
    EXPECT_GT(rec.at("estimated_gain_ns").get<std::int64_t>(), 0);
  }
  EXPECT_TRUE(amp) << job.at("recommendations").dump();

  test::ScratchDir dir;
  std::ostringstream out;
  std::ostringstream err;
  ReportOptions options;
  options.trace_paths = {path};
  options.gpu = "H100-SXM";
  options.out_dir = dir.file("report");
  ASSERT_EQ(runReport(options, out, err), kExitOk) << err.str();
  const std::string kernels = test::readFile(dir.file("report/kernels.csv"));
  EXPECT_EQ(kernels.rfind("rank,name,calls,gpu_time_ns,tensor_cores", 0), 0u) << kernels.substr(0, 200);
  EXPECT_NE(kernels.find("\n0,sm80_xmma_gemm_f32f32"), std::string::npos);
  EXPECT_NE(kernels.find("\n1,sm80_xmma_gemm_f32f32"), std::string::npos);
  for (const char* name : {"layers.csv", "ops.csv", "report.md"}) {
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir.file("report")) / name)) << name;
  }
  EXPECT_NE(test::readFile(dir.file("report/report.md")).find("enable-amp"), std::string::npos);
}

TEST(JobCommandsTest, MergeNamesTheFileAndTheKeyOfABadResult) {
  test::ScratchDir dir;
  std::string out;
  std::string err;
  EXPECT_EQ(merge({dir.write("a.json", "{\"rank_result\": ")}, out, err), kExitBadInput);
  EXPECT_NE(err.find("a.json: not JSON"), std::string::npos) << err;
  EXPECT_EQ(merge({dir.write("b.json", "{\"format\": \"kineto\"}")}, out, err), kExitBadInput);
  EXPECT_NE(err.find("b.json: holds no \"rank_result\""), std::string::npos) << err;
  const std::string partial =
      R"({"rank_result": {"rank": 0, "origin": "distributed_info", "recorded_world_size": 2, "backend": "nccl",
          "source": "x", "file": "x", "pid": 1, "device": "d", "clock": "unix-epoch", "steps_source": "s",
          "steps": [{"number": 1, "start_ns": 10, "end_ns": 5}]}})";
  EXPECT_EQ(merge({dir.write("c.json", partial)}, out, err), kExitBadInput);
  EXPECT_NE(err.find("c.json: rank_result.steps[0].warmup is missing"), std::string::npos) << err;
  EXPECT_EQ(merge({dir.file("absent.json")}, out, err), kExitBadInput);
  EXPECT_NE(err.find("absent.json: cannot open"), std::string::npos) << err;
}

TEST(JobCommandsTest, AnalyzeOfAFolderPrintsTheRanksAndRankNOpensOne) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(folder, kDlrmJob);
  const std::string text = analyzeOut({folder}, false);
  EXPECT_NE(text.find("job         8 rank(s) given of world size 8"), std::string::npos) << text;
  EXPECT_NE(text.find("slowest     rank "), std::string::npos) << text;
  EXPECT_NE(text.find("ncclKernel_AllReduce_RING_LL_Sum_float"), std::string::npos) << text;
  const nlohmann::json rank3 = nlohmann::json::parse(analyzeOut({folder}, true, 3));
  EXPECT_EQ(rank3.at("distributed").at("rank"), 3);
  EXPECT_EQ(rank3.at("rank_result").at("rank"), 3);

  std::ostringstream out;
  std::ostringstream err;
  AnalyzeOptions options;
  options.trace_paths = {folder};
  options.rank = 9;
  EXPECT_EQ(runAnalyze(options, out, err), kExitBadInput);
  EXPECT_NE(err.str().find("rank 9 is not in the job: it has ranks 0, 1, 2, 3, 4, 5, 6, 7"), std::string::npos) << err.str();
}

TEST(JobCommandsTest, ReportOfAJobWritesRanksAndCollectives) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(folder, kDlrmJob);
  test::ScratchDir dir;
  const std::string out_dir = dir.file("report");
  std::ostringstream out;
  std::ostringstream err;
  ReportOptions options;
  options.trace_paths = {folder};
  options.out_dir = out_dir;
  ASSERT_EQ(runReport(options, out, err), kExitOk) << err.str();
  const auto read = [&](const char* name) {
    std::ifstream in(std::filesystem::path(out_dir) / name);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  const std::string kernels = read("kernels.csv");
  EXPECT_EQ(kernels.rfind("rank,name,calls", 0), 0u) << kernels.substr(0, 200);
  for (int r = 0; r < 8; ++r) EXPECT_NE(kernels.find("\n" + std::to_string(r) + ","), std::string::npos) << r;
  const std::string ranks = read("ranks.csv");
  EXPECT_EQ(std::count(ranks.begin(), ranks.end(), '\n'), 9);  // header and 8 ranks
  EXPECT_EQ(ranks.rfind("rank,origin,source,device,clock_alignment", 0), 0u) << ranks;
  const std::string collectives = read("collectives.csv");
  EXPECT_NE(collectives.find("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t,send_recv"), std::string::npos);
  const std::string html = read("report.html");
  EXPECT_NE(html.find("(slowest)"), std::string::npos);
  EXPECT_NE(html.find("aria-label=\"per-rank step\""), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(read("report.json")).at("ranks").size(), 8u);
}

}  // namespace
}  // namespace ampscope::cli
