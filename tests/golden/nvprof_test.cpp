// Golden case nvprof: an nvprof SQLite profile of a PyTorch 1.4 run marked by PyProf (the format
// PyProf read): kernels, runtime calls, copies and NVTX markers whose text is PyProf's call stack
// and operator dicts and autograd's "op, seq = N"; every report file compared with
// tests/golden/nvprof/.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

#include <fmt/format.h>

#include "golden_fixture.h"
#include "sql_script.h"

namespace ampscope::golden {
namespace {

// nvprof's process and thread ids: the Python thread, and autograd's device thread where backward
// ops run. Runtime rows store a thread id as a signed 32-bit number, markers unsigned.
constexpr std::int64_t kPid = 29051;
constexpr std::uint32_t kMainTid = 1290573632;
constexpr std::uint32_t kAutogradTid = 3590305536;
constexpr std::int64_t kUs = 1000;

// Kernel names as nvprof records them (mangled where the compiler mangled them) for an FP32 word
// language model on a V100: embedding, the decoder's GEMMs, log-softmax and the NLL loss.
constexpr const char* kEmbedding = "_Z21indexSelectLargeIndexIfjLi2ELi2ELin2ELb1EEv10TensorInfoIT_T0_ES3_S0_IlS2_EiiS2_S2_l";
constexpr const char* kDecoder = "volta_sgemm_128x64_tn";
constexpr const char* kDecoderGradInput = "volta_sgemm_128x64_nn";
constexpr const char* kDecoderGradWeight = "volta_sgemm_128x64_nt";
constexpr const char* kLogSoftmax =
    "_ZN2at6native78_GLOBAL__N__54_tmpxft_00008e34_00000000_11_SoftMax_compute_75_cpp1_ii_a331004219cunn_"
    "SoftMaxForwardILi2EfffNS1_25LogSoftMaxForwardEpilogueEEEvPT2_PT0_i";
constexpr const char* kLogSoftmaxBackward =
    "_ZN2at6native78_GLOBAL__N__54_tmpxft_00008e34_00000000_11_SoftMax_compute_75_cpp1_ii_a331004220cunn_"
    "SoftMaxBackwardILi2EfffNS1_26LogSoftMaxBackwardEpilogueEEEvPT0_PT2_S7_i";
constexpr const char* kNllLoss = "_Z42cunn_ClassNLLCriterion_updateOutput_kernelIffEvPT_S1_S1_PlS1_iiiil";
constexpr const char* kNllLossBackward = "_Z45cunn_ClassNLLCriterion_updateGradInput_kernelIfEvPT_S1_PlS1_S1_iiiil";
constexpr const char* kEmbeddingBackward =
    "_ZN2at6native80_GLOBAL__N__56_tmpxft_000084e1_00000000_11_Embedding_compute_75_cpp1_ii_9c8c8d3a33embedding_"
    "backward_feature_kernelIffEEvPlPKT_PS4_ili";
constexpr const char* kSgdUpdate =
    "_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_15gpu_kernel_implIZZZNS0_15add_kernel_cudaERNS_14TensorIterator"
    "EN3c106ScalarEENKUlvE_clEvENKUlvE2_clEvEUlffE_EEvS4_RKT_EUliE2_EEviT1_";

// CUPTI's numbers (cupti_activity.h): runtime callback ids, copy and memory kinds, marker flags.
constexpr int kCudaMemcpy = 31;
constexpr int kCudaMemcpyAsync = 41;
constexpr int kCudaLaunchKernel = 211;
constexpr int kHostToDevice = 1;
constexpr int kDeviceToHost = 2;
constexpr int kPageable = 1;
constexpr int kDevice = 3;
constexpr int kMarkerStart = 2;
constexpr int kMarkerEnd = 4;
constexpr int kThreadObject = 2;

std::string tensor(std::string_view shape, std::string_view dtype = "float32") {
  return fmt::format("{{'name': '', 'type': 'tensor', 'shape': {}, 'dtype': '{}'}}", shape, dtype);
}

// A thread marker's objectId: the process and thread ids as two little-endian 32-bit words, then
// four bytes of padding.
std::string threadObject(std::uint32_t tid) {
  const auto word = [](std::uint32_t v) {
    return fmt::format("{:02X}{:02X}{:02X}{:02X}", v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >> 24);
  };
  return fmt::format("X'{}{}00000000'", word(static_cast<std::uint32_t>(kPid)), word(tid));
}

// Three iterations of the word language model's loop (batch 20, sequence 35, embedding 200,
// vocabulary 33,278, plain SGD through p.data.add_): no step marker, so the report covers the
// window of GPU work.
class NvprofProfile {
 public:
  std::string build() {
    const std::int64_t device_name = stringId("Tesla V100-SXM2-16GB");
    for (int iteration = 0; iteration < 3; ++iteration) addIteration(iteration);
    SqlScript sql;
    sql.add("-- Written by tests/golden/nvprof_test.cpp: an nvprof profile of a PyProf-marked run on a V100");
    sql.add("CREATE TABLE StringTable (_id_ INTEGER PRIMARY KEY, value TEXT NOT NULL)");
    std::map<std::int64_t, std::string> by_id;
    for (const auto& [value, id] : strings_) by_id[id] = value;
    for (const auto& [id, value] : by_id) sql.insert("StringTable", id, value);
    sql.add("CREATE TABLE CUPTI_ACTIVITY_KIND_DEVICE (id INT, name INT, computeCapabilityMajor INT, "
            "computeCapabilityMinor INT, numMultiprocessors INT, globalMemorySize INT, coreClockRate INT, "
            "globalMemoryBandwidth INT)");
    // The clock in kHz and the bandwidth in KB/s, as CUPTI reports them.
    sql.insert("CUPTI_ACTIVITY_KIND_DEVICE", 0, device_name, 7, 0, 80, std::int64_t{16914055168},
               1530000, 898048000);
    return sql.text() + tables_.text();
  }

 private:
  std::int64_t stringId(const std::string& value) {
    const auto [at, added] = strings_.try_emplace(value, static_cast<std::int64_t>(strings_.size() + 1));
    return at->second;
  }

  void marker(const std::string& text, std::int64_t start, std::int64_t end, std::uint32_t tid) {
    closeMarkersUpTo(start);
    const std::int64_t id = ++markers_;
    tables_.insert("CUPTI_ACTIVITY_KIND_MARKER", kMarkerStart, start, id, kThreadObject, SqlLiteral{threadObject(tid)},
                   stringId(text));
    ends_.emplace(end, id);
  }

  // Writes the end records of the markers that end by time, in time order as nvprof does.
  void closeMarkersUpTo(std::int64_t time) {
    while (!ends_.empty() && ends_.begin()->first <= time) {
      const auto [end, id] = *ends_.begin();
      ends_.erase(ends_.begin());
      tables_.insert("CUPTI_ACTIVITY_KIND_MARKER", kMarkerEnd, end, id, kThreadObject, SqlLiteral{"X''"}, 0);
    }
  }

  void runtimeCall(int cbid, std::int64_t start, std::int64_t end, std::uint32_t tid) {
    tables_.insert("CUPTI_ACTIVITY_KIND_RUNTIME", cbid, start, end, kPid, static_cast<std::int64_t>(static_cast<std::int32_t>(tid)),
                   ++correlation_);
  }

  void kernel(std::int64_t launch, std::uint32_t tid, const char* name, std::int64_t duration, int grid_x) {
    runtimeCall(kCudaLaunchKernel, launch, launch + 5 * kUs, tid);
    const std::int64_t start = std::max(launch + 7 * kUs, gpu_free_);
    gpu_free_ = start + duration;
    tables_.insert("CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL", start, gpu_free_, 0, 7, correlation_, stringId(name), grid_x,
                   1, 1, 256, 1, 1, 64, 0, 0);
  }

  void copy(int cbid, int kind, int src, int dst, std::int64_t bytes, std::int64_t call, std::int64_t call_end,
            std::int64_t duration) {
    runtimeCall(cbid, call, call_end, kMainTid);
    const std::int64_t start = std::max(call + 4 * kUs, gpu_free_);
    gpu_free_ = start + duration;
    tables_.insert("CUPTI_ACTIVITY_KIND_MEMCPY", kind, src, dst, bytes, start, gpu_free_, 0, 7, correlation_);
  }

  // One PyProf-marked call on the Python thread: the call stack, the operator dict with its
  // arguments, and autograd's marker with the sequence number, nested.
  void call(std::string_view module, std::string_view op, std::string_view args, int sequence, std::int64_t start,
            std::int64_t end) {
    marker("{'traceMarker': ['main.py:180', 'model.py:52']}", start, end, kMainTid);
    marker(fmt::format("{{'mod': '{}', 'op': '{}', 'args': [{}]}}", module, op, args), start + kUs, end - kUs, kMainTid);
    if (sequence >= 0) marker(fmt::format("{}, seq = {}", op, sequence), start + 2 * kUs, end - 2 * kUs, kMainTid);
  }

  void addIteration(int iteration) {
    const std::int64_t t = 1'583'975'500'000'000'000 + iteration * 5'000 * kUs;
    const int seq = 100 + iteration * 10;  // embedding seq, addmm seq + 1, log_softmax seq + 2, nll_loss seq + 3
    copy(kCudaMemcpyAsync, kHostToDevice, kPageable, kDevice, 35 * 20 * 8, t, t + 30 * kUs, 5 * kUs);
    call("torch.nn.functional", "embedding", fmt::format("{}, {}", tensor("(35, 20)", "int64"), tensor("(33278, 200)")), seq,
         t + 50 * kUs, t + 80 * kUs);
    kernel(t + 60 * kUs, kMainTid, kEmbedding, 10 * kUs, 110);
    call("torch", "addmm", fmt::format("{}, {}, {}", tensor("(33278,)"), tensor("(700, 200)"), tensor("(200, 33278)")),
         seq + 1, t + 100 * kUs, t + 130 * kUs);
    kernel(t + 110 * kUs, kMainTid, kDecoder, 700 * kUs, 1560);
    call("torch.nn.functional", "log_softmax", tensor("(700, 33278)"), seq + 2, t + 140 * kUs, t + 160 * kUs);
    kernel(t + 145 * kUs, kMainTid, kLogSoftmax, 230 * kUs, 700);
    call("torch.nn.functional", "nll_loss", fmt::format("{}, {}", tensor("(700, 33278)"), tensor("(700,)", "int64")),
         seq + 3, t + 170 * kUs, t + 190 * kUs);
    kernel(t + 175 * kUs, kMainTid, kNllLoss, 8 * kUs, 1);

    // loss.backward() on autograd's thread, last op first.
    marker(fmt::format("NllLossBackward, seq = {}", seq + 3), t + 300 * kUs, t + 320 * kUs, kAutogradTid);
    kernel(t + 305 * kUs, kAutogradTid, kNllLossBackward, 10 * kUs, 1);
    marker(fmt::format("LogSoftmaxBackward, seq = {}", seq + 2), t + 330 * kUs, t + 350 * kUs, kAutogradTid);
    kernel(t + 335 * kUs, kAutogradTid, kLogSoftmaxBackward, 250 * kUs, 700);
    marker(fmt::format("AddmmBackward, seq = {}", seq + 1), t + 360 * kUs, t + 400 * kUs, kAutogradTid);
    kernel(t + 365 * kUs, kAutogradTid, kDecoderGradInput, 700 * kUs, 1560);
    kernel(t + 380 * kUs, kAutogradTid, kDecoderGradWeight, 720 * kUs, 1560);
    marker(fmt::format("EmbeddingBackward, seq = {}", seq), t + 410 * kUs, t + 430 * kUs, kAutogradTid);
    kernel(t + 415 * kUs, kAutogradTid, kEmbeddingBackward, 40 * kUs, 110);

    // The update (p.data.add_(-lr, p.grad)) and total_loss += loss.item(), which waits for the GPU.
    call("Tensor", "add_", fmt::format("{}, {}", tensor("(33278, 200)"), tensor("(33278, 200)")), -1, t + 450 * kUs,
         t + 470 * kUs);
    kernel(t + 455 * kUs, kMainTid, kSgdUpdate, 60 * kUs, 26000);
    const std::int64_t copy_end = std::max(t + 500 * kUs, gpu_free_ + 6 * kUs);
    copy(kCudaMemcpy, kDeviceToHost, kDevice, kPageable, 4, t + 490 * kUs, copy_end, 2 * kUs);
    closeMarkersUpTo(t + 5'000 * kUs);
  }

  SqlScript tables_ = [] {
    SqlScript tables;
    tables.add("CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL (start INT, \"end\" INT, deviceId INT, streamId INT, "
               "correlationId INT, name INT, gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT, "
               "registersPerThread INT, staticSharedMemory INT, dynamicSharedMemory INT)");
    tables.add("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (cbid INT, start INT, \"end\" INT, processId INT, threadId INT, "
               "correlationId INT)");
    tables.add("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (copyKind INT, srcKind INT, dstKind INT, bytes INT, start INT, "
               "\"end\" INT, deviceId INT, streamId INT, correlationId INT)");
    tables.add("CREATE TABLE CUPTI_ACTIVITY_KIND_MARKER (flags INT, timestamp INT, id INT, objectKind INT, objectId BLOB, "
               "name INT)");
    return tables;
  }();
  std::map<std::string, std::int64_t> strings_;
  std::multimap<std::int64_t, std::int64_t> ends_;  // end time -> marker id, of the markers still open
  std::int64_t markers_ = 0;
  std::int64_t correlation_ = 0;
  std::int64_t gpu_free_ = 0;
};

TEST(GoldenReportTest, NvprofProfileWithPyProfMarkersGivesTheExpectedReport) {
  const std::filesystem::path dir = kGoldenDir / "nvprof";
  expectGolden(NvprofProfile().build(), dir / "profile.sql");
  test::ScratchDir scratch;
  const std::string profile_path = scratch.file("profile.nvvp");
  const trace::Status written = writeDatabase(profile_path, test::readFile((dir / "profile.sql").string()));
  ASSERT_TRUE(written) << written.error().message;
  expectReportMatchesGolden(dir, {profile_path}, scratch);
}

}  // namespace
}  // namespace ampscope::golden
