// Golden case two_rank_job: the Kineto traces of two ranks of one data-parallel job (each with
// its distributedInfo and an NCCL all-reduce of its gradients each step), reported as one job the
// way `ampscope report traces/` reports a folder; every file of the job report but report.html
// compared with tests/golden/two_rank_job/.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "golden_fixture.h"
#include "kineto_trace_writer.h"

namespace ampscope::golden {
namespace {

constexpr int kRanks = 2;
constexpr int kSteps = 4;             // the first a warm-up
constexpr double kStepUs = 2000;
// Microseconds since the Unix epoch, as Kineto writes them: both ranks' hosts on one clock.
constexpr double kStartUs = 1'700'000'000'000'000;
// Rank 1 loads each batch 300 us longer: it reaches the all-reduce last, and rank 0 waits.
constexpr double kDataUs[kRanks] = {100, 400};
constexpr double kAllReduceUs = 200;  // the transfer itself, once both ranks have arrived
constexpr int kNcclStream = 20;

constexpr const char* kGemm = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn";
constexpr const char* kGemmGradInput = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_nn";
constexpr const char* kGemmGradWeight = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_nt";
constexpr const char* kAllReduce = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)";
constexpr const char* kSgd =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> "
    ">(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)";

// One rank's trace: each step loads a batch, runs a 4096 x 4096 linear layer forward and backward
// in BF16 (batch 2048), all-reduces its 16 M gradient values over NCCL, then steps the optimizer.
// The all-reduce ends on both ranks together, when the later of them has arrived.
std::string rankTrace(int rank) {
  const int pid = 4100 + rank;
  const int host = pid;
  const int autograd = pid + 7;
  KinetoTraceWriter trace(pid, rank);
  const double last_data_us = *std::max_element(std::begin(kDataUs), std::end(kDataUs));
  for (int step = 0; step < kSteps; ++step) {
    const double t = kStartUs + step * kStepUs;
    const double data = kDataUs[rank];
    const int seq = 300 + step * 10;
    trace.event("user_annotation", fmt::format("ProfilerStep#{}", step + 1), t, kStepUs - 1, host);
    trace.event("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t + 1, data, host);
    const double f = t + data + 10;  // the forward pass starts once the batch is there
    trace.event("cpu_op", "aten::linear", f, 40, host,
                fmt::format(R"("Input Dims": [[2048, 4096], [4096, 4096], [4096]], "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"], "Fwd thread id": 0, "Sequence number": {})",
                            seq));
    trace.event("cpu_op", "aten::addmm", f + 5, 30, host,
                fmt::format(R"("Input Dims": [[4096], [2048, 4096], [4096, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"], "Fwd thread id": 0, "Sequence number": {})",
                            seq + 1));
    trace.launch(f + 8, host, kGemm, f + 20, 300);
    const std::string backward = fmt::format(R"("Fwd thread id": 1, "Sequence number": {})", seq + 1);
    trace.event("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", f + 60, 80, autograd, backward);
    trace.event("cpu_op", "AddmmBackward0", f + 62, 74, autograd, backward);
    trace.event("cpu_op", "aten::mm", f + 65, 30, autograd,
                R"("Input Dims": [[2048, 4096], [4096, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"])");
    trace.launch(f + 68, autograd, kGemmGradInput, f + 320, 300);
    trace.event("cpu_op", "aten::mm", f + 100, 30, autograd,
                R"("Input Dims": [[4096, 2048], [2048, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"])");
    trace.launch(f + 103, autograd, kGemmGradWeight, f + 620, 300);
    // DDP's reducer all-reduces the gradients; the NCCL kernel starts when the gradients are ready
    // and ends kAllReduceUs after the last rank has started its own.
    trace.event("cpu_op", "nccl:all_reduce", f + 150, 30, autograd);
    trace.event("cpu_op", "record_param_comms", f + 152, 26, autograd,
                R"("Collective name": "allreduce", "dtype": "BFloat16", "In msg nelems": 16781312, "Out msg nelems": 16781312, "Group size": 2, "Process Group Name": "0", "Process Group Ranks": "[0, 1]")");
    const double arrival = f + 930;
    const double reduced = t + last_data_us + 10 + 930 + kAllReduceUs;
    trace.launch(f + 155, autograd, kAllReduce, arrival, reduced - arrival, kNcclStream);
    trace.event("user_annotation", "Optimizer.step#SGD.step", f + 200, 60, host);
    trace.event("cpu_op", "aten::_foreach_add_", f + 205, 50, host);
    trace.launch(f + 210, host, kSgd, reduced + 5, 40);
  }
  return trace.document(fmt::format(R"("schemaVersion": 1,
  {},
  "distributedInfo": {{"backend": "nccl", "rank": {}, "world_size": {}}})",
                                    deviceProperties("NVIDIA A100-SXM4-80GB", 85899345920, 8, 0, 108, rank), rank,
                                    kRanks));
}

TEST(GoldenReportTest, TwoRankJobGivesTheExpectedJobReport) {
  const std::filesystem::path dir = kGoldenDir / "two_rank_job";
  for (int rank = 0; rank < kRanks; ++rank) {
    expectGolden(rankTrace(rank), dir / "traces" / fmt::format("rank{}.json", rank));
  }
  test::ScratchDir scratch;
  // The folder, named relative to the case's: the job report names its ranks by their files.
  expectReportMatchesGolden(dir, {"traces"}, scratch);
}

}  // namespace
}  // namespace ampscope::golden
