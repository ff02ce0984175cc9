// Nsight Systems' GPU metrics (nsys profile --gpu-metrics-devices) read into Trace::metric_samples.
// The fixture is tests/data/nsys_small.sql (two GPUs) with the metric tables written here, in the
// shape NVIDIA's SQLite schema reference gives them and exports of Nsight Systems 2024.2 have.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../test_support.h"
#include "analyzer/import/nsight/nsys_importer.h"
#include "sqlite_importer_fixture.h"

namespace ampscope::analyzer::import {
namespace {

// A metric type's id is a serialized GlobalId: hardware and VM in the top 16 bits (VM 1, as
// TARGET_INFO_GPU.vmId below), Nsight's GPU id in the low 8.
constexpr std::int64_t kVm = std::int64_t{1} << 48;
constexpr std::int64_t kGpu0Type = kVm | (std::int64_t{1} << 32) | 0;
constexpr std::int64_t kGpu1Type = kVm | (std::int64_t{1} << 32) | 1;

// The metric tables of a 2024-era export. Nsight's GPU 0 is CUDA device 1 and its GPU 1 CUDA
// device 0 (the two need not agree: CUDA orders devices fastest first): samples take the CUDA ordinal.
const std::string kMetricTables = fmt::format(R"sql(
UPDATE TARGET_INFO_GPU SET vmId = {vm}, cuDevice = 1 - id;
CREATE TABLE TARGET_INFO_GPU_METRICS (typeId INTEGER NOT NULL, sourceId INTEGER NOT NULL,
  typeName TEXT NOT NULL, metricId INTEGER NOT NULL, metricName TEXT NOT NULL);
INSERT INTO TARGET_INFO_GPU_METRICS VALUES
  ({t0}, {t0}, 'GA100', 7, 'SMs Active [Throughput %]'), ({t0}, {t0}, 'GA100', 10, 'Tensor Active [Throughput %]'),
  ({t1}, {t1}, 'GA102', 7, 'SMs Active [Throughput %]'), ({t1}, {t1}, 'GA102', 10, 'Tensor Active [Throughput %]');
CREATE TABLE GPU_METRICS (timestamp INTEGER, typeId INTEGER NOT NULL, metricId INTEGER NOT NULL,
  value INTEGER NOT NULL);
INSERT INTO GPU_METRICS VALUES
  (1000000, {t0}, 7, 80), (1000000, {t0}, 10, 40), (1000000, {t1}, 7, 20), (1000000, {t1}, 10, 0),
  (1100000, {t0}, 7, 90), (1100000, {t0}, 10, 45), (1100000, {t0}, 99, 5), (1100000, {t1}, 7, 25),
  (1100000, {t1}, 10, 1),
  (1200000, {t0}, 7, 100), (1200000, {t0}, 10, 50), (1200000, {t1}, 7, 30), (1200000, {t1}, 10, 2);
)sql",
                                              fmt::arg("vm", kVm), fmt::arg("t0", kGpu0Type),
                                              fmt::arg("t1", kGpu1Type));

class NsysGpuMetricsTest : public test::SqliteImporterTest<importNsightSystems> {
 protected:
  void SetUp() override {
    const std::string sql = test::readFile(test::testData("nsys_small.sql"));
    ASSERT_FALSE(sql.empty()) << "cannot read " << test::testData("nsys_small.sql");
    ASSERT_NO_FATAL_FAILURE(create(sql));
  }

  // The samples of one device and metric, in time order.
  static std::vector<trace::MetricSample> series(const trace::Trace& t, std::uint32_t device, std::string_view metric) {
    std::vector<trace::MetricSample> out;
    for (const trace::MetricSample& s : t.metric_samples) {
      if (s.device == device && t.str(s.metric) == metric) out.push_back(s);
    }
    return out;
  }
};

TEST_F(NsysGpuMetricsTest, ReadsEachGpusMetricsOnTheCudaOrdinalItsKernelsCarry) {
  alter(kMetricTables);
  const trace::Trace t = import();
  ASSERT_EQ(t.metric_samples.size(), 12u);  // 13 rows, one of a metric the export does not name

  const auto gpu0_sm = series(t, 1, "SMs Active [Throughput %]");  // Nsight's GPU 0: CUDA device 1
  ASSERT_EQ(gpu0_sm.size(), 3u);
  EXPECT_EQ(gpu0_sm[0].value, 80.0);
  EXPECT_EQ(gpu0_sm[2].value, 100.0);
  const auto gpu0_tensor = series(t, 1, "Tensor Active [Throughput %]");
  ASSERT_EQ(gpu0_tensor.size(), 3u);
  EXPECT_EQ(gpu0_tensor[1].value, 45.0);
  const auto gpu1_sm = series(t, 0, "SMs Active [Throughput %]");
  ASSERT_EQ(gpu1_sm.size(), 3u);
  EXPECT_EQ(gpu1_sm[0].value, 20.0);
  const auto gpu1_tensor = series(t, 0, "Tensor Active [Throughput %]");
  ASSERT_EQ(gpu1_tensor.size(), 3u);
  EXPECT_EQ(gpu1_tensor[2].value, 2.0);
}

TEST_F(NsysGpuMetricsTest, EachSampleCoversItsTimeUpToTheNextSample) {
  // Nsight stamps a sample at the start of the period it measured (see the format's doc).
  alter(kMetricTables);
  const trace::Trace t = import();
  const auto sm = series(t, 1, "SMs Active [Throughput %]");
  ASSERT_EQ(sm.size(), 3u);
  EXPECT_EQ(sm[0].start_ns, 1'000'000);
  EXPECT_EQ(sm[0].end_ns, 1'100'000);
  EXPECT_EQ(sm[1].start_ns, 1'100'000);
  EXPECT_EQ(sm[1].end_ns, 1'200'000);
  EXPECT_EQ(sm[2].start_ns, 1'200'000);
  EXPECT_EQ(sm[2].end_ns, 1'300'000);  // the last keeps the period before it
}

TEST_F(NsysGpuMetricsTest, CountsASampleOfAMetricTheExportDoesNotNameWithItsRow) {
  alter(kMetricTables);
  const trace::Trace t = import();
  const std::string reason =
      "GPU_METRICS GPU metric samples whose typeId and metricId TARGET_INFO_GPU_METRICS does not name (left out)";
  ASSERT_EQ(t.import_stats.not_understood.count(reason), 1u);
  EXPECT_EQ(t.import_stats.not_understood.at(reason), 1u);
  EXPECT_EQ(t.import_stats.first_place.at(reason), "table 'GPU_METRICS' row 7");
}

TEST_F(NsysGpuMetricsTest, CountsSamplesOfAGpuTheExportDoesNotListAndReadsTheRest) {
  alter(kMetricTables);
  const std::int64_t unlisted = kVm | (std::int64_t{1} << 32) | 5;
  alter(fmt::format("INSERT INTO TARGET_INFO_GPU_METRICS VALUES ({0}, {0}, 'GH100', 7, 'SMs Active [Throughput %]');"
                    "INSERT INTO GPU_METRICS VALUES (1000000, {0}, 7, 60), (1100000, {0}, 7, 61);",
                    unlisted));
  const trace::Trace t = import();
  EXPECT_EQ(t.metric_samples.size(), 12u);
  const std::string reason = "GPU_METRICS GPU metric samples of a GPU that TARGET_INFO_GPU does not list (left out)";
  ASSERT_EQ(t.import_stats.not_understood.count(reason), 1u);
  EXPECT_EQ(t.import_stats.not_understood.at(reason), 2u);
  EXPECT_EQ(t.import_stats.first_place.at(reason), "table 'GPU_METRICS' row 14");
}

TEST_F(NsysGpuMetricsTest, LeavesOutNegativeValuesAndKeepsSamplesFromBeforeTheSessionStart) {
  // Nsight's clocks read from unsigned counters come out negative in some exports; samples taken
  // just before the session's start have negative times.
  alter(kMetricTables);
  alter(fmt::format("INSERT INTO GPU_METRICS VALUES (-100000, {0}, 7, 10), (-100000, {0}, 10, -1670273642);",
                    kGpu0Type));
  const trace::Trace t = import();
  const auto sm = series(t, 1, "SMs Active [Throughput %]");
  ASSERT_EQ(sm.size(), 4u);
  EXPECT_EQ(sm[0].start_ns, -100'000);
  EXPECT_EQ(sm[0].end_ns, 1'000'000);
  EXPECT_EQ(series(t, 1, "Tensor Active [Throughput %]").size(), 3u);
  const std::string reason =
      "GPU_METRICS GPU metric samples whose value is negative: an unsigned counter the export wrote as signed "
      "(left out)";
  ASSERT_EQ(t.import_stats.not_understood.count(reason), 1u);
  EXPECT_EQ(t.import_stats.first_place.at(reason), "table 'GPU_METRICS' row 15");
}

TEST_F(NsysGpuMetricsTest, ASeriesOfOneSampleLastsThePeriodOfTheRecordedFrequency) {
  alter(fmt::format(
      "UPDATE TARGET_INFO_GPU SET vmId = {0};"
      "CREATE TABLE META_DATA_CAPTURE (name TEXT NOT NULL, value TEXT);"
      "INSERT INTO META_DATA_CAPTURE VALUES ('GPU_METRICS_OPTIONS:SAMPLING_FREQUENCY', '20000');"
      "CREATE TABLE TARGET_INFO_GPU_METRICS (typeId INTEGER, sourceId INTEGER, typeName TEXT, metricId INTEGER,"
      " metricName TEXT);"
      "INSERT INTO TARGET_INFO_GPU_METRICS VALUES ({1}, {1}, '', 0, 'Tensor Active');"
      "CREATE TABLE GPU_METRICS (timestamp INTEGER, typeId INTEGER, metricId INTEGER, value INTEGER);"
      "INSERT INTO GPU_METRICS VALUES (5000000, {1}, 0, 12);",
      kVm, kGpu0Type));
  const trace::Trace t = import();
  ASSERT_EQ(t.metric_samples.size(), 1u);
  EXPECT_EQ(t.metric_samples[0].start_ns, 5'000'000);
  EXPECT_EQ(t.metric_samples[0].end_ns, 5'050'000);  // 20 kHz
}

TEST_F(NsysGpuMetricsTest, ReadsOlderExportsThatKeepSamplesInGenericEvents) {
  // Before GPU_METRICS, each sample was one GENERIC_EVENTS row of the "GpuMetrics" source with all
  // metrics in one JSON object, values as text. Another source's events are not samples.
  alter(fmt::format(R"sql(
UPDATE TARGET_INFO_GPU SET vmId = {vm};
CREATE TABLE GENERIC_EVENT_SOURCES (sourceId INTEGER NOT NULL PRIMARY KEY, data TEXT NOT NULL);
INSERT INTO GENERIC_EVENT_SOURCES VALUES
  ({t0}, '{{"Name": "GpuMetrics", "TimeSource": "SessionNs", "SourceGroup": "Unknown"}}'),
  (72057602627862528, '{{"Name": "FTrace", "TimeSource": "ClockMonotonicRaw", "SourceGroup": "FTrace"}}');
CREATE TABLE GENERIC_EVENT_TYPES (typeId INTEGER NOT NULL PRIMARY KEY, sourceId INTEGER NOT NULL, data TEXT NOT NULL);
INSERT INTO GENERIC_EVENT_TYPES VALUES
  ({t0}, {t0}, '{{"Name": "", "Fields": [{{"Name": "SM Active"}}, {{"Name": "Tensor Active"}}]}}'),
  (72057602627862670, 72057602627862528, '{{"Name": "irq:irq_handler_entry"}}');
CREATE TABLE GENERIC_EVENTS (rawTimestamp INTEGER NOT NULL, timestamp INTEGER, typeId INTEGER NOT NULL,
  data TEXT NOT NULL);
INSERT INTO GENERIC_EVENTS VALUES
  (2000000, NULL, {t0}, '{{"SM Active": "52", "Tensor Active": "10"}}'),
  (1183694330725221, 6236683, 72057602627862670, '{{"common_pid": "0", "irq": "66"}}'),
  (2100000, NULL, {t0}, '{{"SM Active": "99", "Tensor Active": "n/a"}}'),
  (2200000, NULL, {t0}, '{{"SM Active": ');
)sql",
                    fmt::arg("vm", kVm), fmt::arg("t0", kGpu0Type)));
  const trace::Trace t = import();
  ASSERT_EQ(t.metric_samples.size(), 3u);
  const auto sm = series(t, 0, "SM Active");  // Nsight's GPU 0 is CUDA device 0 here
  ASSERT_EQ(sm.size(), 2u);
  EXPECT_EQ(sm[0].start_ns, 2'000'000);
  EXPECT_EQ(sm[0].end_ns, 2'100'000);
  EXPECT_EQ(sm[0].value, 52.0);
  EXPECT_EQ(sm[1].value, 99.0);
  const auto tensor = series(t, 0, "Tensor Active");
  ASSERT_EQ(tensor.size(), 1u);
  EXPECT_EQ(tensor[0].value, 10.0);
  const std::string reason = "GENERIC_EVENTS GPU metric samples whose value is not a number (left out)";
  ASSERT_EQ(t.import_stats.not_understood.count(reason), 1u);
  EXPECT_EQ(t.import_stats.first_place.at(reason), "table 'GENERIC_EVENTS' row 3");
  const std::string broken = "GENERIC_EVENTS GPU metric samples whose data is no JSON object of metric values (left out)";
  ASSERT_EQ(t.import_stats.not_understood.count(broken), 1u);
  EXPECT_EQ(t.import_stats.first_place.at(broken), "table 'GENERIC_EVENTS' row 4");
}

TEST_F(NsysGpuMetricsTest, AMetricTableOfOtherColumnsIsCountedAndTheRestOfTheFileRead) {
  alter(kMetricTables);
  alter("ALTER TABLE GPU_METRICS RENAME COLUMN value TO counterValue");
  const trace::Trace t = import();
  EXPECT_TRUE(t.metric_samples.empty());
  EXPECT_EQ(t.kernels.size(), 6u);
  const std::string reason = "GPU_METRICS without column 'value': its GPU metric samples are not read";
  ASSERT_EQ(t.import_stats.not_understood.count(reason), 1u);
  EXPECT_EQ(t.import_stats.first_place.at(reason), "table 'GPU_METRICS'");
}

TEST_F(NsysGpuMetricsTest, ReadsGpuMetricsAloneWhereGenericEventsRepeatThem) {
  alter(kMetricTables);
  alter(fmt::format(R"sql(
CREATE TABLE GENERIC_EVENT_SOURCES (sourceId INTEGER NOT NULL PRIMARY KEY, data TEXT NOT NULL);
INSERT INTO GENERIC_EVENT_SOURCES VALUES ({t0}, '{{"Name": "GpuMetrics", "TimeSource": "SessionNs"}}');
CREATE TABLE GENERIC_EVENT_TYPES (typeId INTEGER NOT NULL PRIMARY KEY, sourceId INTEGER NOT NULL, data TEXT NOT NULL);
INSERT INTO GENERIC_EVENT_TYPES VALUES ({t0}, {t0}, '{{"Name": ""}}');
CREATE TABLE GENERIC_EVENTS (rawTimestamp INTEGER NOT NULL, timestamp INTEGER, typeId INTEGER NOT NULL, data TEXT NOT NULL);
INSERT INTO GENERIC_EVENTS VALUES (1000000, NULL, {t0}, '{{"SMs Active [Throughput %]": "80"}}');
)sql",
                    fmt::arg("t0", kGpu0Type)));
  EXPECT_EQ(import().metric_samples.size(), 12u);
}

TEST_F(NsysGpuMetricsTest, AnExportWithoutGpuMetricsReadsAsBefore) {
  const trace::Trace without = import();
  EXPECT_TRUE(without.metric_samples.empty());
  alter(kMetricTables);
  const trace::Trace with = import();
  // The metric rows add to the counts and nothing else changes.
  EXPECT_EQ(with.import_stats.events_read, without.import_stats.events_read + 13);
  EXPECT_EQ(with.import_stats.events_imported, without.import_stats.events_imported + 12);
  EXPECT_EQ(with.kernels, without.kernels);
  EXPECT_EQ(with.launches, without.launches);
  EXPECT_EQ(with.ranges, without.ranges);
  EXPECT_EQ(with.memory_ops, without.memory_ops);
}

}  // namespace
}  // namespace ampscope::analyzer::import
