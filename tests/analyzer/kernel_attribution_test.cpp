// The per-kernel table: each kernel's verdict, origin, op row and step, worked out once, and the
// tables summed from it agreeing with it.
#include "analyzer/model/kernel_attribution.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "analyzer/core/operator_labels.h"
#include "analyzer/run_analysis.h"
#include "analyzer/summary/trace_summary.h"
#include "tests/analyzer/imported_trace.h"
#include "tests/test_support.h"

namespace ampscope::analyzer {
namespace {

using trace::Index;
using trace::kNone;

constexpr std::int64_t kStepNs = 1000;
constexpr int kSteps = 4;

// Four steps of one layer, Linear_0 (aten::linear with shapes, around aten::addmm without, whose
// GEMM kernel does the math, and aten::add_, an element-wise kernel), then aten::relu outside any
// layer, and a kernel whose launch the trace lacks.
class KernelAttributionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    thread_ = trace_.threadIndex(1, 1);
    std::uint64_t correlation = 0;
    for (int s = 0; s < kSteps; ++s) {
      const std::int64_t at = s * kStepNs;
      addRange(fmtStep(s), at, at + kStepNs, trace::RangeKind::kAnnotation);
      addRange("nn.Module: Linear_0", at + 100, at + 600, trace::RangeKind::kPython);
      addRange("aten::linear", at + 150, at + 500, trace::RangeKind::kOperator, "[[8, 16], [32, 16], [32]]");
      addRange("aten::addmm", at + 200, at + 400, trace::RangeKind::kOperator);
      addLaunchedKernel(++correlation, at + 250, "ampere_sgemm_128x64_tn");
      addRange("aten::add_", at + 420, at + 480, trace::RangeKind::kOperator, "[[8, 32], [8, 32], []]");
      addLaunchedKernel(++correlation, at + 450, "vectorized_elementwise_kernel");
      addRange("aten::relu", at + 700, at + 800, trace::RangeKind::kOperator, "[[8, 32]]");
      addLaunchedKernel(++correlation, at + 750, "vectorized_elementwise_kernel");
    }
    // A kernel with no launch call: started inside the third step, in no op.
    trace::Kernel lost;
    lost.correlation_id = 999;
    lost.start_ns = 2 * kStepNs + 900;
    lost.end_ns = lost.start_ns + 20;
    lost.name = trace_.strings.intern("lost_kernel");
    trace_.kernels.push_back(lost);
    trace_.sortByTime();
    summary_ = summarizeTrace(trace_, test::correlateAsImported(trace_));
  }

  static std::string fmtStep(int s) { return "ProfilerStep#" + std::to_string(s + 1); }

  void addRange(const std::string& name, std::int64_t start, std::int64_t end, trace::RangeKind kind,
                const std::string& shapes = "") {
    trace::Range range;
    range.name = trace_.strings.intern(name);
    range.start_ns = start;
    range.end_ns = end;
    range.thread = thread_;
    range.kind = kind;
    range.shapes = trace_.strings.intern(shapes);
    trace_.ranges.push_back(range);
  }

  void addLaunchedKernel(std::uint64_t correlation, std::int64_t at, const char* name) {
    trace::LaunchCall launch;
    launch.correlation_id = correlation;
    launch.start_ns = at;
    launch.end_ns = at + 5;
    launch.thread = thread_;
    launch.name = trace_.strings.intern("cudaLaunchKernel");
    trace_.launches.push_back(launch);
    trace::Kernel kernel;
    kernel.correlation_id = correlation;
    kernel.start_ns = at + 10;
    kernel.end_ns = at + 40;
    kernel.name = trace_.strings.intern(name);
    trace_.kernels.push_back(kernel);
  }

  std::string_view opOf(Index range) const {
    return range == kNone ? std::string_view("(none)") : opName(trace_, trace_.ranges[static_cast<std::size_t>(range)]);
  }
  std::string_view kernelName(std::size_t k) const { return trace_.str(trace_.kernels[k].name); }
  // The kernel launched at that time (a launch's time), or the one with no launch.
  std::size_t kernelLaunchedAt(std::int64_t at) const {
    for (std::size_t k = 0; k < trace_.kernels.size(); ++k) {
      const Index launch = trace_.kernels[k].launch;
      if (launch != kNone && trace_.launches[static_cast<std::size_t>(launch)].start_ns == at) return k;
    }
    ADD_FAILURE() << "no kernel launched at " << at;
    return 0;
  }

  trace::Trace trace_;
  Index thread_ = kNone;
  TraceSummary summary_;
};

TEST_F(KernelAttributionTest, AGemmKernelBelongsToItsOpItsTopLevelCallItsShapedEligibleOpAndItsLayer) {
  const KernelAttribution& table = summary_.kernel_attribution;
  ASSERT_EQ(table.kernels.size(), trace_.kernels.size());
  const std::size_t gemm = kernelLaunchedAt(kStepNs + 250);
  const KernelOrigin& origin = table.originOf(gemm);
  EXPECT_EQ(origin.op_range, trace_.kernels[gemm].op_range);
  EXPECT_EQ(opOf(origin.op_range), "aten::addmm");
  EXPECT_EQ(opOf(origin.top_level_op), "aten::linear");
  EXPECT_EQ(opOf(origin.eligible_op), "aten::addmm");
  EXPECT_EQ(opOf(origin.shaped_op), "aten::linear");
  EXPECT_EQ(trace_.str(origin.layer), "Linear_0");
  EXPECT_FALSE(table.groupsOperators());
  EXPECT_EQ(table.origins.label(origin.group), "Linear_0");
  EXPECT_EQ(table.origins.label(origin.op), "aten::linear");  // what the user called in the layer
  // Matrix work: the model's row is the shaped eligible op's.
  const KernelOwner& owner = table.kernels[gemm];
  EXPECT_EQ(opOf(owner.work_op), "aten::linear");
  ASSERT_GE(owner.op_row, 0);
  const OpRow& row = summary_.op_performance.rows[static_cast<std::size_t>(owner.op_row)];
  EXPECT_EQ(row.op, "aten::linear");
  EXPECT_EQ(row.shapes, "[[8, 16], [32, 16], [32]]");
  EXPECT_EQ(table.verdictOf(gemm).precision, MathPrecision::kFp32Simt);
}

TEST_F(KernelAttributionTest, AnElementWiseKernelDoesItsOwnOpsWorkUnderTheEligibleOpAroundIt) {
  const KernelAttribution& table = summary_.kernel_attribution;
  const std::size_t add = kernelLaunchedAt(kStepNs + 450);
  const KernelOrigin& origin = table.originOf(add);
  EXPECT_EQ(opOf(origin.op_range), "aten::add_");
  EXPECT_EQ(opOf(origin.eligible_op), "aten::linear");
  EXPECT_EQ(opOf(table.kernels[add].work_op), "aten::add_");
  ASSERT_GE(table.kernels[add].op_row, 0);
  EXPECT_EQ(summary_.op_performance.rows[static_cast<std::size_t>(table.kernels[add].op_row)].op, "aten::add_");
  // The relu outside the layer: no group, no eligible op.
  const std::size_t relu = kernelLaunchedAt(kStepNs + 750);
  EXPECT_EQ(opOf(table.originOf(relu).top_level_op), "aten::relu");
  EXPECT_EQ(table.originOf(relu).group, -1);
  EXPECT_EQ(table.originOf(relu).eligible_op, kNone);
  // One verdict per kernel name: the element-wise kernel of both ops shares it.
  EXPECT_EQ(table.kernels[add].verdict, table.kernels[relu].verdict);
  EXPECT_EQ(table.verdicts.size(), 3u);  // the GEMM, the element-wise kernel, the lost kernel
}

TEST_F(KernelAttributionTest, EachKernelCountsInTheStepWhoseHostRangeLaunchedIt) {
  const KernelAttribution& table = summary_.kernel_attribution;
  ASSERT_EQ(summary_.iterations.iterations.size(), static_cast<std::size_t>(kSteps));
  for (int s = 0; s < kSteps; ++s) {
    for (const std::int64_t offset : {250, 450, 750}) {
      const std::size_t k = kernelLaunchedAt(s * kStepNs + offset);
      EXPECT_EQ(table.kernels[k].step, s) << kernelName(k);
      // The first step is warm-up: the projections' window starts at the second.
      EXPECT_EQ(table.kernels[k].steady, s > 0) << kernelName(k);
    }
  }
}

TEST_F(KernelAttributionTest, AKernelWithoutALaunchHasNoOriginButARowOfItsNameAndTheStepItStartedIn) {
  const KernelAttribution& table = summary_.kernel_attribution;
  std::size_t lost = trace_.kernels.size();
  for (std::size_t k = 0; k < trace_.kernels.size(); ++k) {
    if (kernelName(k) == "lost_kernel") lost = k;
  }
  ASSERT_LT(lost, trace_.kernels.size());
  const KernelOwner& owner = table.kernels[lost];
  EXPECT_EQ(owner.origin, -1);
  EXPECT_EQ(table.originOf(lost).group, -1);
  EXPECT_EQ(owner.work_op, kNone);
  ASSERT_GE(owner.op_row, 0);
  EXPECT_EQ(summary_.op_performance.rows[static_cast<std::size_t>(owner.op_row)].op, "lost_kernel");
  EXPECT_EQ(owner.step, 2);
  EXPECT_TRUE(owner.steady);
}

TEST_F(KernelAttributionTest, TheLayerAndKernelTablesAddUpTheTablesAnswers) {
  const KernelAttribution& table = summary_.kernel_attribution;
  // Kernel time per (group, pass) from the table, against the layer table's rows.
  std::map<std::pair<std::string, trace::Phase>, std::int64_t> time_by_group;
  for (std::size_t k = 0; k < trace_.kernels.size(); ++k) {
    const KernelOrigin& origin = table.originOf(k);
    if (origin.group < 0) continue;
    time_by_group[{std::string(table.origins.label(origin.group)), origin.phase}] +=
        trace_.kernels[k].end_ns - trace_.kernels[k].start_ns;
  }
  ASSERT_EQ(summary_.layer_table.rows.size(), time_by_group.size());
  for (const LayerRow& row : summary_.layer_table.rows) {
    EXPECT_EQ(row.time_ns, (time_by_group[{row.layer, row.pass}])) << row.layer;
  }
  // Each kernel row's verdict is its kernels'.
  for (std::size_t k = 0; k < trace_.kernels.size(); ++k) {
    for (const KernelRow& row : summary_.kernels) {
      if (row.name == kernelName(k)) {
        EXPECT_EQ(row.verdict.rule_id, table.verdictOf(k).rule_id) << row.name;
      }
    }
  }
}

// On every shared trace, the op row each kernel points at is the row of the op it did the work of.
TEST(KernelAttributionSharedTraces, EachKernelsOpRowIsTheRowOfItsWorkOp) {
  const std::filesystem::path root = test::sharedTrace("");
  if (!std::filesystem::exists(root)) GTEST_SKIP() << "the shared traces are not there";
  int traces = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    const std::string path = entry.path().string();
    if (!entry.is_regular_file() || !(path.ends_with(".json.gz") || path.ends_with(".sqlite"))) continue;
    auto run = analyzeFile(path);
    ASSERT_TRUE(run.ok()) << path << ": " << run.error().message;
    ++traces;
    const trace::Trace& t = run->trace;
    const KernelAttribution& table = run->summary.kernel_attribution;
    ASSERT_EQ(table.kernels.size(), t.kernels.size()) << path;
    for (std::size_t k = 0; k < t.kernels.size(); ++k) {
      const KernelOwner& owner = table.kernels[k];
      ASSERT_GE(owner.op_row, 0) << path;
      const OpRow& row = run->summary.op_performance.rows[static_cast<std::size_t>(owner.op_row)];
      if (owner.work_op == kNone) {
        EXPECT_EQ(row.op, t.str(t.kernels[k].name)) << path;
        continue;
      }
      const trace::Range& op = t.ranges[static_cast<std::size_t>(owner.work_op)];
      EXPECT_EQ(row.op, opName(t, op)) << path;
      EXPECT_EQ(row.shapes, t.str(op.shapes)) << path;
      EXPECT_EQ(table.originOf(k).op_range, t.kernels[k].op_range) << path;
    }
  }
  EXPECT_GT(traces, 0);
}

}  // namespace
}  // namespace ampscope::analyzer
