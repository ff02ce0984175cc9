// The whole report from a real trace: every file is written, every CSV parses, and the numbers
// agree with the summary they came from.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "analyzer/correlate/correlator.h"
#include "analyzer/import/trace_importer.h"
#include "analyzer/summary/trace_summary.h"
#include "reports/html_report.h"
#include "reports/markdown_report.h"
#include "reports/report_writer.h"
#include "tests/reports/csv_reader.h"
#include "tests/test_support.h"

namespace ampscope::reports {
namespace {

bool emptyOrNumber(const std::string& cell) {
  if (cell.empty()) return true;
  char* end = nullptr;
  std::strtod(cell.c_str(), &end);
  return end == cell.c_str() + cell.size();
}

TEST(SharedTraceReportTest, WorkersZeroResnetReportHasSixIterationsAndParseableCsvs) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  auto trace = analyzer::import::importTrace(path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const analyzer::CorrelationCounts counts = analyzer::correlate(*trace);
  const analyzer::TraceSummary summary = analyzer::summarizeTrace(*trace, counts);
  // recommend() is exercised by the analyzer's tests; here one hand-made row is enough to show
  // it reaches every file.
  const std::vector<analyzer::Recommendation> recommendations = {
      {"hide-input-pipeline", analyzer::Severity::kHigh, "model", "exposed, per step", "num_workers=4", 1'000, 1.0, {}, {}}};

  test::ScratchDir dir;
  const trace::Status status = writeReport(summary, recommendations, dir.file("report"));
  ASSERT_TRUE(status.ok()) << status.error().message;

  std::map<std::string, test::CsvTable> tables;
  for (const char* name : {"recommendations.csv", "layers.csv", "kernels.csv", "ops.csv", "iterations.csv", "collectives.csv"}) {
    const auto table = test::parseCsv(test::readFile(dir.file(std::string("report/") + name)));
    ASSERT_TRUE(table.has_value()) << name << " is not RFC 4180";
    ASSERT_FALSE(table->empty()) << name;
    for (const auto& row : *table) ASSERT_EQ(row.size(), table->front().size()) << name;
    tables[name] = *table;
  }
  EXPECT_EQ(tables["iterations.csv"].size(), 1U + 6U);  // header + the trace's six ProfilerSteps
  EXPECT_EQ(tables["recommendations.csv"].size(), 2U);
  EXPECT_GT(tables["kernels.csv"].size(), 10U);
  EXPECT_GT(tables["layers.csv"].size(), 1U);
  // V100 runs this FP32 model on CUDA cores only: no kernel may claim Tensor Cores.
  for (std::size_t i = 1; i < tables["kernels.csv"].size(); ++i) {
    EXPECT_EQ(tables["kernels.csv"][i][3], "false") << tables["kernels.csv"][i][0];
  }

  const nlohmann::json doc = nlohmann::json::parse(test::readFile(dir.file("report/report.json")));
  EXPECT_EQ(doc["iterations"]["count"], 6);
  EXPECT_EQ(doc["layers"].size() + 1, tables["layers.csv"].size());
  const std::string html = test::readFile(dir.file("report/report.html"));
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_FALSE(test::readFile(dir.file("report/report.md")).empty());

  // The model's columns hold a number or nothing ("not known"), and some rows know them.
  const std::map<std::string, std::vector<std::string>> numeric = {
      {"layers.csv", {"flops", "bytes", "achieved_tflops", "peak_tflops", "predicted_amp_ns", "what_if_fp32_ns",
                      "what_if_amp_ns", "what_if_padding_cost_ns"}},
      {"kernels.csv", {"flops", "bytes", "achieved_tflops", "peak_tflops", "predicted_amp_ns"}},
      {"ops.csv", {"calls", "gpu_time_ns", "flops_per_call", "bytes_per_call", "gemm_m", "achieved_tflops",
                   "achieved_gbs", "peak_tflops", "intensity", "predicted_amp_ns", "amp_speedup"}}};
  for (const auto& [name, columns] : numeric) {
    const test::CsvTable& table = tables[name];
    for (const std::string& column : columns) {
      const auto at = std::find(table.front().begin(), table.front().end(), column);
      ASSERT_NE(at, table.front().end()) << name << " has no column " << column;
      const auto index = static_cast<std::size_t>(at - table.front().begin());
      std::size_t known = 0;
      for (std::size_t i = 1; i < table.size(); ++i) {
        const std::string& cell = table[i][index];
        EXPECT_TRUE(emptyOrNumber(cell)) << name << " " << column << " row " << i << ": " << cell;
        known += cell.empty() ? 0 : 1;
      }
      // A V100 run without a what-if device has no what-if estimate; everything else is known somewhere.
      if (column.starts_with("what_if")) {
        EXPECT_EQ(known, 0U) << name << " " << column;
      } else {
        EXPECT_GT(known, 0U) << name << " " << column;
      }
    }
    const auto bound = std::find(table.front().begin(), table.front().end(), "bound");
    ASSERT_NE(bound, table.front().end()) << name;
    for (std::size_t i = 1; i < table.size(); ++i) {
      const std::string& cell = table[i][static_cast<std::size_t>(bound - table.front().begin())];
      EXPECT_TRUE(cell == "unknown" || cell == "compute" || cell == "memory" || cell == "latency") << name << ": " << cell;
    }
  }
  EXPECT_EQ(tables["ops.csv"].size(), summary.op_performance.rows.size() + 1);

  // The roofline: one dot per op with a rate and an intensity, under the V100 row's roofs.
  EXPECT_NE(html.find("<h2>Roofline on the V100"), std::string::npos);
  std::size_t dots = 0;
  for (std::size_t at = html.find(R"(class="dot")"); at != std::string::npos; at = html.find(R"(class="dot")", at + 1)) ++dots;
  EXPECT_GE(dots, 1U);
  EXPECT_NE(html.find("FP32-SIMT 15.7 TFLOP/s"), std::string::npos) << "the FP32 roof";
  EXPECT_EQ(html.find("No op has both an achieved rate"), std::string::npos);
  // This FP32 run used no Tensor Cores: the share chart is one line, not a chart of empty bars.
  EXPECT_NE(html.find("every bar would read 0%"), std::string::npos);
}

// The export records no GPU: its sm80_ kernels make it at least Ampere, a guess the reports show
// with how to name the GPU; named, it is projected on the named row.
TEST(SharedTraceReportTest, NsightExportWithoutADeviceRowShowsTheKernelNameGuessAndNamedProjectsOnIt) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "nsys-h100x2-fp32gemm-emitnvtx/h100_2gpu_1s.sqlite");
  const auto summarize = [&](const std::string& gpu) {
    auto trace = analyzer::import::importTrace(path);
    EXPECT_TRUE(trace.ok()) << trace.error().message;
    const analyzer::CorrelationCounts counts = analyzer::correlate(*trace);
    return analyzer::summarizeTrace(*trace, counts, analyzer::AnalysisOptions{gpu});
  };
  const analyzer::TraceSummary guessed = summarize("");
  ASSERT_NE(guessed.device.spec, nullptr);
  EXPECT_EQ(guessed.device.basis, analyzer::DeviceBasis::kKernelNames) << "the export names no GPU";
  const std::string html = htmlReport(guessed, {});
  EXPECT_NE(html.find(R"(<div class="v">A100 SXM</div>)"), std::string::npos);
  EXPECT_NE(html.find("guessed from kernel names (sm80_"), std::string::npos);
  EXPECT_NE(html.find("at least Ampere"), std::string::npos);
  EXPECT_EQ(html.find("device unknown"), std::string::npos);
  const std::string md = markdownReport(guessed, {});
  EXPECT_NE(md.find("| Device row | A100 SXM: guessed from kernel names (sm80\\_xmma"), std::string::npos) << md.substr(0, 2000);
  EXPECT_NE(md.find("name the GPU with --gpu NAME"), std::string::npos);

  const analyzer::TraceSummary named = summarize("H100-SXM");
  ASSERT_NE(named.device.spec, nullptr);
  const std::string named_html = htmlReport(named, {});
  EXPECT_NE(named_html.find(R"(<div class="v">H100 SXM</div>)"), std::string::npos);
  EXPECT_NE(named_html.find("--gpu H100-SXM"), std::string::npos);
  EXPECT_EQ(named_html.find("device unknown"), std::string::npos);
  if (!named.amdahl.parts.empty() && !named.amdahl.per_step) {
    EXPECT_NE(named_html.find("window (no steps found)"), std::string::npos);
  }
}

}  // namespace
}  // namespace ampscope::reports
