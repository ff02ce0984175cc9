#include "cli/analyze_command.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "../test_support.h"

namespace ampscope::cli {
namespace {

nlohmann::json analyzeJson(const std::string& path) {
  std::ostringstream out;
  std::ostringstream err;
  AnalyzeOptions options;
  options.trace_path = path;
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
  options.trace_path = path;
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
  options.trace_path = path;
  ASSERT_EQ(runAnalyze(options, out, err), kExitOk);
  EXPECT_NE(out.str().find("Tesla V100-SXM2-16GB"), std::string::npos);
  EXPECT_NE(out.str().find("284 kernels"), std::string::npos);
  EXPECT_NE(out.str().find("MmBackward"), std::string::npos);
}

}  // namespace
}  // namespace ampscope::cli
