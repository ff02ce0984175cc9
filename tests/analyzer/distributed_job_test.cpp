// A job's pieces on small hand-made traces (the step split, one file's processes as ranks) and
// on the shared real ones: all 8 ranks of a DLRM step, and an Nsight export of two processes.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "../test_support.h"
#include "analyzer/job/process_split.h"
#include "analyzer/job_files.h"
#include "analyzer/steps/step_split.h"

namespace ampscope::analyzer {
namespace {

constexpr std::int64_t kUs = 1000;

trace::Kernel kernelOf(trace::Trace& trace, const char* name, std::int64_t start, std::int64_t end,
                       std::uint32_t device = 0, std::int64_t pid = 1) {
  trace::Kernel k;
  k.name = trace.strings.intern(name);
  k.start_ns = start;
  k.end_ns = end;
  k.device = device;
  k.pid = pid;
  return k;
}

// A step [0, 100) us: a GEMM [0, 40), an all-reduce [30, 70) (10 us beside the GEMM, 30 us alone),
// 10 us of exposed data loading: compute 40, communication 40, exposed 30, idle 100-40-30-10 = 20.
TEST(StepSplitTest, AStepIsComputeExposedCommunicationDataAndIdle) {
  trace::Trace trace;
  trace.kernels.push_back(kernelOf(trace, "volta_sgemm_128x64_nn", 0, 40 * kUs));
  trace.kernels.push_back(kernelOf(trace, "ncclKernel_AllReduce_RING_LL_Sum_float", 30 * kUs, 70 * kUs));
  trace.sortByTime();
  IterationSummary iterations;
  iterations.iterations.push_back(
      {.number = 4, .start_ns = 0, .end_ns = 100 * kUs, .warmup = false, .host_start_ns = 0, .host_end_ns = 100 * kUs});
  DataPipelineExposure data;
  data.exposed_ns = {10 * kUs};
  const std::vector<StepSplit> steps = splitSteps(trace, iterations, data);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].number, 4);
  EXPECT_FALSE(steps[0].whole_window);
  EXPECT_EQ(steps[0].compute_ns, 40 * kUs);
  EXPECT_EQ(steps[0].communication_ns, 40 * kUs);
  EXPECT_EQ(steps[0].exposed_communication_ns, 30 * kUs);
  EXPECT_EQ(steps[0].data_ns, 10 * kUs);
  EXPECT_EQ(steps[0].idle_ns, 20 * kUs);

  // Without steps: one window from the first GPU record to the last.
  const std::vector<StepSplit> window = splitSteps(trace, IterationSummary{}, DataPipelineExposure{});
  ASSERT_EQ(window.size(), 1u);
  EXPECT_TRUE(window[0].whole_window);
  EXPECT_EQ(window[0].durationNs(), 70 * kUs);
  EXPECT_EQ(window[0].idle_ns, 0);
}

// Two processes on devices 1 and 0 with the same correlation ids: two parts, ordered by device,
// each with its own kernels, launches and ranges; the file's third process (no kernels) is no rank.
TEST(ProcessSplitTest, EachProcessThatRanKernelsIsARank) {
  trace::Trace trace;
  const trace::Index thread_a = trace.threadIndex(100, 100);
  const trace::Index thread_b = trace.threadIndex(200, 200);
  const trace::Index launcher = trace.threadIndex(300, 300);
  for (const auto& [thread, pid, device] : {std::tuple{thread_a, 100, 1u}, std::tuple{thread_b, 200, 0u}}) {
    trace::LaunchCall call;
    call.correlation_id = 7;
    call.thread = thread;
    trace.launches.push_back(call);
    trace::Kernel k = kernelOf(trace, "volta_sgemm_128x64_nn", 0, 10, device, pid);
    k.correlation_id = 7;
    trace.kernels.push_back(k);
    trace::Range range;
    range.thread = thread;
    range.end_ns = 20;
    trace.ranges.push_back(range);
  }
  trace::Range idle;
  idle.thread = launcher;
  trace.ranges.push_back(idle);
  EXPECT_TRUE(holdsSeveralRanks(trace));
  const std::vector<ProcessTrace> parts = splitByProcess(trace);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].pid, 200);  // device 0 first
  EXPECT_EQ(parts[1].pid, 100);
  for (const ProcessTrace& part : parts) {
    ASSERT_EQ(part.trace.kernels.size(), 1u);
    EXPECT_EQ(part.trace.kernels[0].pid, part.pid);
    ASSERT_EQ(part.trace.launches.size(), 1u);
    EXPECT_EQ(part.trace.threads[static_cast<std::size_t>(part.trace.launches[0].thread)].pid, part.pid);
    EXPECT_EQ(part.trace.ranges.size(), 1u);
    EXPECT_GT(part.trace.import_stats.skipped.size(), 0u);
  }
  trace.kernels.pop_back();
  EXPECT_FALSE(holdsSeveralRanks(trace));
  EXPECT_TRUE(splitByProcess(trace).empty());
}

// All 8 ranks of one DLRM step (SOURCES.md): ranks from distributedInfo, one clock (the files'
// epoch timestamps, which the collectives confirm), 5 send/recv and 3 all-reduce kernels per
// rank, exposed communication on every rank, a slowest rank named.
TEST(DistributedJobTest, TheEightDlrmRanksAreOneJobOnOneClock) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(folder, "kineto-v100-dlrm-8ranks");
  auto files = listTraceFiles({folder});
  ASSERT_TRUE(files) << files.error().message;
  ASSERT_EQ(files->size(), 8u);
  auto job = analyzeJobFiles(*files, {.analysis = {.gpu = {}, .threads = 2}, .progress = {}});
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_EQ(job->world_size, 8);
  ASSERT_EQ(job->ranks.size(), 8u);
  for (std::int32_t r = 0; r < 8; ++r) {
    const RankRow& row = job->ranks[static_cast<std::size_t>(r)];
    EXPECT_EQ(row.rank, r);
    EXPECT_EQ(row.origin, RankOrigin::kDistributedInfo);
    EXPECT_EQ(row.alignment, ClockAlignment::kRecordedClock) << "rank " << r;
    EXPECT_EQ(row.clock_offset_ns, 0);
    EXPECT_EQ(row.steady_steps, 1u);
    EXPECT_GT(row.exposed_communication_ns, 0) << "rank " << r;
    EXPECT_LE(row.exposed_communication_ns, row.communication_ns);
    ASSERT_TRUE(row.wait_ns.has_value()) << "rank " << r;
    EXPECT_LE(*row.wait_ns, row.communication_ns);
    const RankResult& result = job->rank_results[static_cast<std::size_t>(r)];
    EXPECT_EQ(result.clock, kUnixEpochClock);
    const auto count = [&](CollectiveKind kind) {
      return std::count_if(result.calls.begin(), result.calls.end(), [&](const CollectiveCall& c) { return c.kind == kind; });
    };
    EXPECT_EQ(count(CollectiveKind::kSendRecv), 5) << "rank " << r;
    EXPECT_EQ(count(CollectiveKind::kAllReduce), 3) << "rank " << r;
  }
  ASSERT_EQ(job->steps.size(), 1u);
  EXPECT_EQ(job->steps[0].number, 10);
  ASSERT_TRUE(job->slowest_rank.has_value());
  // The slowest is the rank the others wait for: the one that reaches the collectives latest after
  // the median rank, named by its arrivals (the collectives matched on every rank).
  EXPECT_EQ(job->slowest_basis, SlowestBasis::kArrivals);
  const RankRow& slowest = job->ranks[static_cast<std::size_t>(*job->slowest_rank)];
  for (const RankRow& row : job->ranks) {
    ASSERT_TRUE(row.late_ns.has_value()) << row.rank;
    EXPECT_LE(*row.late_ns, *slowest.late_ns);
  }
  EXPECT_TRUE(slowest.straggler);
  EXPECT_GE(job->imbalance, 1.0);
  ASSERT_EQ(job->collectives.size(), 2u);
  std::set<CollectiveKind> kinds;
  for (const CollectiveRow& row : job->collectives) kinds.insert(row.kind);
  EXPECT_EQ(kinds, (std::set<CollectiveKind>{CollectiveKind::kSendRecv, CollectiveKind::kAllReduce}));
  EXPECT_EQ(job->collectives[0].calls + job->collectives[1].calls, 64u);
}

// Reading the files on one thread or several gives the same job.
TEST(DistributedJobTest, ParallelReadingGivesTheSameJob) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(folder, "kineto-v100-dlrm-8ranks");
  auto files = listTraceFiles({folder});
  ASSERT_TRUE(files);
  auto one = analyzeJobFiles(*files, {.analysis = {.gpu = {}, .threads = 1}, .progress = {}});
  auto four = analyzeJobFiles(*files, {.analysis = {.gpu = {}, .threads = 4}, .progress = {}});
  ASSERT_TRUE(one && four);
  EXPECT_EQ(one->rank_results, four->rank_results);
}

// The Nsight export of two processes on two GPUs: two ranks, each with its own device.
TEST(DistributedJobTest, AnNsightExportOfTwoProcessesIsTwoRanks) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "nsys-h100x2-fp32gemm-emitnvtx/h100_2gpu_1s.sqlite");
  auto job = analyzeJobFiles({path}, {});
  ASSERT_TRUE(job) << job.error().message;
  ASSERT_EQ(job->ranks.size(), 2u);
  EXPECT_EQ(job->world_size, 2);
  std::set<std::string> devices;
  std::set<std::int64_t> pids;
  for (const RankResult& r : job->rank_results) {
    EXPECT_EQ(r.origin, RankOrigin::kProcess);
    devices.insert(r.device);
    pids.insert(r.pid);
    ASSERT_EQ(r.steps.size(), 1u);
    EXPECT_GT(r.steps[0].compute_ns, 0);
    // The export's session started at utcEpochNs 1779630014975716426 (2026-05-24T13:40:14):
    // its session-relative times are put on the epoch.
    EXPECT_EQ(r.clock, kUnixEpochClock);
    EXPECT_GT(r.steps[0].start_ns, 1779630014975716426);
  }
  EXPECT_EQ(devices, (std::set<std::string>{"device 0", "device 1"}));
  EXPECT_EQ(pids.size(), 2u);
  // One rank's full analysis holds only its own process's kernels (1,721 each, SOURCES.md).
  auto rank1 = analyzeRank(job->rank_results[1], {});
  ASSERT_TRUE(rank1) << rank1.error().message;
  EXPECT_EQ(rank1->trace.kernels.size(), 1721u);
}

// The same export (FP32 GEMMs on CUDA cores, no TF32; its GPU table absent): with --gpu naming
// the H100, every rank's own analysis projects AMP and TF32 on it and finds enable-amp, and the job
// names both ranks; without it, each rank is read against the GPU its kernel names prove at least
// (sm80: an A100), so --gpu is what reached each rank's analysis.
TEST(DistributedJobTest, TheNsightExportsRanksCarryTheirAmpFindingsWhenTheGpuIsNamed) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "nsys-h100x2-fp32gemm-emitnvtx/h100_2gpu_1s.sqlite");
  auto job = analyzeJobFiles({path}, {.analysis = {.gpu = "H100-SXM", .threads = 2}, .progress = {}});
  ASSERT_TRUE(job) << job.error().message;
  ASSERT_EQ(job->rank_results.size(), 2u);
  for (const RankResult& r : job->rank_results) {
    const RankFindings& f = r.findings;
    ASSERT_TRUE(f.tensor_core_share.has_value()) << r.source;
    EXPECT_EQ(*f.tensor_core_share, 0.0) << r.source;  // FP32 FMA GEMMs only
    ASSERT_TRUE(f.amp_projected_speedup.has_value()) << r.source << ": " << f.amp_note;
    EXPECT_GT(*f.amp_projected_speedup, 1.0);
    ASSERT_TRUE(f.amp_ceiling.has_value());
    EXPECT_GE(*f.amp_ceiling, *f.amp_projected_speedup);
    EXPECT_EQ(f.amp_device, "H100 SXM");
    ASSERT_TRUE(f.tf32_projected_speedup.has_value());
    EXPECT_GT(*f.tf32_projected_speedup, 1.0);
    EXPECT_TRUE(std::any_of(f.recommendations.begin(), f.recommendations.end(),
                            [](const Recommendation& rec) { return rec.rule == "enable-amp"; }))
        << r.source;
    // Its tables: one row per kernel name, the FP32 FMA GEMMs placed by their rule.
    EXPECT_TRUE(std::any_of(r.tables.kernels.begin(), r.tables.kernels.end(),
                            [](const KernelLine& k) { return k.rule == "xmma-ffma-fp32"; }));
    std::set<std::string> names;
    for (const KernelLine& k : r.tables.kernels) names.insert(k.name);
    EXPECT_EQ(names.size(), r.tables.kernels.size());
    EXPECT_FALSE(r.tables.ops.empty());
  }
  const auto amp = std::find_if(job->recommendations.begin(), job->recommendations.end(),
                                [](const Recommendation& rec) { return rec.rule == "enable-amp"; });
  ASSERT_NE(amp, job->recommendations.end());
  EXPECT_EQ(amp->ranks, (std::vector<std::int32_t>{0, 1}));
  EXPECT_GT(amp->estimated_gain_ns, 0);

  auto unnamed = analyzeJobFiles({path}, {.analysis = {.gpu = {}, .threads = 2}, .progress = {}});
  ASSERT_TRUE(unnamed) << unnamed.error().message;
  // Without --gpu each rank is read against what its sm80_ kernels prove: at least an A100.
  for (const RankResult& r : unnamed->rank_results) EXPECT_EQ(r.findings.amp_device, "A100 SXM") << r.source;
}

TEST(DistributedJobTest, AFolderWithoutTracesAndAMissingPathAreErrors) {
  test::ScratchDir dir;
  const std::string notes = dir.write("notes.txt", "not a trace");
  const std::string folder = std::filesystem::path(notes).parent_path().string();
  auto empty = listTraceFiles({folder});
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("holds no trace file"), std::string::npos);
  auto missing = listTraceFiles({dir.file("absent")});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("no such file"), std::string::npos);
}

}  // namespace
}  // namespace ampscope::analyzer
