#include "analyzer/steps/collectives.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "../test_support.h"
#include "analyzer/advice/recommendations.h"
#include "analyzer/core/rule_ids.h"
#include "analyzer/run_analysis.h"
#include "tests/analyzer/imported_trace.h"

namespace ampscope::analyzer {
namespace {

struct FamilyCase {
  const char* kernel;
  CollectiveKind kind;
};

// Names as profilers print them: NCCL before 2.19 (ncclKernel_<Coll>_<Algo>_<Proto>_<Op>_<type>),
// 2.19+ (ncclDevKernel_<Coll>_<Op>_<type>_<Algo>_<Proto>, send/recv without the rest), DeepEP.
TEST(CollectivesTest, KernelsAreRecognisedByFamily) {
  const FamilyCase cases[] = {
      {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", CollectiveKind::kAllReduce},
      {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", CollectiveKind::kAllReduce},
      {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", CollectiveKind::kAllGather},
      {"ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", CollectiveKind::kReduceScatter},
      {"ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", CollectiveKind::kBroadcast},
      {"ncclKernel_Reduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", CollectiveKind::kReduce},
      {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", CollectiveKind::kSendRecv},
      {"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", CollectiveKind::kSendRecv},
      {"void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*, int*)", CollectiveKind::kAllToAll},
      {"void deep_ep::internode::combine<false, 8, 4, 8, 8>(int4*, float*, int*)", CollectiveKind::kAllToAll},
  };
  for (const FamilyCase& c : cases) {
    const std::optional<CollectiveKind> kind = collectiveKindOfKernel(c.kernel);
    ASSERT_TRUE(kind.has_value()) << c.kernel;
    EXPECT_EQ(*kind, c.kind) << c.kernel << " read as " << collectiveKindName(*kind);
  }
  EXPECT_FALSE(collectiveKindOfKernel("volta_sgemm_128x64_nn").has_value());
  EXPECT_FALSE(collectiveKindOfKernel("void at::native::reduce_kernel<512, 1>(...)").has_value());
}

TEST(CollectivesTest, BusBandwidthFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(busBandwidthFactor(CollectiveKind::kAllReduce, 8), 2.0 * 7.0 / 8.0);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(CollectiveKind::kAllGather, 8), 7.0 / 8.0);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(CollectiveKind::kReduceScatter, 4), 3.0 / 4.0);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(CollectiveKind::kAllToAll, 2), 0.5);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(CollectiveKind::kBroadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(CollectiveKind::kReduce, 8), 1.0);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(CollectiveKind::kSendRecv, 8), 1.0);
}

// A compute kernel [0, 100) us on stream 7 and an all-reduce of 1 MiB of floats [50, 150) us on
// stream 13, launched by record_param_comms, in a job of 4 ranks: 100 us of communication, half
// of it beside compute.
TEST(CollectivesTest, OverlapExposureAndBandwidthOfAnAllReduce) {
  constexpr std::int64_t kUs = 1000;
  trace::Trace trace;
  trace.distributed = {1, 4, "nccl"};
  const trace::Index thread = trace.threadIndex(5, 5);
  trace::Range op;
  op.name = trace.strings.intern("record_param_comms");
  op.thread = thread;
  op.start_ns = 0;
  op.end_ns = 40 * kUs;
  op.shapes = trace.strings.intern("[[262144],[],[]]");
  op.dtypes = trace.strings.intern(R"(["float","Scalar","Scalar"])");
  trace.ranges.push_back(op);
  const auto launch = [&](std::int64_t at, std::uint64_t correlation) {
    trace::LaunchCall call;
    call.start_ns = at;
    call.end_ns = at + kUs;
    call.correlation_id = correlation;
    call.name = trace.strings.intern("cudaLaunchKernel");
    call.thread = thread;
    trace.launches.push_back(call);
  };
  launch(10 * kUs, 1);
  launch(50 * kUs, 2);  // outside the op: compute
  trace::Kernel reduce;
  reduce.name = trace.strings.intern("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  reduce.start_ns = 50 * kUs;
  reduce.end_ns = 150 * kUs;
  reduce.stream = 13;
  reduce.correlation_id = 1;
  trace.kernels.push_back(reduce);
  trace::Kernel gemm;
  gemm.name = trace.strings.intern("volta_sgemm_128x64_nn");
  gemm.start_ns = 0;
  gemm.end_ns = 100 * kUs;
  gemm.stream = 7;
  gemm.correlation_id = 2;
  trace.kernels.push_back(gemm);
  trace.sortByTime();
  test::correlateAsImported(trace);
  const Communication c = measureCommunication(trace, IterationSummary{});
  EXPECT_FALSE(c.per_step);
  EXPECT_EQ(c.window_ns, 150 * kUs);
  EXPECT_EQ(c.ranks, 4);
  EXPECT_EQ(c.time_ns, 100 * kUs);
  EXPECT_EQ(c.overlapped_ns, 50 * kUs);
  EXPECT_EQ(c.exposed_ns, 50 * kUs);
  ASSERT_EQ(c.collectives.size(), 1u);
  const CollectiveRow& row = c.collectives[0];
  EXPECT_EQ(row.kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(row.name, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  EXPECT_EQ(row.bytes, 1048576u);
  ASSERT_TRUE(row.algbw_gbps.has_value());
  EXPECT_NEAR(*row.algbw_gbps, 1048576.0 / 100'000.0, 1e-9);  // bytes per ns = GB/s
  ASSERT_TRUE(row.busbw_gbps.has_value());
  EXPECT_NEAR(*row.busbw_gbps, *row.algbw_gbps * 1.5, 1e-9);  // 2(n-1)/n for 4 ranks
}

// A shape no GPU could hold is a corrupt record: the call counts, but its bytes are not guessed
// from a product that overflows.
TEST(CollectivesTest, AnAbsurdMessageShapeGivesNoBytes) {
  trace::Trace trace;
  const trace::Index thread = trace.threadIndex(5, 5);
  trace::Range op;
  op.name = trace.strings.intern("record_param_comms");
  op.thread = thread;
  op.start_ns = 0;
  op.end_ns = 10'000;
  op.shapes = trace.strings.intern("[[4294967296,4294967296,4294967296]]");
  op.dtypes = trace.strings.intern(R"(["float"])");
  trace.ranges.push_back(op);
  trace::LaunchCall call;
  call.start_ns = 1'000;
  call.end_ns = 2'000;
  call.correlation_id = 1;
  call.name = trace.strings.intern("cudaLaunchKernel");
  call.thread = thread;
  trace.launches.push_back(call);
  trace::Kernel reduce;
  reduce.name = trace.strings.intern("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)");
  reduce.start_ns = 3'000;
  reduce.end_ns = 9'000;
  reduce.correlation_id = 1;
  trace.kernels.push_back(reduce);
  trace.sortByTime();
  test::correlateAsImported(trace);
  const Communication c = measureCommunication(trace, IterationSummary{});
  ASSERT_EQ(c.collectives.size(), 1u);
  EXPECT_EQ(c.collectives[0].calls, 1u);
  EXPECT_EQ(c.collectives[0].calls_with_bytes, 0u);
  EXPECT_FALSE(c.collectives[0].algbw_gbps.has_value());
}

// Each rank of the shared DLRM job ran 5 send/recv and 3 all-reduce kernels; every file says its
// rank of 8.
TEST(CollectivesTest, EachRankOfTheSharedDlrmJobShowsItsCollectives) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-v100-dlrm-8ranks");
  const std::filesystem::path folder(path);
  std::set<int> ranks;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    auto run = analyzeFile(entry.path().string());
    ASSERT_TRUE(run) << run.error().message;
    const TraceSummary& s = run->summary;
    ASSERT_TRUE(s.distributed.rankKnown() && s.distributed.worldSizeKnown()) << entry.path();
    EXPECT_EQ(s.distributed.world_size, 8);
    ranks.insert(s.distributed.rank);
    const Communication& c = s.communication;
    EXPECT_EQ(c.ranks, 8);
    std::uint64_t send_recv = 0;
    std::uint64_t all_reduce = 0;
    for (const CollectiveRow& row : c.collectives) {
      if (row.kind == CollectiveKind::kSendRecv) send_recv += row.calls;
      if (row.kind == CollectiveKind::kAllReduce) all_reduce += row.calls;
    }
    EXPECT_EQ(send_recv, 5u) << entry.path();
    EXPECT_EQ(all_reduce, 3u) << entry.path();
    EXPECT_GT(c.time_ns, 0);
    EXPECT_EQ(c.time_ns, c.overlapped_ns + c.exposed_ns);
  }
  EXPECT_EQ(ranks.size(), 8u);
}

}  // namespace
}  // namespace ampscope::analyzer

namespace ampscope::analyzer {
namespace {

// A 100 ms step with 20 ms of collectives, 10 ms of them exposed; 12 ms of the collective time is
// an FP32 all-reduce.
TraceSummary stepWithCommunication(MathPrecision reduction_element) {
  TraceSummary s;
  s.iterations.iterations = {{0, 0, 100'000'000, false, 0, 100'000'000}, {1, 100'000'000, 200'000'000, false, 100'000'000, 200'000'000}};
  s.iterations.steady_mean_ns = 100'000'000;
  s.communication.time_ns = 20'000'000;
  s.communication.overlapped_ns = 10'000'000;
  s.communication.exposed_ns = 10'000'000;
  CollectiveRow reduce;
  reduce.kind = CollectiveKind::kAllReduce;
  reduce.element = reduction_element;
  reduce.name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
  reduce.calls = 4;
  reduce.time_ns = 24'000'000;
  CollectiveRow gather;
  gather.kind = CollectiveKind::kAllGather;
  gather.name = "ncclDevKernel_AllGather_RING_LL";
  gather.calls = 4;
  gather.time_ns = 16'000'000;
  s.communication.collectives = {reduce, gather};
  return s;
}

const Recommendation* findRule(const std::vector<Recommendation>& all, std::string_view rule) {
  for (const Recommendation& r : all) {
    if (r.rule == rule) return &r;
  }
  return nullptr;
}

TEST(CommunicationAdviceTest, ExposedCollectivesAreToOverlapAndFp32ReductionsToHalve) {
  const std::vector<Recommendation> all = recommend(stepWithCommunication(MathPrecision::kFp32));
  const Recommendation* overlap = findRule(all, rule_ids::kOverlapCommunication);
  ASSERT_NE(overlap, nullptr);
  EXPECT_EQ(overlap->estimated_gain_ns, 5'000'000);  // half the exposed 10 ms, as its evidence says
  EXPECT_NE(overlap->evidence.find("half the exposed time"), std::string::npos) << overlap->evidence;
  const Recommendation* bf16 = findRule(all, rule_ids::kReduceGradientsInBf16);
  ASSERT_NE(bf16, nullptr);
  // The FP32 all-reduce is 24 of 40 ms of collective time: 6 ms of the 10 exposed, halved.
  EXPECT_EQ(bf16->estimated_gain_ns, 3'000'000);
  EXPECT_NE(bf16->action.find("bf16_compress_hook"), std::string::npos);
}

TEST(CommunicationAdviceTest, ReductionsAlreadyInBf16GetNoHalvingAdvice) {
  const std::vector<Recommendation> all = recommend(stepWithCommunication(MathPrecision::kBf16));
  EXPECT_NE(findRule(all, rule_ids::kOverlapCommunication), nullptr);
  EXPECT_EQ(findRule(all, rule_ids::kReduceGradientsInBf16), nullptr);
}

TEST(CollectivesTest, ReductionElementTypeComesFromTheKernelName) {
  EXPECT_EQ(collectiveElementType("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"),
            MathPrecision::kFp32);
  EXPECT_EQ(collectiveElementType("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
            MathPrecision::kFp32);
  EXPECT_EQ(collectiveElementType("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
            MathPrecision::kBf16);
  EXPECT_EQ(collectiveElementType("ncclKernel_AllReduce_RING_LL_Sum___nv_bfloat16(ncclDevComm*, unsigned long, ncclWork*)"),
            MathPrecision::kBf16);
  EXPECT_EQ(collectiveElementType("ncclKernel_AllReduce_RING_LL_Sum_half(ncclDevComm*, unsigned long, ncclWork*)"),
            MathPrecision::kFp16);
  EXPECT_EQ(collectiveElementType("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"),
            MathPrecision::kUnknown);
}

}  // namespace
}  // namespace ampscope::analyzer

namespace ampscope::analyzer {
namespace {

// PyTorch 2.1+ records a communication op's message on record_param_comms: an all-gather of 1 Mi
// BF16 elements per rank into 4 Mi (group of 4 in a world of 8). nccl-tests counts the gathered
// output: 8 MiB, with the group's size (4), not the world's, in the bus bandwidth factor; each
// call carries its process group's name.
TEST(CollectivesTest, TheRecordedMessageGivesBytesGroupSizeAndGroup) {
  test::ScratchDir dir;
  const std::string path = dir.write("trace.json", R"json({"schemaVersion": 1,
  "distributedInfo": {"backend": "nccl", "rank": 1, "world_size": 8},
  "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 7, "tid": 7, "ts": 100.0, "dur": 20,
   "args": {"Input Dims": [[], [], []], "Input type": ["TensorList", "Scalar", "Scalar"],
            "Collective name": "_allgather_base", "dtype": "BFloat16", "In msg nelems": 1048576,
            "Out msg nelems": 4194304, "Group size": 4, "Process Group Name": "3",
            "Process Group Ranks": "[0, 2, 4, 6]"}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 105.0, "dur": 5,
   "args": {"correlation": 11}},
  {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
   "pid": 0, "tid": 13, "ts": 110.0, "dur": 100.0, "args": {"device": 0, "stream": 13, "correlation": 11}}
]})json");
  auto run = analyzeFile(path);
  ASSERT_TRUE(run) << run.error().message;
  ASSERT_EQ(run->trace.communication_messages.size(), 1u);
  const trace::CommunicationMessage& m = run->trace.communication_messages[0];
  EXPECT_EQ(run->trace.str(m.collective), "_allgather_base");
  EXPECT_EQ(m.in_elements, 1048576);
  EXPECT_EQ(m.out_elements, 4194304);
  EXPECT_EQ(m.group_size, 4);
  EXPECT_EQ(run->trace.str(m.group_ranks), "[0, 2, 4, 6]");
  const Communication& c = run->summary.communication;
  ASSERT_EQ(c.collectives.size(), 1u);
  const CollectiveRow& row = c.collectives[0];
  EXPECT_EQ(row.group_size, 4);
  EXPECT_EQ(row.bytes, 8u * 1024 * 1024);
  ASSERT_TRUE(row.algbw_gbps && row.busbw_gbps);
  EXPECT_DOUBLE_EQ(*row.algbw_gbps, 8.0 * 1024 * 1024 / 100000.0);
  EXPECT_DOUBLE_EQ(*row.busbw_gbps, *row.algbw_gbps * 3.0 / 4.0);
  ASSERT_EQ(c.calls.size(), 1u);
  EXPECT_EQ(c.calls[0].group, "3");
}

}  // namespace
}  // namespace ampscope::analyzer
