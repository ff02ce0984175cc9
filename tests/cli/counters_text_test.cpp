// The hardware counters in `ampscope analyze`'s text (cli/counters_text.h): a summary filled by hand
// as the counter analysis fills it (tests/reports/counter_fixture.h).

#include <gtest/gtest.h>

#include <string>

#include "cli/summary_text.h"
#include "tests/reports/counter_fixture.h"

namespace ampscope::cli {
namespace {

TEST(CountersTextTest, HeadLineSaysWhatWasMeasuredTheShareAndTheTimeItCovers) {
  const std::string text = summaryToText(test::summaryWithCounters(), {}, 10);
  EXPECT_NE(text.find("counters    2 kernel names measured per kernel, 1 sampled series; tensor pipe active 80.0% over "
                      "6.00 ms of 7.00 ms kernel time (85.7% covered): 6.00 ms on Tensor Cores, 0 ns idle\n"
                      "            names and counters DISAGREE on 1 kernel (Hardware counters below)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("            by confidence: measured 2.00 ms, high 0 ns, medium 0 ns, low 0 ns\n"), std::string::npos)
      << text;
}

TEST(CountersTextTest, SectionListsTheDisagreementsBeforeTheMeasuredKernels) {
  const std::string text = summaryToText(test::summaryWithCounters(), {}, 10);
  const std::size_t section = text.find("\nHardware counters (measured Tensor Core use");
  ASSERT_NE(section, std::string::npos) << text;
  const std::size_t disagree =
      text.find(std::string("  DISAGREE    ") + test::kCountedSimt + ": the name says not on Tensor Cores (sgemm, high "
                "confidence); the counters say on Tensor Cores, tensor pipe 85.0% active", section);
  const std::size_t table = text.find("GPU time    measured   active", section);
  ASSERT_NE(disagree, std::string::npos) << text;
  ASSERT_NE(table, std::string::npos) << text;
  EXPECT_LT(disagree, table);
  EXPECT_NE(text.find(std::string("    4.00 ms    85.0%       2/2  per-kernel ranges    ") + test::kCountedSimt, section),
            std::string::npos)
      << text;
  // The FP instruction counts of the Tensor Core GEMM, under it: CUDA-core work, not Tensor Core.
  EXPECT_NE(text.find(std::string(test::kCountedTensorCore) + "\n" + std::string(68, ' ') +
                      "CUDA-core FP operations: FP32 1024 FLOP\n", section),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  sampled     GPU 0 · Tensor Active [Throughput %] (share): 3 samples over 5.00 ms\n", section),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  NOT used           1  profiler range without a kernel name; first at traceEvents element at "
                      "byte offset 42\n", section),
            std::string::npos)
      << text;
}

TEST(CountersTextTest, TopCutsTheMeasuredKernelsAndSaysHowManyMore) {
  const std::string text = summaryToText(test::summaryWithCounters(), {}, 1);
  EXPECT_NE(text.find("  ... 1 more in --json and counters.csv\n"), std::string::npos) << text;
}

TEST(CountersTextTest, WithoutCountersNothingOfThemIsPrinted) {
  const std::string text = summaryToText(test::summaryWithoutCounters(), {}, 10);
  EXPECT_EQ(text.find("counters    "), std::string::npos) << text;
  EXPECT_EQ(text.find("Hardware counters"), std::string::npos) << text;
  EXPECT_EQ(text.find("measured"), std::string::npos) << text;
  EXPECT_EQ(text.find("by confidence"), std::string::npos) << text;  // every verdict high: no line, as before
}

}  // namespace
}  // namespace ampscope::cli
