// Tests of collector/gpu_recording.h's kinds: the default and the --kinds list.

#include <gtest/gtest.h>

#include "collector/gpu_recording.h"

namespace ampscope::collector {
namespace {

TEST(GpuKindsTest, TheDefaultRecordsDriverCallsForTheLibrariesThatLaunchThroughThem) {
  // cuBLAS launches its GEMMs with cuLaunchKernelEx: without driver calls they link to no launch.
  EXPECT_TRUE(GpuKinds{}.driver);
  EXPECT_EQ(formatGpuKinds(GpuKinds{}), "kernel,memcpy,memset,runtime,driver,sync,memory,nvtx");
}

TEST(GpuKindsTest, AListChoosesExactlyItsKindsAndAnUnknownOneNamesTheValidOnes) {
  const auto kinds = parseGpuKinds("kernel,runtime");
  ASSERT_TRUE(kinds.ok());
  EXPECT_EQ(formatGpuKinds(*kinds), "kernel,runtime");
  const auto all = parseGpuKinds("all");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(formatGpuKinds(*all), "kernel,memcpy,memset,runtime,driver,sync,memory,nvtx");
  const auto bad = parseGpuKinds("kernel,drivers");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("unknown kind 'drivers'"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("driver"), std::string::npos);
}

}  // namespace
}  // namespace ampscope::collector
