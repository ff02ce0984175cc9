// `ampscope train --profile` end to end on the CPU: the real binary, a synthetic dataset, and the
// profile read back.

#include <sys/wait.h>

#include <cstdlib>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "tests/test_support.h"
#include "trace/db/profile_reader.h"

namespace ampscope {
namespace {

TEST(TrainProfileTest, RecordsStepsLayerRangesHostOpsAndPerStepCountersOfACpuRun) {
  test::ScratchDir dir;
  const std::string profile = dir.file("train.sqlite");
  const std::string command = std::string(AMPSCOPE_BINARY) +
                              " train --device cpu --data synthetic --model mlp --hidden 40 --steps 12 --batch 32"
                              " --precision amp-fp16 --workers 0 --profile " + profile + " > " + dir.file("log") + " 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_EQ(WEXITSTATUS(status), 0) << test::readFile(dir.file("log"));
  EXPECT_NE(test::readFile(dir.file("log")).find("profile written to"), std::string::npos);

  auto t = trace::db::readProfile(profile);
  ASSERT_TRUE(t.ok()) << t.error().message;
  std::set<std::string> steps;
  std::size_t layer_ranges = 0;
  for (const trace::Range& r : t->ranges) {
    const std::string_view name = t->str(r.name);
    if (name.substr(0, 5) == "step ") steps.insert(std::string(name));
    if (name.substr(0, 4) == "fc1 ") ++layer_ranges;
    EXPECT_EQ(t->str(r.domain), "ampscope") << name;
  }
  // Twelve steps, each with fc1's forward and backward range.
  EXPECT_EQ(steps.size(), 12u);
  EXPECT_EQ(layer_ranges, 24u);

  ASSERT_EQ(t->devices.size(), 1u);
  EXPECT_EQ(t->devices[0].kind, trace::DeviceKind::kCpu);
  std::size_t gemms = 0;
  for (const trace::Kernel& k : t->kernels) gemms += t->str(k.name) == "cpu gemm float16" ? 1 : 0;
  // fc1 and fc2: one forward and two backward GEMMs each, per step (evaluation adds more).
  EXPECT_GE(gemms, 12u * 6u);
  EXPECT_EQ(t->kernels.size(), t->launches.size());

  std::size_t loss_scales = 0, skipped = 0, fc1_values = 0;
  for (const trace::Counter& c : t->counters) {
    const std::string_view name = t->str(c.name);
    loss_scales += name == "loss_scale" ? 1 : 0;
    skipped += name == "skipped_step" ? 1 : 0;
    if (name == "gradient_values/fc1.weight") {
      ++fc1_values;
      EXPECT_EQ(c.value, 40.0 * 784.0);
    }
  }
  EXPECT_EQ(loss_scales, 12u);
  EXPECT_EQ(skipped, 12u);
  EXPECT_EQ(fc1_values, 12u);
  EXPECT_FALSE(t->gradient_bins.empty());
  EXPECT_TRUE(t->import_stats.lost.empty());
}

TEST(TrainProfileTest, RefusesAProfilePathThatCannotBeWrittenBeforeTraining) {
  test::ScratchDir dir;
  const std::string command = std::string(AMPSCOPE_BINARY) +
                              " train --device cpu --data synthetic --steps 2 --profile /nonexistent-dir/p.sqlite > " +
                              dir.file("log") + " 2>&1";
  const int status = std::system(command.c_str());
  EXPECT_NE(WEXITSTATUS(status), 0);
  const std::string log = test::readFile(dir.file("log"));
  EXPECT_NE(log.find("--profile"), std::string::npos) << log;
  EXPECT_NE(log.find("/nonexistent-dir/p.sqlite"), std::string::npos) << log;
  EXPECT_EQ(log.find("test accuracy"), std::string::npos) << log;
}

}  // namespace
}  // namespace ampscope
