#include "cli/diff_command.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../test_support.h"
#include "analyzer/normalise/range_normaliser.h"
#include "cli/analyze_command.h"
#include "tests/analyzer/inference_run.h"
#include "tests/analyzer/synthetic_run.h"
#include "trace/db/profile_writer.h"

namespace ampscope::cli {
namespace {

constexpr const char* kWorkers0 = "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz";
constexpr const char* kWorkers4 = "kineto-v100-resnet50-workers4/worker0.1623212756351.pt.trace.json.gz";

DiffOptions diffOptions(const std::string& a, const std::string& b, bool json = false) {
  DiffOptions options;
  options.baseline_path = a;
  options.candidate_path = b;
  options.json = json;
  return options;
}

TEST(DiffCommandTest, WorkersPairIsADataLoadingChangeScoredAgainstThePipelineProjection) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(workers0, kWorkers0);
  AMPSCOPE_REQUIRE_SHARED_TRACE(workers4, kWorkers4);
  std::ostringstream out;
  std::ostringstream err;
  ASSERT_EQ(runDiff(diffOptions(workers0, workers4, true), out, err), kExitOk) << err.str();
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc.at("change").at("kind"), "data_loading");
  EXPECT_EQ(doc.at("measured_basis"), "steps");
  EXPECT_NE(doc.at("change").at("reason").get<std::string>().find("exposed data loading"), std::string::npos);
  // Steady steps of 174.6 ms against 131.3 ms (ProfilerStep#6..#10 of each file).
  EXPECT_NEAR(doc.at("measured_speedup").get<double>(), 1.33, 0.01);
  EXPECT_EQ(doc.at("a_projections").at(0).at("what"), "hide the input pipeline");
  EXPECT_GT(doc.at("a_projections").at(0).at("speedup").get<double>(), 1.3);
  const double predicted = doc.at("predicted_speedup").get<double>();
  EXPECT_GT(predicted, 1.3);
  const double error = doc.at("prediction_error").get<double>();
  EXPECT_TRUE(std::isfinite(error));
  EXPECT_NEAR(error, std::log(predicted / doc.at("measured_speedup").get<double>()), 1e-12);
  // Only the pipeline changed: A's op rows pair with B's by name and shapes, each predicted at 1x.
  std::size_t convolutions = 0;
  for (const auto& op : doc.at("operators")) {
    if (op.at("name") != "aten::cudnn_convolution") continue;
    ++convolutions;
    EXPECT_EQ(op.at("pairing"), "name_and_shapes");
    EXPECT_EQ(op.at("shapes"), op.at("b_shapes"));
    EXPECT_EQ(op.at("predicted_speedup").get<double>(), 1.0);
    EXPECT_GT(op.at("measured_speedup").get<double>(), 0.5);
  }
  EXPECT_GT(convolutions, 10u);
  EXPECT_EQ(doc.at("operator_pairing").at("only_a"), 0);
}

TEST(DiffCommandTest, TextSaysTheChangeTheErrorAndTheTopOps) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(workers0, kWorkers0);
  AMPSCOPE_REQUIRE_SHARED_TRACE(workers4, kWorkers4);
  std::ostringstream out;
  std::ostringstream err;
  DiffOptions options = diffOptions(workers0, workers4);
  options.top = 3;
  ASSERT_EQ(runDiff(options, out, err), kExitOk) << err.str();
  const std::string text = out.str();
  EXPECT_NE(text.find("change        data loading: "), std::string::npos) << text;
  EXPECT_NE(text.find("basis         per steady step (both runs have steady steps)"), std::string::npos) << text;
  // 1.32x to 1.33x: the steps' host ranges give 1.33x, their spans to the end of the GPU work they
  // launched 1.32x (the JSON test checks the number).
  EXPECT_NE(text.find("measured 1.3"), std::string::npos) << text;
  EXPECT_NE(text.find("ln(predicted / measured) +"), std::string::npos) << text;
  EXPECT_NE(text.find("% above measured"), std::string::npos) << text;
  // --top 3: three op rows, each with a measured and a predicted speedup.
  std::istringstream lines(text);
  std::string line;
  std::size_t rows = 0;
  bool in_table = false;
  while (std::getline(lines, line)) {
    if (line.find("operator (top 3 by A's time)") != std::string::npos) {
      in_table = true;
      continue;
    }
    if (!in_table) continue;
    if (line.empty()) break;
    ++rows;
    EXPECT_NE(line.find("aten::"), std::string::npos) << line;
    EXPECT_NE(line.find("1.00x"), std::string::npos) << line;  // the predicted speedup
  }
  EXPECT_EQ(rows, 3u) << text;
}

// An FP32 run and its AMP run of one small model on an A100, saved as ampscope profiles.
TEST(DiffCommandTest, Fp32AgainstAmpIsDetectedAndEveryGemmIsScored) {
  test::ScratchDir dir;
  const auto save = [&](const char* name, trace::Trace trace) {
    analyzer::import::normaliseRanges(trace);
    const std::string path = dir.file(name);
    EXPECT_TRUE(trace::db::writeProfile(path, trace).ok());
    return path;
  };
  const std::string shapes = "[[512,2048],[2048,2048],[2048]]";
  const std::string a = save("fp32.ampscope", test::syntheticRun({{"aten::linear", shapes, "[\"float\",\"float\",\"float\"]",
                                                                    "ampere_sgemm_128x64_tn", 300'000}}));
  const std::string b = save("amp.ampscope", test::syntheticRun({{"aten::linear", shapes, "[\"c10::Half\",\"c10::Half\",\"c10::Half\"]",
                                                                   "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn", 40'000}}));
  std::ostringstream out;
  std::ostringstream err;
  ASSERT_EQ(runDiff(diffOptions(a, b, true), out, err), kExitOk) << err.str();
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc.at("change").at("kind"), "amp");
  ASSERT_EQ(doc.at("operators").size(), 1u);
  const auto& op = doc.at("operators").at(0);
  EXPECT_EQ(op.at("name"), "aten::linear");
  EXPECT_EQ(op.at("shapes"), shapes);
  EXPECT_NEAR(op.at("measured_speedup").get<double>(), 7.5, 1e-9);
  EXPECT_GT(op.at("predicted_speedup").get<double>(), 2.0);
  EXPECT_TRUE(doc.at("prediction_error").is_number());

  std::ostringstream text;
  ASSERT_EQ(runDiff(diffOptions(a, b), text, err), kExitOk) << err.str();
  EXPECT_NE(text.str().find("change        AMP (FP16/BF16 on Tensor Cores): "), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("aten::linear " + shapes), std::string::npos) << text.str();
}

// One inference call of a linear layer on an H100, in FP32 and under BF16 autocast, saved as
// ampscope profiles: no steps, so the GPU work of the traces is compared and scored.
TEST(DiffCommandTest, InferenceWithoutStepsIsScoredOnTheGpuWorkAndSaysSo) {
  test::ScratchDir dir;
  const auto save = [&](const char* name, trace::Trace trace) {
    analyzer::import::normaliseRanges(trace);
    const std::string path = dir.file(name);
    EXPECT_TRUE(trace::db::writeProfile(path, trace).ok());
    return path;
  };
  const std::string shapes = "[[512,2048],[2048,2048],[2048]]";
  const std::string a = save("fp32.ampscope", test::inferenceRun({{"aten::linear", shapes, "", "", "[\"float\",\"float\",\"float\"]",
                                                                   "ampere_sgemm_128x64_tn", 300'000}}, 2));
  const std::string b = save("bf16.ampscope", test::inferenceRun({{"aten::linear", shapes, "", "", "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\"]",
                                                                   "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", 40'000}}, 2));
  std::ostringstream out;
  std::ostringstream err;
  ASSERT_EQ(runDiff(diffOptions(a, b, true), out, err), kExitOk) << err.str();
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc.at("change").at("kind"), "amp");
  EXPECT_EQ(doc.at("measured_basis"), "gpu_work");
  EXPECT_EQ(doc.at("basis_reason"), "neither run has steady steps");
  EXPECT_EQ(doc.at("a_step_ns"), 0);
  const auto& work = doc.at("gpu_work");
  EXPECT_EQ(work.at("a_busy_ns"), 600'000);
  EXPECT_EQ(work.at("b_busy_ns"), 80'000);
  EXPECT_EQ(work.at("work_ratio"), 1.0);
  EXPECT_NEAR(doc.at("measured_speedup").get<double>(), 7.5, 1e-9);
  EXPECT_NEAR(work.at("busy_speedup").get<double>(), 7.5, 1e-9);
  const double predicted = doc.at("predicted_speedup").get<double>();
  EXPECT_GT(predicted, 2.0);
  EXPECT_NEAR(doc.at("prediction_error").get<double>(), std::log(predicted / 7.5), 1e-12);
  ASSERT_EQ(doc.at("operators").size(), 1u);
  const auto& op = doc.at("operators").at(0);
  EXPECT_TRUE(op.at("a_ns_per_step").is_null());
  EXPECT_EQ(op.at("a_trace_ns"), 600'000);
  EXPECT_EQ(op.at("a_calls"), 2);
  EXPECT_EQ(op.at("b_calls"), 2);
  EXPECT_NEAR(op.at("measured_speedup").get<double>(), 7.5, 1e-9);

  std::ostringstream text;
  ASSERT_EQ(runDiff(diffOptions(a, b), text, err), kExitOk) << err.str();
  const std::string t = text.str();
  EXPECT_NE(t.find("basis         per trace's GPU work, no steps (neither run has steady steps)"), std::string::npos) << t;
  EXPECT_NE(t.find("GPU work      A busy 600.0 us"), std::string::npos) << t;
  EXPECT_NE(t.find("measured 7.50x of the GPU busy time"), std::string::npos) << t;
  EXPECT_NE(t.find("the GPU work's ln(predicted / measured) "), std::string::npos) << t;
  EXPECT_EQ(t.find("steady step   A"), std::string::npos) << t;  // no steps to show
  EXPECT_NE(t.find("per call"), std::string::npos) << t;
}

TEST(DiffCommandTest, BadSecondTraceIsReportedWithExitCodeTwo) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(workers0, kWorkers0);
  test::ScratchDir dir;
  std::ostringstream out;
  std::ostringstream err;
  const std::string missing = dir.file("missing.json");
  EXPECT_EQ(runDiff(diffOptions(workers0, missing), out, err), kExitBadInput);
  EXPECT_NE(err.str().find(missing), std::string::npos);
  EXPECT_TRUE(out.str().empty());
}

}  // namespace
}  // namespace ampscope::cli
