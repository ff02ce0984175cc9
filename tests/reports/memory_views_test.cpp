// The memory analysis in every report view: the words and byte figures they share
// (reports/memory_view.h), the drawing thinning, report.json's `memory`, memory.csv and
// memory_peak.csv, the HTML section with its chart, and the Markdown section. The analysis is built
// in the test (tests/reports/memory_fixture.h).

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "analyzer/run_analysis.h"
#include "reports/csv_reports.h"
#include "reports/html_memory_section.h"
#include "reports/markdown_report.h"
#include "reports/memory_chart.h"
#include "reports/memory_view.h"
#include "reports/report_json.h"
#include "tests/reports/csv_reader.h"
#include "tests/reports/memory_fixture.h"

namespace ampscope::reports {
namespace {

using test::kGiB;
using test::kMemoryStartNs;

struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

Csv readCsv(const std::string& text) {
  const std::optional<test::CsvTable> table = test::parseCsv(text);
  EXPECT_TRUE(table && !table->empty()) << text;
  if (!table || table->empty()) return {};
  return {table->front(), {table->begin() + 1, table->end()}};
}

TEST(MemoryViewsTest, ThePeakIsPlacedInItsStepAndTheBasisSaysMeasuredOrInferred) {
  const analyzer::TraceSummary s = test::summaryWithMemory();
  const analyzer::DeviceMemory& gpu = s.memory.devices[0];
  EXPECT_EQ(memoryPeakWhenText(gpu, s.iterations), "in step 1, 2.00 ms after it began");
  EXPECT_EQ(memoryDeviceLabel(gpu), "GPU 0 (NVIDIA H100 80GB HBM3)");
  EXPECT_EQ(memoryBasisText(gpu), "measured (the allocator's totals); blocks matched by address");
  const analyzer::DeviceMemory& host = s.memory.devices[1];
  EXPECT_EQ(memoryDeviceLabel(host), "host");
  EXPECT_EQ(memoryPeakWhenText(host, s.iterations), "outside every step");
  EXPECT_NE(memoryBasisText(host).find("reconstructed from the events' sizes"), std::string::npos);
  EXPECT_NE(memoryBasisText(host).find("matched by size (inferred"), std::string::npos);
}

TEST(MemoryViewsTest, TheAmpProjectionNamesTheBatchThatFitsAndWhereOrWhyNot) {
  analyzer::AmpMemoryProjection amp = test::memoryFixture().amp;
  EXPECT_EQ(ampMemoryText(amp),
            "projected peak 2.00 GiB under AMP (measured 3.00 GiB; the projection adds 256.0 MiB of half-precision weight copies); "
            "batch 32: up to 40 fit in NVIDIA H100 80GB HBM3's 80.00 GiB now, 72 under AMP (FP32 weights kept)");
  amp.fit_capacity_bytes = 0;
  amp.batch_that_fits.reset();
  amp.amp_batch_that_fits.reset();
  EXPECT_NE(ampMemoryText(amp).find("the batch that fits is unknown"), std::string::npos);
  amp.batch.reset();
  EXPECT_NE(ampMemoryText(amp).find("the batch is unknown"), std::string::npos);
  analyzer::AmpMemoryProjection none;
  none.note = "the run already uses half precision";
  EXPECT_EQ(ampMemoryText(none), "no projection: the run already uses half precision");
}

TEST(MemoryViewsTest, ThinningKeepsEveryColumnsExtremesAndSoThePeak) {
  std::vector<analyzer::MemorySample> timeline;
  for (int i = 0; i < 100'000; ++i) {
    timeline.push_back({i * 10LL, (i == 77'777 ? 9'000 : 1'000 + i % 100), i == 33'333 ? 50'000 : 20'000});
  }
  const std::vector<analyzer::MemorySample> thin = thinMemoryTimeline(timeline, 500);
  EXPECT_LE(thin.size(), 6u * 500u);
  EXPECT_GE(thin.size(), 2u * 500u);
  const auto most = [](const std::vector<analyzer::MemorySample>& samples, bool reserved) {
    std::int64_t top = 0;
    for (const auto& s : samples) top = std::max(top, reserved ? s.reserved_bytes : s.allocated_bytes);
    return top;
  };
  EXPECT_EQ(most(thin, false), 9'000);
  EXPECT_EQ(most(thin, true), 50'000);
  EXPECT_TRUE(std::is_sorted(thin.begin(), thin.end(), [](const auto& a, const auto& b) { return a.time_ns < b.time_ns; }));
  EXPECT_EQ(thin.front().time_ns, timeline.front().time_ns);
  EXPECT_EQ(thin.back().time_ns, timeline.back().time_ns);
  // A short timeline is drawn whole.
  EXPECT_EQ(thinMemoryTimeline(std::span(timeline).first(40), 500).size(), 40u);
}

TEST(MemoryViewsTest, ReportJsonHoldsThePeakItsBreakdownEveryDevicesTimelineAndTheAmpProjection) {
  const nlohmann::ordered_json doc = summaryToJsonDocument(test::summaryWithMemory(), {}, 2);
  const nlohmann::ordered_json& m = doc["memory"];
  ASSERT_TRUE(m.is_object());
  EXPECT_EQ(m["peak_allocated_bytes"], 3 * kGiB);
  EXPECT_EQ(m["peak_reserved_bytes"], 3 * kGiB + kGiB / 2);
  EXPECT_EQ(m["peak_at_ns"], kMemoryStartNs + 3'000'000);
  EXPECT_EQ(m["peak_step"], 1);
  EXPECT_EQ(m["totals"], "recorded");
  EXPECT_EQ(m["matching"], "address");
  EXPECT_EQ(m["by_category"][0]["category"], "activations");
  EXPECT_EQ(m["by_layer"].size(), 2u);  // cut by top
  EXPECT_EQ(m["by_layer"][0]["layer"], "blocks.0.attn");
  EXPECT_EQ(m["by_layer"][0]["pass"], "forward");
  ASSERT_EQ(m["devices"].size(), 2u);
  EXPECT_EQ(m["devices"][0]["timeline"]["time_ns"].size(), 4u);
  EXPECT_EQ(m["devices"][0]["timeline"]["allocated_bytes"][2], 3 * kGiB);
  EXPECT_EQ(m["devices"][0]["steps"][1]["saved_for_backward_bytes"], 2 * kGiB);
  EXPECT_EQ(m["devices"][1]["kind"], "cpu");
  EXPECT_TRUE(m["devices"][1]["peak_reserved_bytes"].is_null());
  EXPECT_TRUE(m["devices"][1]["timeline"]["reserved_bytes"].is_null());
  EXPECT_TRUE(m["devices"][1]["capacity_bytes"].is_null());
  const nlohmann::ordered_json& amp = m["amp"];
  EXPECT_EQ(amp["applies"], true);
  EXPECT_EQ(amp["projected_peak_allocated_bytes"], 2 * kGiB);
  EXPECT_EQ(amp["batch"], 32);
  EXPECT_EQ(amp["batch_that_fits"], 40);
  EXPECT_EQ(amp["amp_batch_that_fits"], 72);
  EXPECT_EQ(amp["fit_device"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(amp["fit_capacity_bytes"], 80 * kGiB);
}

TEST(MemoryViewsTest, ReportJsonMemoryIsNullWithoutMemoryEventsAndUnknownBatchIsNull) {
  EXPECT_TRUE(summaryToJsonDocument(analyzer::TraceSummary{}, {})["memory"].is_null());
  analyzer::TraceSummary s = test::summaryWithMemory();
  s.memory.amp.batch.reset();
  s.memory.amp.batch_that_fits.reset();
  s.memory.amp.amp_batch_that_fits.reset();
  const nlohmann::ordered_json amp = summaryToJsonDocument(s, {})["memory"]["amp"];
  EXPECT_TRUE(amp["batch"].is_null());
  EXPECT_TRUE(amp["batch_that_fits"].is_null());
  EXPECT_TRUE(amp["amp_batch_that_fits"].is_null());
}

TEST(MemoryViewsTest, MemoryCsvHasOneRowPerDevicePerSampleWithReservedEmptyWhereNotRecorded) {
  const Csv table = readCsv(memoryCsv(test::memoryFixture()));
  ASSERT_EQ(table.header, (std::vector<std::string>{"device_kind", "device", "time_ns", "allocated_bytes", "reserved_bytes"}));
  ASSERT_EQ(table.rows.size(), 6u);
  EXPECT_EQ(table.rows[2], (std::vector<std::string>{"gpu", "0", std::to_string(kMemoryStartNs + 3'000'000),
                                                     std::to_string(3 * kGiB), std::to_string(3 * kGiB + kGiB / 2)}));
  EXPECT_EQ(table.rows[4][0], "cpu");
  EXPECT_EQ(table.rows[4][4], "");
  EXPECT_EQ(readCsv(memoryCsv({})).rows.size(), 0u);
}

TEST(MemoryViewsTest, MemoryPeakCsvListsCategoriesLayersAndSavedForBackwardPerDevice) {
  const Csv table = readCsv(memoryPeakCsv(test::memoryFixture()));
  ASSERT_EQ(table.header, (std::vector<std::string>{"device_kind", "device", "breakdown", "category", "layer", "pass",
                                                    "bytes", "blocks"}));
  ASSERT_EQ(table.rows.size(), 7u);  // 3 categories, 3 layers, 1 saved for backward; the host has none
  EXPECT_EQ(table.rows[0], (std::vector<std::string>{"gpu", "0", "category", "activations", "", "", std::to_string(2 * kGiB), ""}));
  EXPECT_EQ(table.rows[3], (std::vector<std::string>{"gpu", "0", "layer", "", "blocks.0.attn", "forward",
                                                     std::to_string(3 * kGiB / 2), "12"}));
  EXPECT_EQ(table.rows[5][4], "");  // allocating op unknown
  EXPECT_EQ(table.rows[5][5], "unknown");
  EXPECT_EQ(table.rows[6][2], "saved_for_backward");
}

TEST(MemoryViewsTest, HtmlSectionDrawsTheTimelineWithItsPeakAndStepsAndListsTheBreakdown) {
  const std::string html = memorySection(test::summaryWithMemory(), 10);
  EXPECT_NE(html.find("<h2>Memory on GPU 0 (NVIDIA H100 80GB HBM3)</h2>"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("peak 3.00 GiB"), std::string::npos);
  EXPECT_NE(html.find("<title>step 1</title>"), std::string::npos);
  EXPECT_NE(html.find(">reserved</text>"), std::string::npos);
  EXPECT_NE(html.find("blocks.0.attn"), std::string::npos);
  EXPECT_NE(html.find("(allocating op unknown)"), std::string::npos);
  EXPECT_NE(html.find("up to 40 fit"), std::string::npos);
  EXPECT_NE(html.find("host: peak 4.0 KiB"), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos);
  EXPECT_NE(memorySection(analyzer::TraceSummary{}, 10).find("records no memory events"), std::string::npos);
}

TEST(MemoryViewsTest, TheChartOfALongTimelineStaysSmallAndMarksThePeak) {
  analyzer::DeviceMemory d;
  for (int i = 0; i < 200'000; ++i) d.timeline.push_back({i * 1'000LL, 1'000'000 + (i % 64) * 1'000, -1});
  d.timeline[150'000].allocated_bytes = 5'000'000;
  d.peak_allocated_bytes = 5'000'000;
  d.peak_at_ns = 150'000'000;
  const std::string svg = memoryTimelineChart(d, {});
  EXPECT_LT(svg.size(), 250'000u);  // 200,000 samples whole would be several MB
  EXPECT_NE(svg.find("peak 4.8 MiB"), std::string::npos);
  EXPECT_EQ(svg.find(">reserved</text>"), std::string::npos);
  // The path reaches the peak's height: the highest point of the line is the marker's.
  const std::regex marker(R"re(<circle cx="[0-9.]+" cy="([0-9.]+)")re");
  std::smatch found;
  ASSERT_TRUE(std::regex_search(svg, found, marker));
  EXPECT_NE(svg.find("V" + found[1].str()), std::string::npos);
}

TEST(MemoryViewsTest, MarkdownHasAShortMemorySection) {
  const std::string md = markdownReport(test::summaryWithMemory(), {}, 10);
  EXPECT_NE(md.find("## Memory\n\nPeak **3.00 GiB** allocated on GPU 0 (NVIDIA H100 80GB HBM3), reserved 3.50 GiB, in step 1"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| layer blocks.0.attn (forward) | 1.50 GiB | 50.0% |"), std::string::npos) << md;
  EXPECT_NE(md.find("AMP: projected peak 2.00 GiB"), std::string::npos);
  EXPECT_NE(markdownReport(analyzer::TraceSummary{}, {}, 10).find("## Memory\n\nUnknown: the trace records no memory events."),
            std::string::npos);
}

}  // namespace
}  // namespace ampscope::reports

namespace ampscope::reports {
namespace {

// A trace with memory events in the newer Kineto form (addresses, the allocator's totals), through
// the whole analysis: the views show what analyzer/memory/ made of it.
analyzer::RunAnalysis analyzedMemoryTrace() {
  trace::Trace t;
  t.format = trace::TraceFormat::kKineto;
  trace::Device gpu;
  gpu.name = t.strings.intern("NVIDIA H100 80GB HBM3");
  gpu.total_memory_bytes = 1'000'000;
  t.devices.push_back(gpu);
  const trace::Index main = t.threadIndex(1, 1);
  const auto range = [&](const char* name, std::int64_t start_us, std::int64_t end_us, const char* layer) {
    trace::Range r;
    r.start_ns = start_us * 1000;
    r.end_ns = end_us * 1000;
    r.name = t.strings.intern(name);
    r.thread = main;
    r.kind = trace::RangeKind::kOperator;
    if (layer) r.layer = t.strings.intern(layer);
    t.ranges.push_back(r);
  };
  std::int64_t total = 0;
  const auto event = [&](std::int64_t time_us, std::int64_t bytes, std::uint64_t address) {
    trace::MemoryEvent e;
    e.time_ns = time_us * 1000;
    e.bytes = bytes;
    e.thread = main;
    e.pid = 1;
    e.address = address;
    total += bytes;
    e.total_allocated = total;
    e.total_reserved = 8192;
    t.memory_events.push_back(e);
  };
  range("ProfilerStep#1", 0, 1000, nullptr);
  range("aten::conv2d", 10, 100, "conv1");
  event(20, 4096, 0x10);
  range("aten::relu", 110, 130, "act1");
  event(120, 2048, 0x20);
  event(400, -2048, 0x20);
  event(410, -4096, 0x10);
  t.sortByTime();
  return analyzer::analyzeTrace(std::move(t), "inline");
}

TEST(MemoryViewsTest, TheAnalysisOfAnInlineTraceReachesEveryView) {
  const analyzer::RunAnalysis run = analyzedMemoryTrace();
  const analyzer::DeviceMemory* gpu = run.summary.memory.primaryDevice();
  ASSERT_NE(gpu, nullptr);
  const nlohmann::ordered_json doc = summaryToJsonDocument(run.summary, run.recommendations);
  ASSERT_TRUE(doc["memory"].is_object());
  EXPECT_EQ(doc["memory"]["peak_allocated_bytes"], 6144);
  EXPECT_EQ(doc["memory"]["peak_reserved_bytes"], 8192);
  EXPECT_EQ(doc["memory"]["totals"], "recorded");
  EXPECT_EQ(doc["memory"]["matching"], "address");
  EXPECT_EQ(doc["memory"]["devices"][0]["timeline"]["time_ns"].size(), 4u);
  EXPECT_EQ(readCsv(memoryCsv(run.summary.memory)).rows.size(), 4u);
  const Csv peak = readCsv(memoryPeakCsv(run.summary.memory));
  bool conv1 = false;
  for (const auto& row : peak.rows) conv1 |= row[2] == "layer" && row[4] == "conv1" && row[6] == "4096";
  EXPECT_TRUE(conv1) << memoryPeakCsv(run.summary.memory);
  const std::string html = memorySection(run.summary, 10);
  EXPECT_NE(html.find("peak 6.0 KiB"), std::string::npos) << html;
  EXPECT_NE(html.find("conv1"), std::string::npos);
}

}  // namespace
}  // namespace ampscope::reports
