#include "cli/analyze_command.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "../test_support.h"
#include "analyzer/core/device_table.h"
#include "cli/summary_text.h"
#include "tests/analyzer/synthetic_run.h"
#include "tests/analyzer/trainer_cpu_trace.h"
#include "tests/reports/memory_fixture.h"
#include "trace/db/profile_writer.h"

namespace ampscope::cli {
namespace {

nlohmann::json analyzeJson(const std::string& path) {
  std::ostringstream out;
  std::ostringstream err;
  AnalyzeOptions options;
  options.trace_paths = {path};
  options.json = true;
  EXPECT_EQ(runAnalyze(options, out, err), kExitOk) << err.str();
  return nlohmann::json::parse(out.str());
}

TEST(AnalyzeCommandTest, JsonCarriesTheDocumentedKeys) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-a100-dlrm-tf32/control.json.gz");
  const nlohmann::json doc = analyzeJson(path);
  EXPECT_EQ(doc.at("format"), "kineto");
  ASSERT_TRUE(doc.at("devices").is_array());
  EXPECT_EQ(doc.at("devices").at(0).at("name"), "NVIDIA A100-PG509-200");
  EXPECT_EQ(doc.at("devices").at(0).at("compute_capability"), "8.0");
  EXPECT_EQ(doc.at("kernels").at("count"), 8568);
  EXPECT_EQ(doc.at("kernels").at("linked_to_launch"), 8568);
  EXPECT_EQ(doc.at("kernels").at("attributed_to_op"), 8568);
  EXPECT_GT(doc.at("gpu_kernel_time_ns").get<std::int64_t>(), 0);
  EXPECT_TRUE(doc.at("import_stats").contains("events_read"));
  EXPECT_TRUE(doc.at("import_stats").at("skipped").is_object());
  ASSERT_FALSE(doc.at("top_operators").empty());
  EXPECT_FALSE(doc.at("top_operators").at(0).at("top_kernels").empty());
  // The step parts carry their kind; the label is derived from it.
  const nlohmann::json& parts = doc.at("amdahl").at("parts");
  ASSERT_EQ(parts.size(), 8u);
  EXPECT_EQ(parts.at(0).at("kind"), "tensor_core_math");
  EXPECT_EQ(parts.at(2).at("kind"), "eligible_tf32_math");
  EXPECT_EQ(parts.at(2).at("name"), "eligible math in TF32 on Tensor Cores");
  EXPECT_EQ(parts.at(3).at("kind"), "unknown_math");
  EXPECT_EQ(parts.at(5).at("kind"), "communication");
  EXPECT_EQ(parts.at(7).at("kind"), "idle");
  // The device row and why; the per-op model's table and the layers' figures.
  EXPECT_EQ(doc.at("device").at("row"), "A100 SXM 40GB");
  EXPECT_EQ(doc.at("device").at("basis"), "trace_name");
  ASSERT_FALSE(doc.at("ops").empty());
  for (const char* key : {"op", "shapes", "class", "flops_per_call", "bytes_per_call", "achieved_tflops", "peak_tflops",
                          "bound", "predicted_amp_ns", "amp_speedup", "work_basis"}) {
    EXPECT_TRUE(doc.at("ops").at(0).contains(key)) << key;
  }
  ASSERT_FALSE(doc.at("layers").empty());
  for (const char* key : {"flops", "bytes", "achieved_tflops", "peak_tflops", "bound", "predicted_amp_ns"}) {
    EXPECT_TRUE(doc.at("layers").at(0).contains(key)) << key;
  }
  EXPECT_TRUE(doc.at("performance").contains("model_flop_utilisation"));
  EXPECT_TRUE(doc.at("what_if").is_null());  // no --gpu, and a GPU run
}

TEST(AnalyzeCommandTest, JsonReportsIterationsAndDataPipelineExposure) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  const nlohmann::json doc = analyzeJson(path);
  EXPECT_EQ(doc.at("iterations").at("count"), 6);
  EXPECT_EQ(doc.at("iterations").at("warmup"), 1);
  EXPECT_EQ(doc.at("iterations").at("steps").size(), 6u);
  EXPECT_GT(doc.at("iterations").at("steady_mean_ns").get<std::int64_t>(), 0);
  EXPECT_GT(doc.at("data_pipeline").at("exposed_fraction").get<double>(), 0.25);
  EXPECT_GT(doc.at("data_pipeline").at("exposed_ns_per_iteration").get<std::int64_t>(), 0);
}

TEST(AnalyzeCommandTest, TensorCoreTimeComesWithThePrecisionEachTraceRanIn) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(a100, "kineto-a100-dlrm-tf32/control.json.gz");
  AMPSCOPE_REQUIRE_SHARED_TRACE(
      h100, "kineto-h100-timesformer-bf16/facebook_timesformer-base-finetuned-k400__1016002.json.gz");
  AMPSCOPE_REQUIRE_SHARED_TRACE(v100, "kineto-v100-resnet50-workers4/worker0.1623212756351.pt.trace.json.gz");
  const nlohmann::json tf32 = analyzeJson(a100).at("tensor_cores");
  EXPECT_GT(tf32.at("fraction").get<double>(), 0.05);
  EXPECT_EQ(tf32.at("by_precision").size(), 1u);
  EXPECT_EQ(tf32.at("by_precision").at("TF32"), tf32.at("time_ns"));
  const nlohmann::json bf16 = analyzeJson(h100).at("tensor_cores");
  EXPECT_EQ(bf16.at("by_precision").size(), 1u);
  EXPECT_EQ(bf16.at("by_precision").at("BF16"), bf16.at("time_ns"));
  const nlohmann::json fp32 = analyzeJson(v100).at("tensor_cores");
  EXPECT_EQ(fp32.at("time_ns"), 0);
  EXPECT_TRUE(fp32.at("by_precision").empty());
}

TEST(AnalyzeCommandTest, GpuKernelTimeIsTheSumOfKernelDurations) {
  test::ScratchDir dir;
  const std::string path = dir.write(
      "two.json",
      "{\"traceEvents\": ["
      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":5,\"args\":{\"correlation\":1}},"
      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"pid\":0,\"tid\":8,\"ts\":12,\"dur\":2.5,\"args\":{\"correlation\":2}}]}");
  const nlohmann::json doc = analyzeJson(path);
  EXPECT_EQ(doc.at("gpu_kernel_time_ns"), 7500);
  EXPECT_EQ(doc.at("gpu_busy_ns"), 5000);  // the second kernel overlaps the first
  EXPECT_EQ(doc.at("kernels").at("linked_to_launch"), 0);
  EXPECT_EQ(doc.at("import_stats").at("gpu_records_without_launch"), 2);
}

TEST(AnalyzeCommandTest, SaveProfileWritesADatabaseThatAnalyzesTheSame) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "nvprof-v100-transformer-lm/net.sql");
  test::ScratchDir dir;
  std::ostringstream out;
  std::ostringstream err;
  AnalyzeOptions options;
  options.trace_paths = {path};
  options.json = true;
  options.save_profile = dir.file("lm.sqlite");
  ASSERT_EQ(runAnalyze(options, out, err), kExitOk) << err.str();
  nlohmann::json original = nlohmann::json::parse(out.str());
  nlohmann::json reread = analyzeJson(options.save_profile);
  EXPECT_EQ(reread.at("format"), "ampscope");
  for (const char* key : {"kernels", "memory_ops", "launches", "ranges", "gpu_kernel_time_ns", "top_operators"}) {
    EXPECT_EQ(original.at(key), reread.at(key)) << key;
  }
}

TEST(AnalyzeCommandTest, TextSummaryNamesDeviceAndTopOperator) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "nvprof-v100-transformer-lm/net.sql");
  std::ostringstream out;
  std::ostringstream err;
  AnalyzeOptions options;
  options.trace_paths = {path};
  ASSERT_EQ(runAnalyze(options, out, err), kExitOk);
  EXPECT_NE(out.str().find("Tesla V100-SXM2-16GB"), std::string::npos);
  EXPECT_NE(out.str().find("284 kernels"), std::string::npos);
  EXPECT_NE(out.str().find("MmBackward"), std::string::npos);
}

TEST(AnalyzeCommandTest, TextSummaryNamesTheDeviceRowItsUtilisationAndTheStepProjection) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  std::ostringstream out;
  std::ostringstream err;
  AnalyzeOptions options;
  options.trace_paths = {path};
  ASSERT_EQ(runAnalyze(options, out, err), kExitOk) << err.str();
  const std::string text = out.str();
  for (const char* expected : {"device      V100 SXM2 row: the trace names \"Tesla V100-DGXS-32GB\"\n",
                               "of the FP16 Tensor Core peak (", "GFLOP per step; FLOPs known for ",
                               "AMP         projected step speedup "}) {
    EXPECT_NE(text.find(expected), std::string::npos) << "missing: " << expected << "\n" << text;
  }
  EXPECT_NE(text.find("\nMFU         "), std::string::npos) << text;
  EXPECT_EQ(text.find("what-if"), std::string::npos) << "no what-if without --gpu on a GPU run";
}

// One rank (process) of the two-process export, which records no GPU: its sm80_ kernels make it
// at least Ampere, a guess the device line states with how to name the GPU; named, its
// projection covers its window of GPU work.
TEST(AnalyzeCommandTest, TextSummaryOfATraceWithoutADeviceRowStatesTheKernelNameGuessAndWithItProjectsTheWindow) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "nsys-h100x2-fp32gemm-emitnvtx/h100_2gpu_1s.sqlite");
  const auto text = [&](const std::string& gpu) {
    std::ostringstream out;
    std::ostringstream err;
    AnalyzeOptions options;
    options.trace_paths = {path};
    options.gpu = gpu;
    options.rank = 0;
    EXPECT_EQ(runAnalyze(options, out, err), kExitOk) << err.str();
    return out.str();
  };
  const std::string guessed = text("");
  EXPECT_NE(guessed.find("device      A100 SXM row: guessed from kernel names (sm80_"), std::string::npos) << guessed;
  EXPECT_NE(guessed.find("at least Ampere (compute capability 8.0), read against the A100 SXM row; name the GPU with "
                         "--gpu NAME\n"),
            std::string::npos)
      << guessed;
  EXPECT_EQ(guessed.find("device unknown"), std::string::npos);
  // The export has no steps: its projection covers its window of GPU work and says so.
  const std::string named = text("H100-SXM");
  EXPECT_NE(named.find("device      H100 SXM row: --gpu H100-SXM"), std::string::npos) << named;
  EXPECT_NE(named.find("AMP         projected over the trace's "), std::string::npos) << named;
  EXPECT_NE(named.find(" window (no steps found): speedup "), std::string::npos);
  EXPECT_EQ(named.find("projected step speedup"), std::string::npos);
  EXPECT_EQ(named.find("device unknown"), std::string::npos);
}

std::string analyzeText(const std::string& path);  // below

// A trace that tells nothing of its GPU (no device, kernel names without a build target): the
// device line says how to name it, and nothing that needs the device's peaks is claimed.
TEST(AnalyzeCommandTest, TextSummaryOfATraceThatTellsNoGpuSaysHowToNameIt) {
  const test::ScratchDir dir;
  trace::Trace trace = test::syntheticRun(
      {{"aten::mm", "[[1024,1024],[1024,1024]]", "[\"float\",\"float\"]", "void gemm_kernel<float>(float const*)", 500'000}});
  trace.devices.clear();
  const std::string path = dir.file("no_gpu.ampscope");
  ASSERT_TRUE(trace::db::writeProfile(path, trace).ok());
  const std::string unknown = analyzeText(path);
  EXPECT_NE(unknown.find("device      unknown — name it with --gpu NAME (e.g. --gpu H100-SXM)\n"), std::string::npos)
      << unknown;
  EXPECT_NE(unknown.find("MFU         unknown: the device is unknown"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("AMP         no projection: the device is unknown"), std::string::npos) << unknown;
}

// A GPU the table has no row for is read against peaks derived from its SM count, and the device
// line says so.
TEST(AnalyzeCommandTest, TextSummaryNamesDerivedPeaksAsSuch) {
  const test::ScratchDir dir;
  trace::Trace trace = test::syntheticRun(
      {{"aten::mm", "[[1024,1024],[1024,1024]]", "[\"float\",\"float\"]", "ampere_sgemm_128x64_tn", 500'000}}, 6,
      {.name = "NVIDIA GeForce RTX 4090 D", .compute_major = 8, .compute_minor = 9, .sm_count = 114,
       .memory_bytes = 24ull << 30});
  const std::string path = dir.file("rtx4090d.ampscope");
  ASSERT_TRUE(trace::db::writeProfile(path, trace).ok());
  const std::string derived = analyzeText(path);
  EXPECT_NE(derived.find("device      GeForce RTX 4090 D, peaks derived: the trace names \"NVIDIA GeForce RTX 4090 D\", "
                         "which the table lacks; derived: the RTX 4090 row's per-SM rates × 114 SMs"),
            std::string::npos)
      << derived;
}

// The trainer CPU profile as `ampscope train --profile` leaves it: an ampscope profile database
// whose rows are not in start order (the collector writes a range when it ends, after its
// children), which the analysis must not depend on.
std::string writeTrainerCpuProfile(const test::ScratchDir& dir) {
  const std::string path = dir.file("trainer_cpu.ampscope");
  trace::Trace trace = test::trainerCpuTrace();
  std::reverse(trace.ranges.begin(), trace.ranges.end());
  std::reverse(trace.kernels.begin(), trace.kernels.end());
  std::reverse(trace.launches.begin(), trace.launches.end());
  std::reverse(trace.counters.begin(), trace.counters.end());
  const trace::Status written = trace::db::writeProfile(path, trace);
  EXPECT_TRUE(written.ok()) << (written.ok() ? "" : written.error().message);
  return path;
}

std::string analyzeText(const std::string& path) {
  std::ostringstream out;
  std::ostringstream err;
  AnalyzeOptions options;
  options.trace_paths = {path};
  EXPECT_EQ(runAnalyze(options, out, err), kExitOk) << err.str();
  return out.str();
}

TEST(AnalyzeCommandTest, RecordedStridesSayWhichDimensionsOfAShapeMustBeMultiples) {
  // The H100 TimeSformer trace records its inputs' strides: its linear layers' 25089 tokens are
  // the rows of row-major activations, a leading dimension of no matrix, and are not flagged;
  // the attention's 3137 is a row length, and is.
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-h100-timesformer-bf16/facebook_timesformer-base-finetuned-k400__1016002.json.gz");
  const nlohmann::json doc = analyzeJson(path);
  bool saw_tokens = false;
  bool saw_attention = false;
  for (const nlohmann::json& check : doc.at("shape_checks")) {
    if (check.at("gemm").at("convolution").get<bool>()) continue;
    EXPECT_FALSE(check.at("strides").get<std::string>().empty()) << check.dump();
    const nlohmann::json& leading = check.at("gemm").at("leading_dimensions");
    ASSERT_TRUE(leading.is_array()) << check.dump();
    for (const nlohmann::json& finding : check.at("misaligned")) {
      EXPECT_NE(std::find(leading.begin(), leading.end(), finding.at("dimension")), leading.end()) << check.dump();
    }
    if (check.at("gemm").at("m") == 25089) {
      saw_tokens = true;
      EXPECT_TRUE(check.at("misaligned").empty()) << check.dump();
    }
    if (check.at("op") == "aten::bmm" && !check.at("misaligned").empty()) saw_attention = true;
  }
  EXPECT_TRUE(saw_tokens);
  EXPECT_TRUE(saw_attention);
  EXPECT_NE(analyzeText(path).find("aten::addmm; leading N, K"), std::string::npos);
  // A trace without strides: unknown, and any dimension counts.
  AMPSCOPE_REQUIRE_SHARED_TRACE(without, "nvprof-v100-transformer-lm/net.sql");
  const nlohmann::json old = analyzeJson(without);
  ASSERT_FALSE(old.at("shape_checks").empty());
  EXPECT_EQ(old.at("shape_checks").at(0).at("strides"), "");
  EXPECT_TRUE(old.at("shape_checks").at(0).at("gemm").at("leading_dimensions").is_null());
}

TEST(AnalyzeCommandTest, CpuProfileTextSaysWhereItRanAndShowsLayersNumericsAndLosses) {
  test::ScratchDir dir;
  const std::string text = analyzeText(writeTrainerCpuProfile(dir));
  for (const char* expected : {
           "CPU: Test CPU (2 threads) (host CPU): 53 host ops",
           "recorded on the CPU (the trainer's CPU backend)",
           "tensor core not applicable: recorded on the CPU",
           "iterations  6 from step ranges",
           "AMP         no projection: recorded on the CPU",
           "Layers by pass",
           "  fc1              forward         6     4.80 ms    800.0 us",
           "  fc1              backward        6     7.80 ms     1.30 ms",
           "loss scale  65536 at step 0, 32768 at step 4; min 32768, max 65536, final 32768",
           "skipped     1 of 6 steps: 3",
           "fc1.weight",
           "2.500%",
           "LOST        the collector lost 2 records",
           "LOST           the collector lost 2 records: NVTX ranges still open at exit",
           "NOT understood        1  ampscope trainer layer ranges whose text is not understood",
           // No GPU row on the CPU: the what-if device answers, marked as estimates.
           "device      none: recorded on the CPU; what-if on H100 SXM: the default for a CPU run",
           "MFU         n/a on the CPU (",
           "what-if     on H100 SXM, model estimates of one step's GPU work",
           " FP32 -> AMP\n",
           // Its small layers' shapes off the multiple cost AMP time in the model: the narrow loads
           // of align4/align2 kernels slow each step over K (docs/performance_model.md).
           "off the multiple of 8 (AMP time it costs per step): fc1 backward N=100->104",
       }) {
    EXPECT_NE(text.find(expected), std::string::npos) << "missing: " << expected << "\n" << text;
  }
  // No Tensor Core verdict, projection or advice for host ops.
  for (const char* unexpected : {"TC FP16", "projected step speedup", "enable-amp", "Tensor Core rate"}) {
    EXPECT_EQ(text.find(unexpected), std::string::npos) << "found: " << unexpected << "\n" << text;
  }
}

TEST(AnalyzeCommandTest, CpuProfileJsonLeavesTensorCoreFiguresNullAndCarriesTheNewKeys) {
  test::ScratchDir dir;
  const nlohmann::json doc = analyzeJson(writeTrainerCpuProfile(dir));
  EXPECT_EQ(doc.at("recorded_on_cpu"), true);
  EXPECT_EQ(doc.at("devices").at(0).at("kind"), "cpu");
  EXPECT_TRUE(doc.at("tensor_cores").at("time_ns").is_null());
  EXPECT_TRUE(doc.at("tensor_cores").at("fraction").is_null());
  EXPECT_EQ(doc.at("tensor_cores").at("applicable"), false);
  const nlohmann::json& kernel = doc.at("top_operators").at(0).at("top_kernels").at(0);
  EXPECT_TRUE(kernel.at("tensor_cores").is_null());
  EXPECT_EQ(kernel.at("host"), true);
  const nlohmann::json& passes = doc.at("layer_passes");
  ASSERT_EQ(passes.size(), 6u);
  EXPECT_EQ(passes.at(0).at("layer"), "fc1");
  EXPECT_EQ(passes.at(0).at("phase"), "forward");
  EXPECT_EQ(passes.at(0).at("calls"), 6);
  EXPECT_EQ(passes.at(0).at("time_ns"), 4'800'000);
  const nlohmann::json& numerics = doc.at("amp_numerics");
  EXPECT_EQ(numerics.at("loss_scale").at("changes").size(), 2u);
  EXPECT_EQ(numerics.at("skipped_steps").at("runs").at(0).at("first"), 3);
  EXPECT_EQ(numerics.at("tensors").at(0).at("tensor"), "fc1.weight");
  EXPECT_DOUBLE_EQ(numerics.at("tensors").at(0).at("recent").at("underflow_share").get<double>(), 0.05);
  EXPECT_EQ(numerics.at("suggested_loss_scale"), 131072.0);
  EXPECT_EQ(doc.at("host_stalls").at("loss_scale_last"), 32768.0);
  EXPECT_EQ(doc.at("import_stats").at("lost").at("NVTX ranges still open at exit"), 2);
  std::vector<std::string> rules;
  for (const nlohmann::json& r : doc.at("recommendations")) rules.push_back(r.at("rule"));
  EXPECT_EQ(std::find(rules.begin(), rules.end(), "enable-amp"), rules.end());
  EXPECT_NE(std::find(rules.begin(), rules.end(), "gradient-underflow"), rules.end());
}


// --top only cuts what is printed: the findings come from the complete analysis, so they are the
// same whatever the cut, on every real trace there is.
TEST(AnalyzeCommandTest, TopCutsOnlyListsNeverFindingsOnEverySharedTrace) {
  const std::filesystem::path root(AMPSCOPE_SHARED_TRACES);
  if (!std::filesystem::is_directory(root)) GTEST_SKIP() << "no shared traces under " << root;
  std::vector<std::string> traces;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && (name.ends_with(".json") || name.ends_with(".json.gz") ||
                                    name.ends_with(".sqlite") || name.ends_with(".sql"))) {
      traces.push_back(entry.path().string());
    }
  }
  if (traces.empty()) GTEST_SKIP() << "no traces under " << root;
  std::sort(traces.begin(), traces.end());
  for (const std::string& path : traces) {
    const auto analyze = [&](std::size_t top) {
      std::ostringstream out, err;
      AnalyzeOptions options;
      options.trace_paths = {path};
      options.json = true;
      options.top = top;
      EXPECT_EQ(runAnalyze(options, out, err), kExitOk) << path << ": " << err.str();
      return nlohmann::json::parse(out.str());
    };
    const nlohmann::json two = analyze(2);
    const nlohmann::json all = analyze(200);
    if (two.at("format") == "job") {  // a file of several processes: its ranks
      for (const char* key : {"recommendations", "ranks", "collectives", "rank_results"}) {
        EXPECT_EQ(two.at(key), all.at(key)) << path << ": " << key;
      }
      continue;
    }
    for (const char* key : {"recommendations", "amdahl", "tensor_cores", "layers", "layer_passes"}) {
      EXPECT_EQ(two.at(key), all.at(key)) << path << ": " << key;
    }
    EXPECT_LE(two.at("top_operators").size(), 2u) << path;
    EXPECT_LE(two.at("shape_checks").size(), 2u) << path;
  }
}

}  // namespace
}  // namespace ampscope::cli

// The what-if line names the shapes off the multiple of 8 that cost AMP time, costliest first;
// those the model gives no cost (a 1-channel input layer, a latency-bound op) are counted, not advice.
TEST(AnalyzeCommandTest, WhatIfListsOnlyDimensionsOffTheMultipleThatCostTime) {
  ampscope::analyzer::TraceSummary summary;
  summary.what_if.device.spec = ampscope::analyzer::rowSpec(ampscope::analyzer::findDevice("H100-SXM"));
  ASSERT_NE(summary.what_if.device.spec, nullptr);
  ampscope::analyzer::LayerRow input;
  input.layer = "conv1";
  input.pass = ampscope::trace::Phase::kForward;
  input.what_if_misaligned = {{"C", 1, 8}};
  input.what_if_padding_cost_ns = 0;
  ampscope::analyzer::LayerRow small = input;
  small.layer = "fc2";
  small.what_if_misaligned = {{"N", 10, 16}};
  small.what_if_padding_cost_ns = 300;
  ampscope::analyzer::LayerRow large = small;
  large.layer = "fc1";
  large.what_if_misaligned = {{"N", 100, 104}};
  large.what_if_padding_cost_ns = 1200;
  summary.layer_table.rows = {input, small, large};
  std::string text = ampscope::cli::summaryToText(summary, {}, 10);
  EXPECT_NE(text.find("off the multiple of 8 (AMP time it costs per step): fc1 forward N=100->104 (1.2 us), "
                      "fc2 forward N=10->16 (300 ns); 1 more cost none\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("conv1 forward"), std::string::npos) << text;

  summary.layer_table.rows = {input};
  text = ampscope::cli::summaryToText(summary, {}, 10);
  EXPECT_NE(text.find("off the multiple of 8: 1 layer pass, none costing AMP time in the model\n"), std::string::npos)
      << text;
}

// The Memory section: the primary device's peak, when and how it is known, what holds it, the
// activations saved per step, the AMP projection, and the other devices in a line each.
TEST(SummaryTextTest, MemorySectionGivesThePeakItsBreakdownAndTheAmpProjection) {
  const std::string text = ampscope::cli::summaryToText(ampscope::test::summaryWithMemory(), {}, 2);
  EXPECT_NE(text.find("memory      peak 3.00 GiB allocated, reserved 3.50 GiB on GPU 0 (NVIDIA H100 80GB HBM3) "
                      "(measured); Memory below\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nMemory on GPU 0 (NVIDIA H100 80GB HBM3): measured (the allocator's totals); blocks matched "
                      "by address\n  peak        allocated 3.00 GiB of 80.00 GiB (3.8%), reserved 3.50 GiB; in step 1, "
                      "2.00 ms after it began, 4 events\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("      2.00 GiB  66.7%  activations\n"), std::string::npos) << text;
  EXPECT_NE(text.find("      1.50 GiB  50.0%      12  forward   blocks.0.attn\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    ... 1 more\n"), std::string::npos) << text;  // --top 2 of 3 layers
  EXPECT_NE(text.find("saved for backward (activations freed in the step's backward, inferred): step 0 1.00 GiB, "
                      "step 1 2.00 GiB\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  AMP         projected peak 2.00 GiB under AMP"), std::string::npos) << text;
  EXPECT_NE(text.find("up to 40 fit in NVIDIA H100 80GB HBM3's 80.00 GiB now, 72 under AMP"), std::string::npos) << text;
  EXPECT_NE(text.find("  also        host: peak 4.0 KiB allocated, reserved unknown (not recorded), outside every "
                      "step (reconstructed)\n"),
            std::string::npos)
      << text;
}

TEST(SummaryTextTest, MemoryIsUnknownWithoutMemoryEvents) {
  const std::string text = ampscope::cli::summaryToText(ampscope::analyzer::TraceSummary{}, {}, 10);
  EXPECT_NE(text.find("memory      unknown: the trace records no memory events\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("\nMemory on"), std::string::npos) << text;
}
