// `ampscope record --metrics tensor` of a small GEMM on a real GPU (CTest label gpu): the profile
// holds the tensor pipe's samples, busy while the GEMMs ran, beside the kernels. Skips where no
// device is visible, and says so where the driver allows profiling to administrators only.

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "collector/hardware_metrics.h"
#include "tests/test_support.h"
#include "trace/db/profile_reader.h"

namespace ampscope::collector {
namespace {

constexpr int kNoDevice = 77;

TEST(MetricsGpuTest, RecordsTheTensorPipeBusyWhileAGemmRuns) {
  test::ScratchDir dir;
  const std::string profile = dir.file("gemm.sqlite");
  const std::string command = std::string(AMPSCOPE_BINARY) + " record --metrics tensor -o " + profile + " -- " +
                              TENSOR_GEMM_PROGRAM + " > " + dir.file("log") + " 2>&1";
  const int status = std::system(command.c_str());
  const std::string log = test::readFile(dir.file("log"));
  if (WEXITSTATUS(status) == kNoDevice) GTEST_SKIP() << "no usable GPU: " << log;
  ASSERT_EQ(WEXITSTATUS(status), 0) << log;
  auto t = trace::db::readProfile(profile);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_GE(t->kernels.size(), 40u) << log;
  if (t->import_stats.lost.count(std::string(kPrivilegeNote)) != 0) {
    EXPECT_TRUE(t->metric_samples.empty());
    GTEST_SKIP() << "this machine restricts profiling to administrators; the note was left: " << log;
  }
  ASSERT_FALSE(t->metric_samples.empty()) << log;
  double busiest = 0.0;
  for (const trace::MetricSample& s : t->metric_samples) {
    if (t->str(s.metric) == "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed") {
      busiest = std::max(busiest, s.value);
    }
    EXPECT_LE(s.start_ns, s.end_ns);
  }
  EXPECT_GT(busiest, 10.0) << "the tensor pipe never looked busy while the WMMA GEMMs ran\n" << log;
  // Samples on the kernels' clock: the busiest overlaps the GEMMs' time.
  const auto [first, last] = std::minmax_element(t->kernels.begin(), t->kernels.end(),
                                                 [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
  EXPECT_LT(t->metric_samples.front().start_ns, last->end_ns) << log;
  EXPECT_GT(t->metric_samples.back().end_ns, first->start_ns) << log;
}

}  // namespace
}  // namespace ampscope::collector
