// What metric names say they measure: Perfworks names as CUPTI and Nsight Compute write them, and
// Nsight Systems' GPU-metric labels.

#include <gtest/gtest.h>

#include "analyzer/counters/metric_reading.h"

namespace ampscope::analyzer {
namespace {

TEST(MetricReading, ReadsTensorPipePercentagesOfTheWholePipeAndOfOneOp) {
  const MetricReading whole = readMetricName("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed");
  EXPECT_EQ(whole.meaning, MetricMeaning::kTensorPipeActive);
  EXPECT_EQ(whole.unit, MetricUnit::kPercent);
  EXPECT_EQ(whole.rollup, MetricRollup::kAvg);
  EXPECT_EQ(whole.pipe, "");
  const MetricReading hmma = readMetricName("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active");
  EXPECT_EQ(hmma.meaning, MetricMeaning::kTensorPipeActive);
  EXPECT_EQ(hmma.pipe, "hmma");
  EXPECT_EQ(readMetricName("sm__pipe_tensor_op_gmma_cycles_active.sum").pipe, "gmma");
  // Blackwell's CUPTI names one op's share a subpipe: not the whole pipe.
  EXPECT_EQ(readMetricName("sm__pipe_tensor_subpipe_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed").pipe, "hmma");
  EXPECT_EQ(readMetricName("sm__pipe_tensor_op_gmma_cycles_active.sum").unit, MetricUnit::kCount);
}

TEST(MetricReading, ReadsMmaInstructionsCyclesAndCudaCoreInstructions) {
  EXPECT_EQ(readMetricName("sm__inst_executed_pipe_tensor_op_hmma.sum").meaning, MetricMeaning::kTensorInstructions);
  EXPECT_EQ(readMetricName("smsp__inst_executed_pipe_tensor.sum").meaning, MetricMeaning::kTensorInstructions);
  EXPECT_EQ(readMetricName("sm__cycles_elapsed.sum").meaning, MetricMeaning::kCyclesElapsed);
  EXPECT_EQ(readMetricName("sm__cycles_active.avg").meaning, MetricMeaning::kSmActive);
  const MetricReading ffma = readMetricName("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum");
  EXPECT_EQ(ffma.meaning, MetricMeaning::kCudaCoreFpInstructions);
  EXPECT_EQ(ffma.precision, MathPrecision::kFp32Simt);
  EXPECT_EQ(ffma.operations, 2);
  const MetricReading hadd = readMetricName("smsp__sass_thread_inst_executed_op_hadd_pred_on.sum");
  EXPECT_EQ(hadd.precision, MathPrecision::kFp16);
  EXPECT_EQ(hadd.operations, 1);
  EXPECT_EQ(readMetricName("sm__sass_thread_inst_executed_op_dmul_pred_on.sum").precision, MathPrecision::kFp64);
}

TEST(MetricReading, LeavesRatesClocksAndOtherUnitsUnread) {
  // The SM clock, a rate of instructions, DRAM bytes: recorded and summed, but no meaning here.
  EXPECT_EQ(readMetricName("sm__cycles_elapsed.avg.per_second").meaning, MetricMeaning::kOther);
  EXPECT_EQ(readMetricName("sm__inst_executed_pipe_tensor.sum.per_second").meaning, MetricMeaning::kOther);
  EXPECT_EQ(readMetricName("dram__bytes_read.sum").meaning, MetricMeaning::kOther);
  EXPECT_EQ(readMetricName("gpu__time_duration.sum").meaning, MetricMeaning::kOther);
  EXPECT_EQ(readMetricName("").meaning, MetricMeaning::kOther);
  EXPECT_EQ(readMetricName("__").meaning, MetricMeaning::kOther);
}

TEST(MetricReading, ReadsNsightSystemsLabelsAsPercentages) {
  const MetricReading tensor = readMetricName("Tensor Active [Throughput %]");
  EXPECT_EQ(tensor.meaning, MetricMeaning::kTensorPipeActive);
  EXPECT_EQ(tensor.unit, MetricUnit::kPercent);
  EXPECT_EQ(readMetricName("Tensor Active").meaning, MetricMeaning::kTensorPipeActive);
  EXPECT_EQ(readMetricName("SM Active").meaning, MetricMeaning::kSmActive);
  EXPECT_EQ(readMetricName("SMs Active [Throughput %]").meaning, MetricMeaning::kSmActive);
  EXPECT_EQ(readMetricName("DRAM Read Bandwidth [Throughput %]").meaning, MetricMeaning::kOther);
  EXPECT_EQ(readMetricName("PCIe RX Throughput [Bytes]").meaning, MetricMeaning::kOther);
}

}  // namespace
}  // namespace ampscope::analyzer
