// The whole report from a real trace: every file is written, every CSV parses, and the numbers
// agree with the summary they came from.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analyzer/correlator.h"
#include "analyzer/import/trace_importer.h"
#include "analyzer/trace_summary.h"
#include "reports/report_writer.h"
#include "tests/reports/csv_reader.h"
#include "tests/test_support.h"

namespace ampscope::reports {
namespace {

TEST(SharedTraceReportTest, WorkersZeroResnetReportHasSixIterationsAndParseableCsvs) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  auto trace = analyzer::import::importTrace(path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const analyzer::CorrelationCounts counts = analyzer::correlate(*trace);
  const analyzer::TraceSummary summary = analyzer::summarizeTrace(*trace, counts);
  // recommend() is exercised by the analyzer's tests; here one hand-made row is enough to show
  // it reaches every file.
  const std::vector<analyzer::Recommendation> recommendations = {
      {"hide-input-pipeline", analyzer::Severity::kHigh, "model", "exposed, per step", "num_workers=4", 1'000, 1.0}};

  test::ScratchDir dir;
  const trace::Status status = writeReport(summary, recommendations, dir.file("report"));
  ASSERT_TRUE(status.ok()) << status.error().message;

  std::map<std::string, test::CsvTable> tables;
  for (const char* name : {"recommendations.csv", "layers.csv", "kernels.csv", "iterations.csv"}) {
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
}

}  // namespace
}  // namespace ampscope::reports
