#include "cli/diff_command.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "../test_support.h"
#include "cli/analyze_command.h"

namespace ampscope::cli {
namespace {

TEST(DiffCommandTest, WorkersPairShowsMeasuredSpeedupBesideThePipelineProjection) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(workers0, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  AMPSCOPE_REQUIRE_SHARED_TRACE(workers4, "kineto-v100-resnet50-workers4/worker0.1623212756351.pt.trace.json.gz");
  std::ostringstream out;
  std::ostringstream err;
  ASSERT_EQ(runDiff({workers0, workers4, true}, out, err), kExitOk) << err.str();
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  // Steady steps of 174.6 ms against 131.3 ms (ProfilerStep#6..#10 of each file).
  EXPECT_NEAR(doc.at("measured_speedup").get<double>(), 1.33, 0.01);
  EXPECT_EQ(doc.at("a_projections").at(0).at("what"), "hide the input pipeline");
  EXPECT_GT(doc.at("a_projections").at(0).at("speedup").get<double>(), 1.3);
  // Only the pipeline changed: the convolutions' GPU time per step is the same in both runs.
  bool conv_found = false;
  for (const auto& op : doc.at("operators")) {
    if (op.at("name") != "aten::conv2d") continue;
    conv_found = true;
    EXPECT_NEAR(op.at("speedup").get<double>(), 1.0, 0.05);
  }
  EXPECT_TRUE(conv_found);
}

TEST(DiffCommandTest, BadSecondTraceIsReportedWithExitCodeTwo) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(workers0, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  test::ScratchDir dir;
  std::ostringstream out;
  std::ostringstream err;
  const std::string missing = dir.file("missing.json");
  EXPECT_EQ(runDiff({workers0, missing, false}, out, err), kExitBadInput);
  EXPECT_NE(err.str().find(missing), std::string::npos);
  EXPECT_TRUE(out.str().empty());
}

}  // namespace
}  // namespace ampscope::cli
