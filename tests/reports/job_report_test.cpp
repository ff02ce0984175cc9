// The views of a job's per-rank findings on hand-made ranks: the job document's ranks[] rows and
// merged recommendations, and the job report's files, whose kernels.csv, layers.csv and ops.csv
// rows are each rank's own rows after its rank.

#include "reports/job_report.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "../test_support.h"
#include "analyzer/core/rule_ids.h"
#include "reports/csv_reports.h"
#include "reports/job_json.h"
#include "reports/job_rows.h"
#include "tests/reports/csv_reader.h"

namespace ampscope::reports {
namespace {

constexpr std::int64_t kMs = 1'000'000;

// A summary of one rank: an FP32 GEMM kernel, a layer with a misaligned shape, an op, AMP projected
// at `amp` (none: unknown, as without a device row).
analyzer::TraceSummary summaryOf(std::optional<double> amp, double tensor_core_share) {
  analyzer::TraceSummary s;
  s.tensor_cores.fraction = tensor_core_share;
  if (amp) {
    s.amdahl.device.name = "H100 SXM";
    s.amdahl.window_ns = 10 * kMs;
    s.amdahl.parts = {{analyzer::StepPartKind::kIdle, 10 * kMs, 1.0, 1.0}};
    s.amdahl.projected_speedup = *amp;
    s.amdahl.ceiling = *amp + 0.5;
  } else {
    s.amdahl.note = "the device is unknown: name it with --gpu NAME";
  }
  analyzer::KernelRow k;
  k.name = "volta_sgemm_128x64_nn, \"quoted\"";
  k.calls = 4;
  k.time_ns = 3 * kMs;
  k.verdict.precision = analyzer::MathPrecision::kFp32Simt;
  k.verdict.rule_id = "sgemm";
  k.verdict.confidence = analyzer::Confidence::kHigh;
  s.kernels.push_back(k);
  analyzer::ShapeCheck check;
  check.misaligned = {{.dimension = "N", .value = 27, .padded = 32}};
  s.shape_checks.push_back(check);
  analyzer::LayerRow layer;
  layer.layer = "emb";
  layer.pass = trace::Phase::kForward;
  layer.ops = {"aten::linear"};
  layer.calls = 4;
  layer.time_ns = 3 * kMs;
  layer.eligible = true;
  layer.misaligned_checks = {0};
  s.layer_table.rows.push_back(layer);
  analyzer::OpRow op;
  op.op = "aten::mm";
  op.op_class = analyzer::OpClass::kMatrix;
  op.calls = 4;
  op.time_ns = 3 * kMs;
  op.predicted_amp_ns = 1 * kMs;
  op.amp_speedup = 3.0;
  s.op_performance.rows.push_back(op);
  return s;
}

analyzer::RankResult rankOf(std::int32_t rank, const analyzer::TraceSummary& summary, std::int64_t amp_gain_ns) {
  analyzer::Recommendation amp;
  amp.rule = std::string(analyzer::rule_ids::kEnableAmp);
  amp.target = "model";
  amp.action = "autocast";
  amp.estimated_gain_ns = amp_gain_ns;
  amp.estimated_gain_pct = 10.0 * static_cast<double>(amp_gain_ns) / kMs;
  analyzer::RankResult r = analyzer::rankResultOf(summary, {amp}, "rank.json", "rank" + std::to_string(rank) + ".json");
  r.rank = rank;
  r.origin = analyzer::RankOrigin::kDistributedInfo;
  r.clock = std::string(analyzer::kUnixEpochClock);
  r.steps.push_back({.number = 1, .start_ns = 0, .end_ns = 10 * kMs, .warmup = false, .compute_ns = 10 * kMs});
  return r;
}

analyzer::JobAnalysis twoRanks() {
  auto job = analyzer::analyzeJob({rankOf(0, summaryOf(1.5, 0.25), 2 * kMs), rankOf(1, summaryOf(std::nullopt, 0.5), 3 * kMs)});
  EXPECT_TRUE(job) << job.error().message;
  return std::move(job).value();
}

TEST(JobReportTest, EachRanksRowShowsItsTensorCoreShareAmpProjectionAndTopFindings) {
  const nlohmann::ordered_json doc = jobToJsonDocument(twoRanks());
  const auto& ranks = doc.at("ranks");
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks[0].at("tensor_core_share"), 0.25);
  EXPECT_EQ(ranks[0].at("amp_projected_speedup"), 1.5);
  EXPECT_EQ(ranks[0].at("amp_ceiling"), 2.0);
  EXPECT_TRUE(ranks[0].at("tf32_projected_speedup").is_null());
  ASSERT_EQ(ranks[0].at("top_findings").size(), 1u);
  EXPECT_EQ(ranks[0].at("top_findings")[0].at("rule"), "enable-amp");
  EXPECT_EQ(ranks[0].at("top_findings")[0].at("estimated_gain_ns"), 2 * kMs);
  // Rank 1 has no device row: its projection is unknown, and says why.
  EXPECT_TRUE(ranks[1].at("amp_projected_speedup").is_null());
  EXPECT_EQ(ranks[1].at("amp_note"), "the device is unknown: name it with --gpu NAME");
  // The merged finding names both ranks; both step 10 ms, so the job gains the smaller gain.
  const auto& recs = doc.at("recommendations");
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].at("rule"), "enable-amp");
  EXPECT_EQ(recs[0].at("ranks").dump(), "[0,1]");
  EXPECT_EQ(recs[0].at("estimated_gain_ns"), 2 * kMs);
}

// kernels.csv, layers.csv and ops.csv of the job are each rank's own files' rows after its rank.
TEST(JobReportTest, ARanksMemoryPeakShowsWithItsAmpProjectionOrIsUnknown) {
  analyzer::RankFindings f;
  EXPECT_EQ(memoryPeakText(f), "unknown");
  f.memory_peak_allocated_bytes = 3LL * 1024 * 1024 * 1024;
  EXPECT_EQ(memoryPeakText(f), "3.00 GiB");
  f.memory_amp_projected_peak_bytes = 1536LL * 1024 * 1024;
  EXPECT_EQ(memoryPeakText(f), "3.00 GiB (AMP 1.50 GiB)");
}

TEST(JobReportTest, TheJobsTablesAreEachRanksOwnRowsAfterItsRank) {
  const analyzer::JobAnalysis job = twoRanks();
  const analyzer::TraceSummary one = summaryOf(1.5, 0.25);
  const std::pair<std::string, std::string> tables[] = {{kernelsCsv(job.rank_results), kernelsCsv(one)},
                                                        {layersCsv(job.rank_results), layersCsv(one)},
                                                        {opsCsv(job.rank_results), opsCsv(one)}};
  for (const auto& [of_job, of_rank] : tables) {
    const auto job_rows = test::parseCsv(of_job);
    const auto rank_rows = test::parseCsv(of_rank);
    ASSERT_TRUE(job_rows && rank_rows) << of_job;
    ASSERT_EQ(job_rows->size(), 1 + 2 * (rank_rows->size() - 1)) << of_job;  // a header, each rank's rows
    EXPECT_EQ(job_rows->front().front(), "rank");
    std::vector<std::string> header(job_rows->front().begin() + 1, job_rows->front().end());
    EXPECT_EQ(header, rank_rows->front());
    const std::vector<std::string>& first = (*job_rows)[1];
    EXPECT_EQ(first.front(), "0");
    EXPECT_EQ(std::vector<std::string>(first.begin() + 1, first.end()), (*rank_rows)[1]) << of_job;
    EXPECT_EQ((*job_rows)[2].front(), "1");
  }
  EXPECT_NE(layersCsv(job.rank_results).find("N=27->32 (x8)"), std::string::npos);
}

TEST(JobReportTest, TheJobsReportWritesItsTablesAndSaysWhatEachRankFound) {
  const analyzer::JobAnalysis job = twoRanks();
  test::ScratchDir dir;
  ASSERT_TRUE(writeJobReport(job, dir.file("out"), 10));
  for (const char* name : {"report.html", "report.md", "report.json", "ranks.csv", "collectives.csv",
                           "recommendations.csv", "kernels.csv", "layers.csv", "ops.csv"}) {
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir.file("out")) / name)) << name;
  }
  const std::string md = test::readFile(dir.file("out/report.md"));
  EXPECT_NE(md.find("| 0 | 25.0% | 1.50x (ceiling 2.00x) | - | unknown | enable-amp 2.00 ms (20.0%) |"), std::string::npos) << md;
  EXPECT_NE(md.find("rank 1: AMP unknown: the device is unknown"), std::string::npos) << md;
  EXPECT_NE(md.find("model (ranks 0, 1)"), std::string::npos) << md;
  const std::string html = test::readFile(dir.file("out/report.html"));
  EXPECT_NE(html.find("What each rank's own analysis found"), std::string::npos);
  EXPECT_NE(html.find("model (ranks 0, 1)"), std::string::npos);
  const auto recs = test::parseCsv(test::readFile(dir.file("out/recommendations.csv")));
  ASSERT_TRUE(recs);
  ASSERT_EQ(recs->size(), 2u);
  EXPECT_EQ(recs->front().back(), "ranks");
  EXPECT_EQ((*recs)[1].back(), "0;1");
  const auto ranks = test::parseCsv(test::readFile(dir.file("out/ranks.csv")));
  ASSERT_TRUE(ranks);
  const std::vector<std::string>& header = ranks->front();
  const auto column = [&](const char* name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  ASSERT_LT(column("amp_projected_speedup"), header.size());
  EXPECT_EQ((*ranks)[1][column("tensor_core_share")], "0.2500");
  EXPECT_EQ((*ranks)[1][column("amp_projected_speedup")], "1.5000");
  EXPECT_EQ((*ranks)[2][column("amp_projected_speedup")], "");  // unknown
}

}  // namespace
}  // namespace ampscope::reports
