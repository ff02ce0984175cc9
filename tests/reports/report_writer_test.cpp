#include "reports/report_writer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "analyzer/correlator.h"
#include "reports/html_report.h"
#include "reports/markdown_report.h"
#include "reports/report_json.h"
#include "tests/analyzer/trainer_cpu_trace.h"
#include "tests/reports/csv_reader.h"
#include "tests/test_support.h"

namespace ampscope::reports {
namespace {

using analyzer::Recommendation;
using analyzer::Severity;

// A small summary whose names carry every character the writers must escape or quote.
analyzer::TraceSummary hostileSummary() {
  analyzer::TraceSummary s;
  s.format = "kineto";
  s.format_detail = "PyTorch profiler <test>";
  s.devices.push_back({0, "Tesla V100, \"SXM2\"", "7.0", 80, 10, 5'000'000});
  analyzer::GroupTime op;
  op.name = "aten::addmm<script>alert(1)</script>";
  op.phase = "forward";
  op.op_calls = 3;
  op.kernels = 3;
  op.gpu_time_ns = 4'000'000;
  op.tensor_core_time_ns = 1'000'000;
  analyzer::KernelTime tc{"volta_h884gemm_64x64, \"nn\"", 2, 1'000'000, {}};
  tc.verdict.tensor_core = true;
  tc.verdict.precision = analyzer::MathPrecision::kFp16;
  tc.verdict.rule_id = "volta-h884";
  analyzer::KernelTime simt{"volta_sgemm_128x64_nn\nsecond line", 1, 3'000'000, {}};
  simt.verdict.precision = analyzer::MathPrecision::kFp32Simt;
  op.kernel_times = {tc, simt};
  s.operators.push_back(op);
  // The analysis's kernel and layer tables of the same run (no layer names: rows are operators).
  for (const analyzer::KernelTime& k : op.kernel_times) {
    s.kernels.push_back({k.name, k.verdict, "evidence", k.calls, k.time_ns,
                         {{op.name, trace::Phase::kForward, k.calls, k.time_ns}}, op.name, 1});
  }
  std::swap(s.kernels[0], s.kernels[1]);  // heaviest first, as the analysis orders them
  s.layer_table.groups_operators = true;
  analyzer::LayerRow row;
  row.layer = op.name;
  row.pass = trace::Phase::kForward;
  row.ops = {op.name};
  row.calls = 3;
  row.kernels = 3;
  row.time_ns = op.gpu_time_ns;
  row.tensor_core_time_ns = op.tensor_core_time_ns;
  row.eligible = true;
  row.precision = analyzer::MathPrecision::kFp16;
  row.shapes = {"[[64, 33278], [33278, 1023]]"};
  row.misaligned_checks = {0};
  row.violation_count = 2;
  row.state = analyzer::LayerState::kMisaligned;
  s.layer_table.rows.push_back(row);
  analyzer::ShapeCheck check;
  check.op = op.name;
  check.shapes = "[[64, 33278], [33278, 1023]]";
  check.dims = {64, 33278, 1023, 1, false, 0};
  check.calls = 3;
  check.gpu_time_ns = 4'000'000;
  check.precision = analyzer::MathPrecision::kFp16;
  check.misaligned = {{"N", 33278, 33280}, {"K", 1023, 1024}};
  check.smallest_kernel_alignment = 1;
  s.shape_checks.push_back(check);
  s.iterations.source = "step ranges (ProfilerStep#N)";
  for (std::int64_t i = 0; i < 3; ++i) s.iterations.iterations.push_back({i, i * 10'000'000, (i + 1) * 10'000'000, i == 0});
  s.iterations.warmup_count = 1;
  s.iterations.steady_mean_ns = 10'000'000;
  s.data_pipeline.exposed_ns = {0, 2'000'000, 3'000'000};
  s.data_pipeline.speedup_if_hidden = 1.3;
  s.amdahl.parts = {{analyzer::StepPartKind::kEligibleFp32Math, 6'000'000, 0.6, 8.0},
                    {analyzer::StepPartKind::kIdle, 4'000'000, 0.4, 1.0}};
  s.amdahl.projected_speedup = 2.1;
  s.amdahl.ceiling = 2.5;
  return s;
}

std::vector<Recommendation> hostileRecommendations() {
  return {{"pad-dimensions", Severity::kMedium, "aten::addmm", "N=33278, K=1023 in align1 kernels",
           "pad N to 33280 and K to 1024 (e.g. \"vocab_size=33280\")", 400'000, 4.0},
          {"enable-amp", Severity::kHigh, "model", "3.00 ms of eligible work <FP32 SIMT>",
           "use torch.autocast(\"cuda\", dtype=torch.float16)", 3'000'000, 30.0}};
}

std::vector<std::string> headerOf(const std::string& path) {
  const auto table = test::parseCsv(test::readFile(path));
  return table && !table->empty() ? table->front() : std::vector<std::string>{};
}

TEST(ReportWriterTest, WritesEveryFileWithTheDocumentedCsvHeaders) {
  test::ScratchDir dir;
  const std::string out = dir.file("nested/report");  // writeReport creates missing parents
  const trace::Status status = writeReport(hostileSummary(), hostileRecommendations(), out);
  ASSERT_TRUE(status.ok()) << status.error().message;
  for (const char* name : {"recommendations.csv", "layers.csv", "kernels.csv", "iterations.csv", "report.json",
                           "report.md", "report.html"}) {
    EXPECT_TRUE(std::filesystem::is_regular_file(std::filesystem::path(out) / name)) << name;
  }
  using Header = std::vector<std::string>;
  EXPECT_EQ(headerOf(out + "/recommendations.csv"), (Header{"rule", "severity", "target", "evidence", "action",
                                                            "estimated_gain_ns", "estimated_gain_pct"}));
  EXPECT_EQ(headerOf(out + "/layers.csv"), (Header{"layer", "op", "phase", "calls", "gpu_time_ns",
                                                   "tensor_core_time_ns", "eligible", "precision", "shapes",
                                                   "violations"}));
  EXPECT_EQ(headerOf(out + "/kernels.csv"),
            (Header{"name", "calls", "total_ns", "tensor_cores", "precision", "rule", "confidence", "alignment"}));
  EXPECT_EQ(headerOf(out + "/iterations.csv"),
            (Header{"number", "start_ns", "duration_ns", "warmup", "data_exposed_ns"}));
}

TEST(ReportWriterTest, CsvRowsCarryQuotedNamesAndTheShapeViolations) {
  test::ScratchDir dir;
  ASSERT_TRUE(writeReport(hostileSummary(), hostileRecommendations(), dir.file("r")).ok());
  const auto kernels = test::parseCsv(test::readFile(dir.file("r/kernels.csv")));
  ASSERT_TRUE(kernels.has_value());
  ASSERT_EQ(kernels->size(), 3U);
  EXPECT_EQ((*kernels)[1][0], "volta_sgemm_128x64_nn\nsecond line");  // the larger total comes first
  EXPECT_EQ((*kernels)[2][0], "volta_h884gemm_64x64, \"nn\"");
  EXPECT_EQ((*kernels)[2][3], "true");
  const auto layers = test::parseCsv(test::readFile(dir.file("r/layers.csv")));
  ASSERT_TRUE(layers.has_value());
  ASSERT_EQ(layers->size(), 2U);  // no layer names: one row per operator
  EXPECT_EQ((*layers)[1][1], "aten::addmm<script>alert(1)</script>");
  EXPECT_EQ((*layers)[1][6], "yes");
  EXPECT_EQ((*layers)[1][9], "N=33278->33280, K=1023->1024 (x8)");
  const auto iterations = test::parseCsv(test::readFile(dir.file("r/iterations.csv")));
  ASSERT_TRUE(iterations.has_value());
  ASSERT_EQ(iterations->size(), 4U);
  EXPECT_EQ((*iterations)[3], (std::vector<std::string>{"2", "20000000", "10000000", "false", "3000000"}));
}

TEST(ReportWriterTest, HtmlIsSelfContainedEscapedAndHasCharts) {
  const std::string html = htmlReport(hostileSummary(), hostileRecommendations());
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  // No attribute or stylesheet that would fetch anything, protocol-relative URLs included.
  const std::regex remote(R"((src|href)\s*=\s*["']?\s*(https?:)?//|url\(\s*["']?(https?:)?//|@import)",
                          std::regex::icase);
  EXPECT_FALSE(std::regex_search(html, remote));
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("eligible math in FP32 on CUDA cores"), std::string::npos);
  EXPECT_NE(html.find("N=33278-&gt;33280, K=1023-&gt;1024 (x8)"), std::string::npos);
  // Recommendations read largest gain first even when given in another order.
  EXPECT_LT(html.find("enable-amp"), html.find("pad-dimensions"));
}

TEST(ReportWriterTest, JsonKeepsTheAnalyzeKeysAndAddsRecommendations) {
  test::ScratchDir dir;
  ASSERT_TRUE(writeReport(hostileSummary(), hostileRecommendations(), dir.file("r")).ok());
  const nlohmann::json doc = nlohmann::json::parse(test::readFile(dir.file("r/report.json")));
  for (const char* key : {"format", "devices", "kernels", "tensor_cores", "shape_checks", "iterations",
                          "data_pipeline", "amdahl", "top_operators", "top_layers", "import_stats", "layers",
                          "kernels_by_name", "recommendations"}) {
    EXPECT_TRUE(doc.contains(key)) << key;
  }
  ASSERT_EQ(doc["recommendations"].size(), 2U);
  EXPECT_EQ(doc["recommendations"][1]["severity"], "high");
  EXPECT_EQ(doc["iterations"]["steady_mean_ns"], 10'000'000);
  EXPECT_EQ(doc["layers"][0]["violations"], "N=33278->33280, K=1023->1024 (x8)");
}

analyzer::TraceSummary trainerCpuSummary() {
  trace::Trace trace = test::trainerCpuTrace();
  const analyzer::CorrelationCounts counts = analyzer::correlate(trace);
  return analyzer::summarizeTrace(trace, counts);
}

TEST(ReportWriterTest, CpuProfileReportsSayWhereItRanAndMakeNoTensorCoreClaims) {
  const analyzer::TraceSummary s = trainerCpuSummary();
  const std::vector<Recommendation> recs = analyzer::recommend(s);
  const std::string md = markdownReport(s, recs);
  for (const char* expected : {"| Recorded on | the CPU (the trainer's CPU backend)",
                               "| Tensor Core time | not applicable: recorded on the CPU |",
                               "| Lost records | the collector lost 2 records: NVTX ranges still open at exit |",
                               "## AMP numerics", "| Loss scale | 65536 at step 0, 32768 at step 4;",
                               "| Skipped steps | 1 of 6: 3 |", "| fc1.weight | 470400 | 2.500% | 5.000% |",
                               "## Layers by pass", "| fc1 | backward | 6 | 7.80 ms | 1.30 ms |",
                               "| cpu gemm float16 64x100x784 NT | 6 | 4.80 ms | host (CPU) | FP16 |"}) {
    EXPECT_NE(md.find(expected), std::string::npos) << "missing: " << expected << "\n" << md;
  }
  EXPECT_EQ(md.find("| AMP projection |"), std::string::npos);
  const std::string html = htmlReport(s, recs);
  EXPECT_NE(html.find("Recorded on the CPU (the trainer&#39;s CPU backend)"), std::string::npos) << html;
  EXPECT_NE(html.find("The collector lost 2 records: NVTX ranges still open at exit."), std::string::npos);
  EXPECT_NE(html.find("<h2>AMP numerics</h2>"), std::string::npos);
  EXPECT_NE(html.find("<h2>Layers by pass</h2>"), std::string::npos);
  EXPECT_EQ(html.find("Tensor Core share per"), std::string::npos);
  EXPECT_EQ(html.find("With AMP"), std::string::npos);
  // Nor a note on how the absent AMP bars would have been made.
  EXPECT_EQ(html.find("row of the device table"), std::string::npos);
  EXPECT_NE(html.find("No AMP projection for this run"), std::string::npos);
  EXPECT_NE(html.find("Not split: recorded on the CPU"), std::string::npos);

  test::ScratchDir dir;
  ASSERT_TRUE(writeReport(s, recs, dir.file("r")).ok());
  const auto kernels = test::parseCsv(test::readFile(dir.file("r/kernels.csv")));
  ASSERT_TRUE(kernels.has_value());
  ASSERT_GT(kernels->size(), 1U);
  for (std::size_t row = 1; row < kernels->size(); ++row) {
    EXPECT_EQ((*kernels)[row][3], "") << (*kernels)[row][0];  // no Tensor Core verdict for host ops
  }
}

TEST(ReportWriterTest, FailsWithTheNameOfAPathThatIsNotADirectory) {
  test::ScratchDir dir;
  const std::string blocker = dir.write("not_a_dir", "x");
  const trace::Status status = writeReport(hostileSummary(), {}, blocker);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find(blocker), std::string::npos) << status.error().message;
}

}  // namespace
}  // namespace ampscope::reports

namespace ampscope::reports {
namespace {

TEST(ReportJsonTest, InvalidUtf8InNamesBecomesAReplacementCharacterNotAFailure) {
  analyzer::TraceSummary s;
  analyzer::GroupTime op;
  op.name = std::string("kernel\xF7\xFF name");  // bytes from a corrupt trace file
  op.gpu_time_ns = 10;
  s.operators.push_back(op);
  const std::string text = formatJsonDocument(summaryToJsonDocument(s, {}));
  EXPECT_NE(text.find("kernel\xEF\xBF\xBD"), std::string::npos);  // U+FFFD
  EXPECT_TRUE(nlohmann::json::accept(text));
}

}  // namespace
}  // namespace ampscope::reports
