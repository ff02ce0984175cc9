// The hardware counters in the reports (reports/counters_json.h, csv_reports.h, html_counters_section.h,
// perfetto_export.h): a summary filled by hand as the counter analysis fills it, each view's
// figures read back; and the same summary without counters, whose views say nothing of them.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/job/rank_result.h"
#include "analyzer/run_analysis.h"
#include "reports/counter_words.h"
#include "reports/csv_reports.h"
#include "reports/html_report.h"
#include "reports/perfetto_export.h"
#include "reports/rank_result_json.h"
#include "reports/report_json.h"
#include "tests/reports/counter_fixture.h"
#include "tests/reports/csv_reader.h"

namespace ampscope::reports {
namespace {

using nlohmann::json;

json documentOf(const analyzer::TraceSummary& summary) {
  return json::parse(formatJsonDocument(summaryToJsonDocument(summary, {})));
}

// The CSV as rows of column -> cell.
std::vector<std::map<std::string, std::string>> rowsOf(const std::string& csv) {
  const auto table = test::parseCsv(csv);
  EXPECT_TRUE(table && !table->empty());
  std::vector<std::map<std::string, std::string>> rows;
  if (!table || table->empty()) return rows;
  for (std::size_t r = 1; r < table->size(); ++r) {
    std::map<std::string, std::string> row;
    for (std::size_t c = 0; c < table->front().size() && c < (*table)[r].size(); ++c) row[table->front()[c]] = (*table)[r][c];
    rows.push_back(std::move(row));
  }
  return rows;
}

TEST(CounterViewsTest, JsonGivesEachKernelNamesMetricTotalsAndTheMeasuredShareWithItsBasis) {
  const json doc = documentOf(test::summaryWithCounters());
  ASSERT_TRUE(doc.contains("counters") && doc["counters"].is_object()) << doc["counters"].dump();
  const json& counters = doc["counters"];
  EXPECT_EQ(counters["recorded"], true);
  ASSERT_EQ(counters["kernels"].size(), 2u);
  const json& simt = counters["kernels"][0];
  EXPECT_EQ(simt["kernel"], test::kCountedSimt);
  EXPECT_EQ(simt["ranges"], 2);
  EXPECT_EQ(simt["matched"], 2);
  EXPECT_EQ(simt["metrics"][test::kCyclesMetric], 2.0e6);
  EXPECT_EQ(simt["metrics"][test::kTensorPipeMetric], 170.0);
  EXPECT_EQ(simt["metric_ranges"][test::kTensorPipeMetric], 2);
  EXPECT_DOUBLE_EQ(simt["tensor_active"].get<double>(), 0.85);
  EXPECT_EQ(simt["measured_ns"], 4'000'000);
  EXPECT_EQ(simt["source"], "per_kernel");
  EXPECT_EQ(simt["basis"], test::kTensorPipeMetric);
  EXPECT_TRUE(simt["cuda_core_ops"].is_null());  // no FP instruction counts recorded
  EXPECT_EQ(counters["kernels"][1]["cuda_core_ops"]["fp32"], 1024.0);
}

TEST(CounterViewsTest, JsonSummarisesEachSeriesWithoutItsPointsAndListsTheDisagreementWithBothSides) {
  const json counters = documentOf(test::summaryWithCounters())["counters"];
  ASSERT_EQ(counters["series"].size(), 1u);
  const json& series = counters["series"][0];
  EXPECT_EQ(series["device"], 0);
  EXPECT_EQ(series["metric"], test::kSeriesMetric);
  EXPECT_EQ(series["share"], true);
  EXPECT_EQ(series["samples"], 3);
  EXPECT_EQ(series["start_ns"], 1'000'000);
  EXPECT_EQ(series["end_ns"], 6'000'000);
  EXPECT_EQ(series["span_ns"], 5'000'000);
  EXPECT_FALSE(series.contains("points"));
  ASSERT_EQ(counters["disagreements"].size(), 1u);
  const json& d = counters["disagreements"][0];
  EXPECT_EQ(d["kernel"], test::kCountedSimt);
  EXPECT_EQ(d["by_name"]["tensor_cores"], false);
  EXPECT_EQ(d["by_name"]["rule"], "sgemm");
  EXPECT_EQ(d["by_name"]["confidence"], "high");
  EXPECT_EQ(d["measured"]["tensor_cores"], true);
  EXPECT_EQ(d["measured"]["verdict"], "tensor_core");
  EXPECT_DOUBLE_EQ(d["measured"]["tensor_active"].get<double>(), 0.85);
  EXPECT_EQ(d["time_ns"], 4'000'000);
  EXPECT_EQ(counters["not_understood"]["profiler range without a kernel name"], 1);
}

TEST(CounterViewsTest, JsonTensorCoresStateTheMeasuredShareWithTheTimeItCovers) {
  const json tc = documentOf(test::summaryWithCounters())["tensor_cores"];
  EXPECT_EQ(tc["by_confidence"]["measured"], 2'000'000);
  EXPECT_EQ(tc["by_confidence"]["high"], 0);
  const json& measured = tc["measured"];
  EXPECT_EQ(measured["covered_ns"], 6'000'000);
  EXPECT_EQ(measured["kernel_time_ns"], 7'000'000);
  EXPECT_DOUBLE_EQ(measured["active_share"].get<double>(), 0.8);
  EXPECT_EQ(measured["tensor_core_ns"], 6'000'000);
  EXPECT_EQ(measured["idle_ns"], 0);
  EXPECT_EQ(measured["metrics"], json::array({test::kTensorPipeMetric}));
  // The existing keys stay as they were.
  for (const char* key : {"time_ns", "fraction", "by_precision", "unknown_time_ns", "rules_version", "applicable"}) {
    EXPECT_TRUE(tc.contains(key)) << key;
  }
}

TEST(CounterViewsTest, JsonKernelAndLayerRowsCarryTheMeasuredShareNullWhereNotMeasured) {
  const json doc = documentOf(test::summaryWithCounters());
  ASSERT_EQ(doc["kernels_by_name"].size(), 3u);
  EXPECT_DOUBLE_EQ(doc["kernels_by_name"][0]["measured_tensor_active"].get<double>(), 0.85);
  EXPECT_EQ(doc["kernels_by_name"][0]["measured_tensor_ns"], 4'000'000);
  EXPECT_TRUE(doc["kernels_by_name"][2]["measured_tensor_active"].is_null());
  EXPECT_EQ(doc["kernels_by_name"][2]["measured_tensor_ns"], 0);
  EXPECT_DOUBLE_EQ(doc["layers"][0]["measured_tensor_active"].get<double>(), 0.8);
  EXPECT_EQ(doc["layers"][0]["measured_tensor_ns"], 6'000'000);
}

TEST(CounterViewsTest, JsonWithoutCountersHasNullCountersAndAnUnknownShareOverNoTime) {
  const json doc = documentOf(test::summaryWithoutCounters());
  EXPECT_TRUE(doc["counters"].is_null());
  const json& measured = doc["tensor_cores"]["measured"];
  EXPECT_EQ(measured["covered_ns"], 0);
  EXPECT_TRUE(measured["active_share"].is_null());
  EXPECT_EQ(doc["tensor_cores"]["by_confidence"]["measured"], 0);
  EXPECT_TRUE(doc["kernels_by_name"][0]["measured_tensor_active"].is_null());
}

TEST(CounterViewsTest, JsonCutsTheKernelRowsToTopButKeepsEveryDisagreement) {
  const json doc = summaryToJsonDocument(test::summaryWithCounters(), {}, 1);
  EXPECT_EQ(doc["counters"]["kernels"].size(), 1u);
  EXPECT_EQ(doc["counters"]["kernel_names"], 2);
  EXPECT_EQ(doc["counters"]["disagreements"].size(), 1u);
}

TEST(CounterViewsTest, KernelAndLayerCsvsEndInTheMeasuredColumnsBlankWhereNotMeasured) {
  const analyzer::TraceSummary s = test::summaryWithCounters();
  const auto kernels = rowsOf(kernelsCsv(s));
  ASSERT_EQ(kernels.size(), 3u);
  EXPECT_EQ(kernels[0].at("name"), test::kCountedSimt);
  EXPECT_EQ(kernels[0].at("measured_tensor_active"), "0.8500");
  EXPECT_EQ(kernels[0].at("measured_tensor_ns"), "4000000");
  EXPECT_EQ(kernels[2].at("measured_tensor_active"), "");
  EXPECT_EQ(kernels[2].at("measured_tensor_ns"), "");
  const auto header = test::parseCsv(kernelsCsv(s))->front();
  EXPECT_EQ(std::vector<std::string>(header.end() - 3, header.end()),
            (std::vector<std::string>{"verdict", "measured_tensor_active", "measured_tensor_ns"}));
  const auto layers = rowsOf(layersCsv(s));
  ASSERT_EQ(layers.size(), 1u);
  EXPECT_EQ(layers[0].at("measured_tensor_active"), "0.8000");
  EXPECT_EQ(layers[0].at("measured_tensor_ns"), "6000000");
  const auto unmeasured = rowsOf(layersCsv(test::summaryWithoutCounters()));
  EXPECT_EQ(unmeasured[0].at("measured_tensor_active"), "");
}

TEST(CounterViewsTest, AJobsCsvsCarryEachRanksMeasuredShareThroughItsCompactResult) {
  const analyzer::TraceSummary s = test::summaryWithCounters();
  const analyzer::RankResult rank = analyzer::rankResultOf(s, {}, "rank0.json", "rank0.json");
  // Written and read back, as `analyze --json` per rank and `merge` do.
  auto read = rankResultFromJson(json::parse(rankResultToJson(rank).dump()), "rank0.json");
  ASSERT_TRUE(read) << read.error().message;
  const std::vector<analyzer::RankResult> ranks = {*read};
  const auto kernels = rowsOf(kernelsCsv(ranks));
  ASSERT_EQ(kernels.size(), 3u);
  EXPECT_EQ(kernels[0].at("measured_tensor_active"), "0.8500");
  EXPECT_EQ(kernels[0].at("measured_tensor_ns"), "4000000");
  EXPECT_EQ(kernels[2].at("measured_tensor_active"), "");
  const auto layers = rowsOf(layersCsv(ranks));
  ASSERT_EQ(layers.size(), 1u);
  EXPECT_EQ(layers[0].at("measured_tensor_active"), "0.8000");
  // A result written before the fields existed reads as not measured.
  json older = rankResultToJson(rank);
  for (json& kernel : older["tables"]["kernels"]) {
    kernel.erase("measured_tensor_active");
    kernel.erase("measured_tensor_ns");
  }
  auto older_read = rankResultFromJson(json::parse(older.dump()), "older.json");
  ASSERT_TRUE(older_read) << older_read.error().message;
  EXPECT_FALSE(older_read->tables.kernels[0].measured_tensor_active.has_value());
}

TEST(CounterViewsTest, CountersCsvHasAColumnPerMetricEmptyWhereAKernelDidNotRecordIt) {
  const std::string csv = countersCsv(test::summaryWithCounters().counters);
  const auto header = test::parseCsv(csv)->front();
  EXPECT_EQ(std::vector<std::string>(header.begin(), header.begin() + 11),
            (std::vector<std::string>{"kernel", "ranges", "matched", "gpu_time_ns", "tensor_active", "measured_ns",
                                      "source", "basis", "cuda_core_fp16_ops", "cuda_core_fp32_ops",
                                      "cuda_core_fp64_ops"}));
  EXPECT_EQ(std::vector<std::string>(header.begin() + 11, header.end()),
            (std::vector<std::string>{test::kCyclesMetric, test::kTensorPipeMetric}));
  const auto rows = rowsOf(csv);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at(test::kCyclesMetric), "2000000.0000");
  EXPECT_EQ(rows[0].at("tensor_active"), "0.8500");
  EXPECT_EQ(rows[0].at("source"), "per_kernel");
  EXPECT_EQ(rows[0].at("cuda_core_fp32_ops"), "");
  EXPECT_EQ(rows[1].at(test::kCyclesMetric), "");  // not recorded for it: not 0
  EXPECT_EQ(rows[1].at("cuda_core_fp32_ops"), "1024.0000");
  EXPECT_EQ(test::parseCsv(countersCsv({}))->size(), 1u);  // header only without counters
}

TEST(CounterViewsTest, HtmlPutsTheMeasuredShareBesideTheVerdictAndListsTheDisagreementFirst) {
  const std::string html = htmlReport(test::summaryWithCounters(), {}, 10);
  const std::size_t section = html.find("<h2>Hardware counters</h2>");
  ASSERT_NE(section, std::string::npos);
  const std::size_t disagree = html.find("Names and counters disagree", section);
  const std::size_t kernels = html.find("Measured kernels", section);
  ASSERT_NE(disagree, std::string::npos);
  ASSERT_NE(kernels, std::string::npos);
  EXPECT_LT(disagree, kernels);
  EXPECT_NE(html.find("tensor pipe active 80.0% over 6.00 ms of 7.00 ms kernel time (85.7% covered)"), std::string::npos);
  // The operators' kernel rows and the layer rows: the measured column beside the verdict.
  EXPECT_NE(html.find(R"(<th class="n">Tensor Cores</th><th class="n">Tensor pipe active (measured)</th>)"), std::string::npos);
  EXPECT_NE(html.find(R"(<td class="n no">no</td><td class="n">85.0%</td>)"), std::string::npos);
  EXPECT_NE(html.find(R"(<td class="n no">no</td><td class="n"></td>)"), std::string::npos);  // not measured
  EXPECT_NE(html.find(R"(<td class="n">28.6%</td><td class="n">80.0%</td>)"), std::string::npos);  // fc1 forward
}

TEST(CounterViewsTest, HtmlWithoutCountersSaysNothingOfThem) {
  const std::string html = htmlReport(test::summaryWithoutCounters(), {}, 10);
  EXPECT_EQ(html.find("Hardware counters"), std::string::npos);
  EXPECT_EQ(html.find(kMeasuredActiveHeading), std::string::npos);
  EXPECT_EQ(html.find("Tensor Cores (verdicts)"), std::string::npos);
}

TEST(CounterViewsTest, WordsSayUnknownWithTheTimeItCoversAndBothSidesOfADisagreement) {
  analyzer::MeasuredTensorCores none;
  none.kernel_time_ns = 1'500'000;
  EXPECT_EQ(measuredCoverageText(none), "unknown: no tensor-pipe metric was recorded (0 ns of 1.50 ms kernel time covered)");
  none.metrics = {test::kTensorPipeMetric};
  EXPECT_EQ(measuredCoverageText(none), "unknown: no kernel's tensor pipe was measured (0 ns of 1.50 ms kernel time covered)");
  none.kernel_time_ns = 0;
  EXPECT_EQ(measuredCoverageText(none), "unknown: no kernel's tensor pipe was measured (the trace records no kernel time)");
  EXPECT_EQ(cudaCoreOpsText({.fp16 = 9.73e6, .fp32 = 3.016e10, .fp64 = 0}), "FP32 30.16 GFLOP, FP16 9.73 MFLOP");
  EXPECT_EQ(cudaCoreOpsText({}), "none");
  const analyzer::TraceSummary s = test::summaryWithCounters();
  EXPECT_EQ(disagreementText(s.counters.disagreements[0], 0),
            std::string(test::kCountedSimt) + ": the name says not on Tensor Cores (sgemm, high confidence); the "
                "counters say on Tensor Cores, tensor pipe 85.0% active (" + test::kTensorPipeMetric + "); 4.00 ms");
  EXPECT_EQ(measuredActiveCell(std::nullopt), "");
  EXPECT_EQ(measuredActiveCell(0.0), "0.0%");  // measured idle is a figure, not a blank
  EXPECT_EQ(seriesTrackName(s.counters.series[0]), "GPU 0 · Tensor Active [Throughput %] (share)");
}

// Two kernels on one stream, analyzed; then the counters filled by hand as the analysis would.
analyzer::RunAnalysis runWithCounters() {
  trace::Trace t;
  trace::Device gpu;
  gpu.name = t.strings.intern("NVIDIA A100-SXM4-40GB");
  gpu.compute_major = 8;
  t.devices.push_back(gpu);
  for (int i = 0; i < 2; ++i) {
    trace::Kernel k;
    k.start_ns = 1'000'000 + i * 2'000'000;
    k.end_ns = k.start_ns + 1'000'000;
    k.name = t.strings.intern(i == 0 ? test::kCountedSimt : test::kUncounted);
    k.stream = 7;
    t.kernels.push_back(k);
  }
  t.sortByTime();
  analyzer::RunAnalysis run = analyzer::analyzeTrace(std::move(t), "inline");
  analyzer::TraceSummary& s = run.summary;
  const analyzer::TraceSummary filled = test::summaryWithCounters();
  s.counters.series = filled.counters.series;
  s.counters.kernels = {filled.counters.kernels[0]};
  for (std::size_t i = 0; i < run.trace.kernels.size(); ++i) {
    const bool measured = run.trace.str(run.trace.kernels[i].name) == test::kCountedSimt;
    s.counters.tensor_active_by_kernel.push_back(measured ? 0.9f : std::numeric_limits<float>::quiet_NaN());
  }
  for (analyzer::KernelRow& row : s.kernels) {
    if (row.name == test::kCountedSimt) {
      row.measured_tensor_active = 0.85;
      row.measured_tensor_ns = 1'000'000;
    }
  }
  return run;
}

json exportedEvents(const analyzer::RunAnalysis& run) {
  std::ostringstream out;
  PerfettoExporter exporter(out, earliestExportedNs(run).value_or(0));
  exporter.addRank(run, {.pid = 0, .name = "rank 0 (test)", .clock_shift_ns = 0});
  exporter.finish();
  return json::parse(out.str())["traceEvents"];
}

TEST(CounterViewsTest, PerfettoDrawsEachSeriesAsACounterTrackAndMarksMeasuredKernels) {
  const analyzer::RunAnalysis run = runWithCounters();
  ASSERT_EQ(run.summary.kernels.size(), 2u);
  const json events = exportedEvents(run);
  const std::string track = "GPU 0 · Tensor Active [Throughput %] (share)";
  std::vector<std::pair<double, double>> samples;  // (ts in us, share)
  std::map<std::string, json> kernel_args;
  for (const json& e : events) {
    if (e["ph"] == "C" && e["name"] == track) samples.emplace_back(e["ts"].get<double>(), e["args"]["share"].get<double>());
    if (e["ph"] == "X" && e["cat"] == "kernel") kernel_args[e["name"]] = e["args"];
  }
  // The origin is the first sample (1 ms); each sample from its start, 0 after a gap and at the end.
  const std::vector<std::pair<double, double>> expected = {{0.0, 0.5}, {1000.0, 0.75}, {2000.0, 0.0}, {4000.0, 0.25},
                                                           {5000.0, 0.0}};
  EXPECT_EQ(samples, expected);
  ASSERT_TRUE(kernel_args.contains(test::kCountedSimt));
  const json& measured = kernel_args[test::kCountedSimt];
  EXPECT_NEAR(measured["measured_tensor_active"].get<double>(), 0.9, 1e-6);
  EXPECT_DOUBLE_EQ(measured["name_measured_tensor_active"].get<double>(), 0.85);
  EXPECT_EQ(measured["name_measured_tensor_ns"], 1'000'000);
  const json& unmeasured = kernel_args[test::kUncounted];
  EXPECT_FALSE(unmeasured.contains("measured_tensor_active"));
  EXPECT_FALSE(unmeasured.contains("name_measured_tensor_active"));
}

}  // namespace
}  // namespace ampscope::reports
