#include "reports/report_writer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <regex>
#include <string_view>

#include "analyzer/core/device_table.h"
#include "analyzer/correlate/correlator.h"
#include "reports/html_report.h"
#include "reports/markdown_report.h"
#include "reports/report_file.h"
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
  tc.verdict.tensor_core = analyzer::TensorCoreUse::kYes;
  tc.verdict.precision = analyzer::MathPrecision::kFp16;
  tc.verdict.rule_id = "volta-h884";
  analyzer::KernelTime simt{"volta_sgemm_128x64_nn\nsecond line", 1, 3'000'000, {}};
  simt.verdict.precision = analyzer::MathPrecision::kFp32Simt;
  op.kernel_times = {tc, simt};
  s.operators.push_back(op);
  // The analysis's kernel and layer tables of the same run (no layer names: rows are operators).
  for (const analyzer::KernelTime& k : op.kernel_times) {
    s.kernels.push_back({k.name, "", k.verdict, "evidence", k.calls, k.time_ns,
                         {{op.name, trace::Phase::kForward, k.calls, k.time_ns}}, op.name, 1, {}, std::nullopt, 0});
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
  // The per-op model's figures: FLOPs and a rate known, bytes not.
  row.performance.flops = 3.0e9;
  row.performance.work_known_share = 1.0;
  row.performance.achieved_tflops = 0.75;
  row.performance.peak_tflops = 125.0;
  row.performance.bound = analyzer::RooflineBound::kCompute;
  row.performance.predicted_amp_ns = 2'500'000;
  s.layer_table.rows.push_back(row);
  analyzer::ShapeCheck check;
  check.op = op.name;
  check.shapes = "[[64, 33278], [33278, 1023]]";
  check.strides = "[[33278, 1], [\"<script>\", 1]]";  // recorded text, escaped like the rest
  check.dims = {64, 33278, 1023, 1, false, 0, analyzer::LeadingDims{false, true, true}};
  check.calls = 3;
  check.gpu_time_ns = 4'000'000;
  check.precision = analyzer::MathPrecision::kFp16;
  check.misaligned = {{"N", 33278, 33280}, {"K", 1023, 1024}};
  check.smallest_kernel_alignment = 1;
  s.shape_checks.push_back(check);
  s.iterations.source = "step ranges (ProfilerStep#N)";
  // On the host each step took 6 ms of its 10.
  for (std::int64_t i = 0; i < 3; ++i) {
    s.iterations.iterations.push_back({.number = i, .start_ns = i * 10'000'000, .end_ns = (i + 1) * 10'000'000,
                                       .warmup = i == 0, .host_start_ns = i * 10'000'000,
                                       .host_end_ns = i * 10'000'000 + 6'000'000});
  }
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
           "pad N to 33280 and K to 1024 (e.g. \"vocab_size=33280\")", 400'000, 4.0, {"lm_head aten::addmm <shapes> as N"}, {"lm_head"}},
          {"enable-amp", Severity::kHigh, "model", "3.00 ms of eligible work <FP32 SIMT>",
           "use torch.autocast(\"cuda\", dtype=torch.float16)", 3'000'000, 30.0, {}, {}}};
}

// Where a column is in a CSV's header (its size when absent).
std::size_t columnOf(const std::vector<std::string>& header, std::string_view name) {
  return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
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
  for (const char* name : {"recommendations.csv", "layers.csv", "kernels.csv", "ops.csv", "iterations.csv", "collectives.csv",
                           "counters.csv", "report.json", "report.md", "report.html"}) {
    EXPECT_TRUE(std::filesystem::is_regular_file(std::filesystem::path(out) / name)) << name;
  }
  using Header = std::vector<std::string>;
  EXPECT_EQ(headerOf(out + "/collectives.csv"), (Header{"name", "kind", "element", "group_size", "calls", "gpu_time_ns", "calls_with_bytes",
                                                        "bytes", "algbw_gbps", "busbw_gbps"}));
  EXPECT_EQ(headerOf(out + "/recommendations.csv"), (Header{"rule", "severity", "target", "evidence", "action",
                                                            "estimated_gain_ns", "estimated_gain_pct"}));
  EXPECT_EQ(headerOf(out + "/layers.csv"),
            (Header{"layer", "op", "phase", "calls", "gpu_time_ns", "tensor_core_time_ns", "eligible", "precision",
                    "shapes", "violations", "flops", "bytes", "achieved_tflops", "peak_tflops", "bound",
                    "predicted_amp_ns", "what_if_fp32_ns", "what_if_amp_ns", "what_if_padding_cost_ns",
                    "measured_tensor_active", "measured_tensor_ns"}));
  EXPECT_EQ(headerOf(out + "/kernels.csv"),
            (Header{"name", "calls", "gpu_time_ns", "tensor_cores", "precision", "rule", "confidence", "alignment",
                    "flops", "bytes", "achieved_tflops", "peak_tflops", "bound", "predicted_amp_ns", "verdict",
                    "measured_tensor_active", "measured_tensor_ns"}));
  // ops.csv: the fields of report.json's ops[], the GEMM's dimensions flattened.
  EXPECT_EQ(headerOf(out + "/ops.csv"),
            (Header{"op", "shapes", "arguments", "layer", "phase", "class", "calls", "kernels", "gpu_time_ns",
                    "precision", "flops_per_call", "bytes_per_call", "work_basis", "work_note", "gemm_m", "gemm_n",
                    "gemm_k", "gemm_batch", "achieved_tflops", "achieved_gbs", "peak_tflops", "intensity", "bound",
                    "rate_note", "amp", "predicted_amp_ns", "amp_speedup", "tf32_speedup", "amp_note"}));
  EXPECT_EQ(headerOf(out + "/iterations.csv"),
            (Header{"number", "start_ns", "duration_ns", "host_start_ns", "host_duration_ns", "warmup", "data_exposed_ns"}));
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
  const std::size_t verdict = columnOf((*kernels)[0], "verdict");
  EXPECT_EQ((*kernels)[2][verdict], "tensor_core");
  const auto layers = test::parseCsv(test::readFile(dir.file("r/layers.csv")));
  ASSERT_TRUE(layers.has_value());
  ASSERT_EQ(layers->size(), 2U);  // no layer names: one row per operator
  EXPECT_EQ((*layers)[1][1], "aten::addmm<script>alert(1)</script>");
  EXPECT_EQ((*layers)[1][6], "true");  // a boolean, as every CSV writes one
  EXPECT_EQ((*layers)[1][9], "N=33278->33280, K=1023->1024 (x8)");
  // The model's figures: a known value as a number, an unknown one (bytes, no what-if) empty; no
  // counters measured it: the measured share and its time empty.
  EXPECT_EQ((std::vector<std::string>((*layers)[1].begin() + 10, (*layers)[1].end())),
            (std::vector<std::string>{"3000000000", "", "0.7500", "125.0000", "compute", "2500000", "", "", "", "",
                                      ""}));
  // The kernels carry no figures in this summary: every model number is empty, not 0, and the
  // bound, a word, says "unknown".
  for (std::size_t i = 8; i < verdict; ++i) {
    EXPECT_EQ((*kernels)[1][i], (*kernels)[0][i] == "bound" ? "unknown" : "") << (*kernels)[0][i];
  }
  const auto iterations = test::parseCsv(test::readFile(dir.file("r/iterations.csv")));
  ASSERT_TRUE(iterations.has_value());
  ASSERT_EQ(iterations->size(), 4U);
  EXPECT_EQ((*iterations)[3],
            (std::vector<std::string>{"2", "20000000", "10000000", "20000000", "6000000", "false", "3000000"}));
}

// One encoding per value in every CSV (docs/reports.md, "Encoding"): a word the analysis does not
// know is "unknown", a number it does not know an empty cell, a boolean true or false.
TEST(ReportWriterTest, EveryCsvWritesUnknownWordsAsUnknownAndUnknownNumbersEmpty) {
  analyzer::TraceSummary s = hostileSummary();
  analyzer::KernelRow unplaced = s.kernels.front();
  unplaced.name = "my_matrix_kernel";
  unplaced.verdict = {};
  unplaced.verdict.tensor_core = analyzer::TensorCoreUse::kUnknown;
  s.kernels.push_back(unplaced);
  analyzer::LayerRow layer = s.layer_table.rows.front();
  layer.layer = "aten::gather";
  layer.eligible = false;
  layer.precision = analyzer::MathPrecision::kUnknown;
  layer.performance = {};
  s.layer_table.rows.push_back(layer);
  analyzer::OpRow op;
  op.op = "aten::gather";
  op.calls = 1;
  op.time_ns = 5;
  s.op_performance.rows.push_back(op);
  test::ScratchDir dir;
  ASSERT_TRUE(writeReport(s, {}, dir.file("r")).ok());
  const auto cellOf = [&](const char* file, std::size_t row, const char* column) {
    const auto table = test::parseCsv(test::readFile(dir.file(std::string("r/") + file)));
    EXPECT_TRUE(table && row < table->size()) << file;
    if (!table || row >= table->size()) return std::string("(no row)");
    const std::vector<std::string>& header = table->front();
    const auto at = std::find(header.begin(), header.end(), column);
    EXPECT_NE(at, header.end()) << file << ": " << column;
    return at == header.end() ? std::string("(no column)") : (*table)[row][static_cast<std::size_t>(at - header.begin())];
  };
  // kernels.csv, the unknown verdict last.
  EXPECT_EQ(cellOf("kernels.csv", 3, "name"), "my_matrix_kernel");
  EXPECT_EQ(cellOf("kernels.csv", 3, "tensor_cores"), "");
  EXPECT_EQ(cellOf("kernels.csv", 3, "verdict"), "unknown");
  EXPECT_EQ(cellOf("kernels.csv", 3, "precision"), "unknown");
  EXPECT_EQ(cellOf("kernels.csv", 3, "bound"), "unknown");
  EXPECT_EQ(cellOf("kernels.csv", 3, "achieved_tflops"), "");
  EXPECT_EQ(cellOf("kernels.csv", 1, "tensor_cores"), "false");
  EXPECT_EQ(cellOf("kernels.csv", 1, "verdict"), "not_tensor_core");
  // layers.csv: the same words for the same unknowns.
  EXPECT_EQ(cellOf("layers.csv", 2, "layer"), "");
  EXPECT_EQ(cellOf("layers.csv", 2, "op"), "aten::gather");
  EXPECT_EQ(cellOf("layers.csv", 2, "precision"), "unknown");
  EXPECT_EQ(cellOf("layers.csv", 2, "bound"), "unknown");
  EXPECT_EQ(cellOf("layers.csv", 2, "eligible"), "false");
  EXPECT_EQ(cellOf("layers.csv", 2, "peak_tflops"), "");
  EXPECT_EQ(cellOf("layers.csv", 2, "gpu_time_ns"), "4000000");
  // ops.csv.
  EXPECT_EQ(cellOf("ops.csv", 1, "precision"), "unknown");
  EXPECT_EQ(cellOf("ops.csv", 1, "bound"), "unknown");
  EXPECT_EQ(cellOf("ops.csv", 1, "work_basis"), "unknown");
  EXPECT_EQ(cellOf("ops.csv", 1, "flops_per_call"), "");
  EXPECT_EQ(cellOf("ops.csv", 1, "gpu_time_ns"), "5");
}

TEST(ReportWriterTest, AHostThatRanAheadIsSaidBesideTheSteadyStep) {
  analyzer::TraceSummary s = hostileSummary();
  s.iterations.steady_mean_ns = 10'000'000;
  s.iterations.steady_host_mean_ns = 6'000'000;
  const std::string note = "the host ran ahead of the GPU: its step ranges average 6.00 ms";
  EXPECT_EQ(hostAheadNote(s.iterations), note);
  EXPECT_NE(markdownReport(s, {}).find(note), std::string::npos);
  EXPECT_NE(htmlReport(s, {}).find(note), std::string::npos);
  // Within 5%: the GPU kept up.
  s.iterations.steady_host_mean_ns = 9'600'000;
  EXPECT_EQ(hostAheadNote(s.iterations), "");
  EXPECT_EQ(markdownReport(s, {}).find("ran ahead"), std::string::npos);
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
  // The recorded strides and the leading dimensions they give, under the shapes.
  EXPECT_NE(html.find("strides [[33278, 1], [&quot;&lt;script&gt;&quot;, 1]]; leading N, K"), std::string::npos);
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
                               "| cpu gemm float16 64x100x784 NT | 6 | 4.80 ms | host | FP16 |"}) {
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
  // Host ops and host time, never GPU words, and no SM count the CPU does not have.
  for (const char* gpu_word : {">GPU time<", ">Kernel time<", ">Kernels<", ">Kernel align<", "overlapped the GPU",
                               R"(<td class="n">0</td><td class="n">)"}) {
    EXPECT_EQ(html.find(gpu_word), std::string::npos) << gpu_word;
  }
  EXPECT_NE(html.find(">Host ops<"), std::string::npos);
  // An operator's Tensor Core share is not applicable to host ops, not 0%.
  EXPECT_NE(html.find(R"(<td class="n">n/a</td><td></td><td></td></tr>)"), std::string::npos);
  EXPECT_EQ(html.find(R"(<td class="n">0.0%</td><td></td><td></td></tr>)"), std::string::npos);
  EXPECT_EQ(md.find("| GPU time |"), std::string::npos);
  // Findings without a gain (a CPU run's padding) are notes, apart from the recommendations.
  ASSERT_TRUE(std::any_of(recs.begin(), recs.end(), analyzer::isNote));  // fc1's width of 100, padded on a CPU run
  EXPECT_NE(html.find("Notes (no gain estimated)"), std::string::npos);
  EXPECT_NE(md.find("Notes (no gain estimated)"), std::string::npos);
  for (const Recommendation& r : recs) {
    if (analyzer::isNote(r)) {
      EXPECT_EQ(md.find("| " + r.rule + " |"), std::string::npos) << r.rule;
    }
  }

  test::ScratchDir dir;
  ASSERT_TRUE(writeReport(s, recs, dir.file("r")).ok());
  const auto kernels = test::parseCsv(test::readFile(dir.file("r/kernels.csv")));
  ASSERT_TRUE(kernels.has_value());
  ASSERT_GT(kernels->size(), 1U);
  for (std::size_t row = 1; row < kernels->size(); ++row) {
    EXPECT_EQ((*kernels)[row][3], "") << (*kernels)[row][0];  // no Tensor Core to use for host ops
    EXPECT_EQ((*kernels)[row][columnOf((*kernels)[0], "verdict")], "host") << (*kernels)[row][0];
  }
}

// A summary with what the hostile one lacks: a projection over a window without steps, the
// device row and why, a model FLOP utilisation and an op table whose rows cannot be placed.
analyzer::TraceSummary windowSummary() {
  analyzer::TraceSummary s = hostileSummary();
  s.iterations = {};
  s.iterations.source = "no step ranges and no repeating range";
  s.amdahl.per_step = false;
  s.amdahl.window_ns = 12'300'000;
  s.device.spec = analyzer::rowSpec(analyzer::findDevice("V100 SXM2"));
  s.device.basis = analyzer::DeviceBasis::kTraceName;
  s.device.reason = "the trace names \"Tesla V100, SXM2\"";
  s.op_performance.device = s.device;
  s.op_performance.flops_per_step = 2.5e12;
  s.op_performance.model_flop_utilisation = 0.0123;
  s.op_performance.utilisation_precision = analyzer::MathPrecision::kFp16;
  s.op_performance.per_step = false;
  s.op_performance.window_ns = 12'300'000;
  s.op_performance.matrix_time_with_known_flops = 0.8;
  analyzer::OpRow op;
  op.op = "aten::addmm";
  op.time_ns = 4'000'000;
  op.calls = 3;
  s.op_performance.rows.push_back(op);  // work unknown: no rate, no intensity
  return s;
}

TEST(ReportWriterTest, WindowWithoutStepsIsSaidInsteadOfPerStep) {
  const analyzer::TraceSummary s = windowSummary();
  const std::string html = htmlReport(s, {});
  EXPECT_NE(html.find("over the trace&#39;s 12.30 ms window (no steps found)"), std::string::npos) << html;
  EXPECT_NE(html.find("Where the trace's 12.30 ms window of GPU work goes"), std::string::npos);
  EXPECT_EQ(html.find("Where the steady step goes"), std::string::npos);
  EXPECT_NE(html.find("Current window"), std::string::npos);
  // The device card: the row and why; the model FLOP utilisation with its coverage.
  EXPECT_NE(html.find(R"(<div class="k">Device</div><div class="v">V100 SXM2</div>)"), std::string::npos);
  EXPECT_NE(html.find("the trace names &quot;Tesla V100, SXM2&quot;"), std::string::npos);
  EXPECT_NE(html.find(R"(<div class="v">1.2%</div>)"), std::string::npos);
  EXPECT_NE(html.find("FLOPs known for 80.0% of matrix time"), std::string::npos);
  // No op has a rate and an intensity: one line, no empty chart.
  EXPECT_NE(html.find("No op has both an achieved rate and an arithmetic intensity"), std::string::npos);
  EXPECT_EQ(html.find(R"(class="chart roofline")"), std::string::npos);

  const std::string md = markdownReport(s, {});
  for (const char* expected : {"## Window breakdown", "over the trace's 12.30 ms window (no steps found)",
                               "| Time in window |", "| Device row | V100 SXM2: the trace names \"Tesla V100, SXM2\" |",
                               "| Model FLOP utilisation | 1.2% of the FP16 Tensor Core peak (2.50 TFLOP over"}) {
    EXPECT_NE(md.find(expected), std::string::npos) << "missing: " << expected << "\n" << md;
  }
  EXPECT_EQ(md.find("## Step breakdown"), std::string::npos);
}

TEST(ReportWriterTest, UnknownDeviceSaysHowToNameIt) {
  analyzer::TraceSummary s = hostileSummary();
  s.device.reason = "the trace's GPU \"Tesla V100, \\\"SXM2\\\"\" is not in the table; pass --gpu NAME";
  const std::string html = htmlReport(s, {});
  EXPECT_NE(html.find("device unknown — name it with --gpu NAME (e.g. --gpu H100-SXM)"), std::string::npos);
  const std::string md = markdownReport(s, {});
  EXPECT_NE(md.find("| Device row | device unknown — name it with --gpu NAME (e.g. --gpu H100-SXM) |"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| Model FLOP utilisation | unknown:"), std::string::npos);
}

TEST(ReportWriterTest, ChartsWhoseBarsWouldAllBeZeroBecomeOneLine) {
  analyzer::TraceSummary s = hostileSummary();
  s.layer_table.rows[0].tensor_core_time_ns = 0;
  s.tensor_cores.time_ns = 0;
  for (analyzer::StepPart& part : s.amdahl.parts) part.ns_per_step = 0;
  s.amdahl.window_ns = 0;
  s.iterations.steady_mean_ns = 0;
  const std::string html = htmlReport(s, {});
  EXPECT_NE(html.find("every bar would read 0%"), std::string::npos) << html;
  EXPECT_NE(html.find("Every part is 0 ns: nothing to split."), std::string::npos);
  EXPECT_NE(html.find("The projected span is 0 ns: every bar would be 0"), std::string::npos);
  EXPECT_EQ(html.find("<svg"), std::string::npos);  // not one empty chart
}

bool emptyOrNumber(const std::string& cell) {
  if (cell.empty()) return true;
  char* end = nullptr;
  std::strtod(cell.c_str(), &end);
  return end == cell.c_str() + cell.size();
}

TEST(ReportWriterTest, CpuRunAnswersWithTheWhatIfEstimatesOnTheDefaultGpu) {
  const analyzer::TraceSummary s = trainerCpuSummary();
  ASSERT_NE(s.what_if.device.spec, nullptr);
  const std::string device = s.what_if.device.spec->name;
  const std::string html = htmlReport(s, {});
  const std::size_t section = html.find("<h2>What-if on " + device + " (model estimates)</h2>");
  ASSERT_NE(section, std::string::npos) << html;
  // The estimates stand in their own section, after the measured step and projection.
  EXPECT_GT(section, html.find("<h2>Projected step time</h2>"));
  const std::string what_if = html.substr(section, html.find("</section>", section) - section);
  EXPECT_NE(what_if.find("model estimates on " + device), std::string::npos);  // the analysis's note
  EXPECT_NE(what_if.find("FP32 (est.)"), std::string::npos);
  // Every layer row of the table carries its estimates: fc1 forward, with numbers.
  const std::regex fc1(R"(<td class="mono">fc1</td><td>forward</td><td class="n est">[0-9.]+ (ns|us|ms)</td><td class="n est">[0-9.]+ (ns|us|ms)</td>)");
  EXPECT_TRUE(std::regex_search(what_if, fc1)) << what_if;
  EXPECT_NE(what_if.find("<td>Step</td><td>all ops with known work</td>"), std::string::npos);
  // fc1's 100 outputs are off the multiple of 8.
  EXPECT_NE(what_if.find("Shapes off the multiple of 8"), std::string::npos);
  EXPECT_NE(what_if.find("100-&gt;104"), std::string::npos) << what_if;
  // The AMP card answers with the what-if estimate instead of n/a.
  EXPECT_NE(html.find(R"(<div class="k">AMP what-if (estimate)</div>)"), std::string::npos);
  EXPECT_NE(html.find(R"(<div class="v">CPU run (no GPU)</div><div class="d">recorded on the CPU; what-if on )"),
            std::string::npos);
  // No GPU rates on the CPU: the roofline is one line.
  EXPECT_NE(html.find("No op has both an achieved rate and an arithmetic intensity: recorded on the CPU"),
            std::string::npos);

  const std::string md = markdownReport(s, {});
  EXPECT_NE(md.find("## What-if on " + device + " (model estimates)"), std::string::npos) << md;
  EXPECT_NE(md.find("| AMP what-if (model estimate) |"), std::string::npos);
  EXPECT_NE(md.find("| Device row | none: recorded on the CPU; what-if on " + device), std::string::npos);
  EXPECT_NE(md.find("| fc1 | forward | "), std::string::npos);

  test::ScratchDir dir;
  ASSERT_TRUE(writeReport(s, {}, dir.file("r")).ok());
  const auto layers = test::parseCsv(test::readFile(dir.file("r/layers.csv")));
  ASSERT_TRUE(layers.has_value());
  const std::vector<std::string>& header = layers->front();
  const auto column = [&](const char* name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  bool estimated = false;
  for (std::size_t i = 1; i < layers->size(); ++i) {
    const std::vector<std::string>& row = (*layers)[i];
    for (const char* name : {"flops", "bytes", "achieved_tflops", "peak_tflops", "predicted_amp_ns", "what_if_fp32_ns",
                             "what_if_amp_ns", "what_if_padding_cost_ns"}) {
      EXPECT_TRUE(emptyOrNumber(row[column(name)])) << name << ": " << row[column(name)];
    }
    EXPECT_EQ(row[column("achieved_tflops")], "") << "no GPU rate for a host op";
    if (row[0] == "fc1" && row[2] == "forward") {
      EXPECT_NE(row[column("what_if_fp32_ns")], "");
      EXPECT_NE(row[column("what_if_amp_ns")], "");
      EXPECT_NE(row[column("flops")], "");
      estimated = true;
    }
  }
  EXPECT_TRUE(estimated) << "no fc1 forward row";
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

// Peaks derived for a GPU the table lacks: the basis says so, an unknown bandwidth is null (not
// 0 GB/s), and the reports call the device derived, not a row.
TEST(ReportJsonTest, DerivedDeviceCarriesItsBasisAndAnUnknownBandwidthAsNull) {
  analyzer::TraceSummary s;
  analyzer::DeviceSpec derived;
  derived.name = "GeForce RTX 2080 SUPER";
  derived.sm_count = 48;
  derived.fp32_tflops = 10.9;
  derived.fp16_tflops = 43.5;
  s.device.spec = std::make_shared<const analyzer::DeviceSpec>(derived);
  s.device.basis = analyzer::DeviceBasis::kDerived;
  s.device.reason = "the trace names \"NVIDIA GeForce RTX 2080 SUPER\", which the table lacks; derived: ...";
  const nlohmann::ordered_json doc = summaryToJsonDocument(s, {});
  const nlohmann::ordered_json& device = doc.at("device");
  EXPECT_EQ(device.at("row"), "GeForce RTX 2080 SUPER");
  EXPECT_EQ(device.at("basis"), "derived");
  EXPECT_TRUE(device.at("memory_gbs").is_null());
  EXPECT_EQ(device.at("sm_count"), 48);
  EXPECT_EQ(device.at("peak_tflops").at("fp16"), 43.5);
  EXPECT_NE(htmlReport(s, {}).find("GeForce RTX 2080 SUPER (derived peaks)"), std::string::npos);
  EXPECT_NE(markdownReport(s, {}).find("| Device row | GeForce RTX 2080 SUPER (derived peaks): the trace names"),
            std::string::npos);
}

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
