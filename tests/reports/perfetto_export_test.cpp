// The Perfetto export of real and inline traces, parsed back: as many kernel events as the
// analysis counts, each with the kernel table's verdict; every slice placed; flows paired and
// bound to a launch call; counters and steps present; nothing before time 0.

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "../test_support.h"
#include "analyzer/run_analysis.h"
#include "reports/perfetto_export.h"
#include "tests/reports/memory_fixture.h"

namespace ampscope::reports {
namespace {

using nlohmann::json;

json exportRun(const analyzer::RunAnalysis& run, PerfettoCounts* counts = nullptr) {
  std::ostringstream out;
  PerfettoExporter exporter(out, earliestExportedNs(run).value_or(0));
  exporter.addRank(run, {.pid = 0, .name = "rank 0 (test)", .clock_shift_ns = 0});
  exporter.finish();
  if (counts) *counts = exporter.counts();
  return json::parse(out.str());
}

const char* expectedWord(const analyzer::TensorCoreVerdict& verdict) {
  if (verdict.tensor_core == analyzer::TensorCoreUse::kHost) return "host";
  if (verdict.tensor_core == analyzer::TensorCoreUse::kYes) return "yes";
  if (verdict.tensor_core == analyzer::TensorCoreUse::kNo) return "no";
  return "unknown";
}

TEST(PerfettoExportTest, ResnetExportHoldsEveryKernelWithItsVerdictPairedFlowsAndCounters) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  auto run = analyzer::analyzeFile(path);
  ASSERT_TRUE(run) << run.error().message;
  PerfettoCounts counts;
  const json document = exportRun(*run, &counts);
  ASSERT_TRUE(document.contains("otherData"));
  EXPECT_EQ(document["otherData"]["time_origin_ns"], std::to_string(*earliestExportedNs(*run)));

  std::uint64_t analyzed_kernels = 0;
  for (const auto& device : run->summary.devices) analyzed_kernels += device.kernels;
  std::map<std::string, std::string> verdict_of_name;
  for (const auto& row : run->summary.kernels) verdict_of_name[row.name] = expectedWord(row.verdict);

  std::uint64_t kernels = 0;
  std::uint64_t kernels_with_rate = 0;
  std::uint64_t steps = 0;
  std::set<std::string> counter_names;
  std::map<std::uint64_t, json> starts;
  std::map<std::uint64_t, json> finishes;
  std::map<std::int64_t, std::vector<std::pair<double, double>>> launches_by_tid;  // [ts, ts + dur]
  for (const json& e : document["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "X") {
      ASSERT_TRUE(e.contains("ts") && e.contains("dur") && e.contains("pid") && e.contains("tid")) << e.dump();
      EXPECT_GE(e["ts"].get<double>(), 0.0) << e.dump();
      if (e["cat"] == "kernel") {
        ++kernels;
        ASSERT_TRUE(e["args"].contains("tensor_cores")) << e.dump();
        EXPECT_EQ(e["args"]["tensor_cores"], verdict_of_name.at(e["name"])) << e["name"];
        EXPECT_TRUE(e["args"].contains("precision") && e["args"].contains("rule") && e["args"].contains("confidence"));
        // A rate is the op's, and never above the device's peak.
        if (e["args"].contains("op_achieved_tflops")) {
          ++kernels_with_rate;
          ASSERT_TRUE(e["args"].contains("op_peak_tflops")) << e.dump();
          EXPECT_LE(e["args"]["op_achieved_tflops"].get<double>(), e["args"]["op_peak_tflops"].get<double>()) << e.dump();
        }
      } else if (e["cat"] == "cuda_runtime" || e["cat"] == "cuda_driver") {
        launches_by_tid[e["tid"]].emplace_back(e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
      } else if (e["cat"] == "step") {
        ++steps;
      }
    } else if (ph == "s") {
      EXPECT_TRUE(starts.emplace(e["id"].get<std::uint64_t>(), e).second) << "flow id used twice";
    } else if (ph == "f") {
      EXPECT_EQ(e["bp"], "e");
      EXPECT_TRUE(finishes.emplace(e["id"].get<std::uint64_t>(), e).second) << "flow id used twice";
    } else if (ph == "C") {
      EXPECT_GE(e["ts"].get<double>(), 0.0);
      counter_names.insert(e["name"]);
    }
  }
  EXPECT_EQ(kernels, analyzed_kernels);
  EXPECT_GT(kernels_with_rate, 0U);  // the convolutions and GEMMs have known work
  EXPECT_EQ(kernels, run->trace.kernels.size());
  EXPECT_EQ(steps, run->summary.iterations.iterations.size());
  ASSERT_GT(starts.size(), 0u);
  EXPECT_EQ(starts.size(), counts.flows);
  ASSERT_EQ(starts.size(), finishes.size());
  for (const auto& [id, start] : starts) {
    ASSERT_TRUE(finishes.contains(id)) << "flow " << id << " has no end";
    // The arrow starts inside a launch call on its thread (what binds it there).
    const double ts = start["ts"];
    bool inside = false;
    for (const auto& [begin, end] : launches_by_tid[start["tid"]]) inside = inside || (begin <= ts && ts <= end);
    EXPECT_TRUE(inside) << start.dump();
  }
  EXPECT_TRUE(counter_names.contains("launch queue · GPU 0 · stream 7")) << json(counter_names).dump();
  EXPECT_TRUE(counter_names.contains("Tensor Core share of kernel time"));
  EXPECT_TRUE(counter_names.contains("exposed data loading"));
}

// The trainer's per-step loss scale becomes a counter track, sample for sample.
TEST(PerfettoExportTest, LossScaleCountersBecomeACounterTrack) {
  trace::Trace t;
  const trace::StringId scale = t.strings.intern("loss_scale");
  t.counters.push_back({.time_ns = 5'000, .name = scale, .step = 0, .value = 65536.0});
  t.counters.push_back({.time_ns = 9'000, .name = scale, .step = 1, .value = 32768.0});
  t.counters.push_back({.time_ns = 7'000, .name = t.strings.intern("loss"), .step = 0, .value = 2.5});
  const analyzer::RunAnalysis run = analyzer::analyzeTrace(std::move(t), "inline");
  const json document = exportRun(run);
  std::vector<std::pair<double, double>> samples;
  for (const json& e : document["traceEvents"]) {
    if (e["ph"] == "C" && e["name"] == "loss scale") samples.emplace_back(e["ts"], e["args"]["scale"]);
  }
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0], std::make_pair(0.0, 65536.0));  // the first event is time 0
  EXPECT_EQ(samples[1], std::make_pair(4.0, 32768.0));
}

TEST(PerfettoExportTest, EachDevicesMemoryTimelineBecomesAllocatedAndReservedCounterTracks) {
  analyzer::RunAnalysis run;
  run.summary.memory = test::memoryFixture();
  const json document = exportRun(run);
  std::map<std::string, std::vector<std::pair<double, double>>> tracks;
  for (const json& e : document["traceEvents"]) {
    if (e["ph"] == "C") tracks[e["name"].get<std::string>()].emplace_back(e["ts"], e["args"]["bytes"]);
  }
  ASSERT_EQ(tracks["memory allocated · GPU 0"].size(), 4u);
  ASSERT_EQ(tracks["memory reserved · GPU 0"].size(), 4u);
  ASSERT_EQ(tracks["memory allocated · host"].size(), 2u);
  EXPECT_EQ(tracks.count("memory reserved · host"), 0u);  // not recorded
  // The first memory event is time 0; the peak 3 ms later.
  EXPECT_EQ(tracks["memory allocated · GPU 0"][0].first, 0.0);
  EXPECT_EQ(tracks["memory allocated · GPU 0"][2], std::make_pair(3000.0, static_cast<double>(3 * test::kGiB)));
}

}  // namespace
}  // namespace ampscope::reports
