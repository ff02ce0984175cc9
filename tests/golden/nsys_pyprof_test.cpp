// Golden case nsys_pyprof: an Nsight Systems SQLite export of a PyTorch run patched by PyProf (as
// DLProf ran it), whose NVTX ranges are PyProf's Python dicts (the call stack with funcStack, the
// module, the operator with its arguments) around PyTorch's emit_nvtx markers; every report file
// compared with tests/golden/nsys_pyprof/.

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

constexpr std::int64_t kPid = 24817;
constexpr std::int64_t kMainTid = 24817;
constexpr std::int64_t kAutogradTid = 24903;
constexpr std::int64_t kUs = 1000;

// Nsight packs <hardware:8><VM:8><pid:24><tid:24> into globalTid; exports have VM id 1. A
// process's globalPid is its threads' globalTid with the tid bits zero.
constexpr std::int64_t globalTid(std::int64_t tid) { return (std::int64_t{1} << 48) | (kPid << 24) | tid; }
constexpr std::int64_t kGlobalPid = globalTid(0);

// Kernel names of cuDNN 7 and cuBLAS 10 on a V100 in FP16: the first convolution (3 input
// channels, off the multiple of 8) on CUDA cores, the rest on Tensor Cores.
constexpr const char* kConvCudaCores =
    "void cudnn::detail::implicit_convolve_sgemm<__half, __half, 128, 5, 5, 3, 3, 3, 1, false, false, true>(int, int, "
    "int, __half const*, int, __half*, __half const*, kernel_conv_params, unsigned long long, int, float, float, int, "
    "__half const*, __half const*, bool, int, int)";
constexpr const char* kConvWgrad = "volta_fp16_s884cudnn_fp16_128x128_ldg8_wgrad_exp_small_nhwc_nt_v1";
constexpr const char* kRelu =
    "void at::native::vectorized_elementwise_kernel<4, at::native::threshold_kernel_impl<c10::Half>(at::TensorIterator&, "
    "c10::Half, c10::Half)::{lambda(c10::Half, c10::Half)#1}, at::detail::Array<char*, 3> >(int, "
    "at::native::threshold_kernel_impl<c10::Half>(at::TensorIterator&, c10::Half, c10::Half)::{lambda(c10::Half, "
    "c10::Half)#1}, at::detail::Array<char*, 3>)";
constexpr const char* kLinear = "volta_h884gemm_64x64_ldg8_nn";
constexpr const char* kLinearGradInput = "volta_h884gemm_64x64_ldg8_nt";
constexpr const char* kLinearGradWeight = "volta_h884gemm_64x64_ldg8_tn";
constexpr const char* kSgd =
    "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<c10::Half>, at::detail::Array<char*, 3> "
    ">(int, at::native::AddFunctor<c10::Half>, at::detail::Array<char*, 3>)";

std::string tensor(std::string_view shape) {
  return fmt::format("{{'name': '', 'type': 'tensor', 'shape': {}, 'dtype': 'float16'}}", shape);
}

// The export, with only the columns the importer reads (named and typed as in Nsight Systems'
// export schema 3.28; tests/data/nsys_small.sql has whole tables).
class NsysExport {
 public:
  std::string build() {
    for (int step = 0; step < 4; ++step) addStep(step);
    SqlScript sql;
    sql.add("-- Written by tests/golden/nsys_pyprof_test.cpp: a PyProf-marked PyTorch run on a V100, four steps");
    sql.add("CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT)");
    sql.insert("META_DATA_EXPORT", "EXPORT_SCHEMA_VERSION", "3.28.1");
    sql.add("CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL)");
    std::map<std::int64_t, std::string> by_id;
    for (const auto& [value, id] : strings_) by_id[id] = value;
    for (const auto& [id, value] : by_id) sql.insert("StringIds", id, value);
    sql.add("CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER)");
    sql.insert("ThreadNames", stringId("python3"), 0, globalTid(kMainTid));
    sql.add("CREATE TABLE TARGET_INFO_GPU (id INTEGER NOT NULL, name TEXT, totalMemory INTEGER, memoryBandwidth INTEGER, "
            "clockRate INTEGER, smCount INTEGER, cuDevice INTEGER, computeMajor INTEGER, computeMinor INTEGER)");
    sql.insert("TARGET_INFO_GPU", 0, "Tesla V100-SXM2-16GB", std::int64_t{16945512448}, std::int64_t{898048000000},
               std::int64_t{1530000000}, 80, 0, 7, 0);
    return sql.text() + tables_.text();
  }

 private:
  std::int64_t stringId(const std::string& value) {
    const auto [at, added] = strings_.try_emplace(value, static_cast<std::int64_t>(strings_.size() + 1));
    return at->second;
  }

  // A range pushed and popped on a thread (eventType 59).
  void range(const std::string& text, std::int64_t start, std::int64_t end, std::int64_t tid) {
    tables_.insert("NVTX_EVENTS", start, end, 59, text, globalTid(tid), ++nvtx_events_);
  }

  // A cudaLaunchKernel call at launch on thread tid and its kernel, run when the stream is free.
  void kernel(std::int64_t launch, std::int64_t tid, const char* name, std::int64_t duration, int grid_x) {
    ++correlation_;
    tables_.insert("CUPTI_ACTIVITY_KIND_RUNTIME", launch, launch + 6 * kUs, 0, globalTid(tid), correlation_,
                   stringId("cudaLaunchKernel_v7000"));
    const std::int64_t start = std::max(launch + 8 * kUs, gpu_free_);
    gpu_free_ = start + duration;
    tables_.insert("CUPTI_ACTIVITY_KIND_KERNEL", start, gpu_free_, 0, 7, correlation_, kGlobalPid, stringId(name),
                   grid_x, 1, 1, 256, 1, 1, 64, 0, 16384);
  }

  // The pageable host-to-device copy of a batch of 64 FP16 images of 3x32x32.
  void copyBatch(std::int64_t call) {
    ++correlation_;
    tables_.insert("CUPTI_ACTIVITY_KIND_RUNTIME", call, call + 60 * kUs, 0, globalTid(kMainTid), correlation_,
                   stringId("cudaMemcpyAsync_v3020"));
    const std::int64_t start = std::max(call + 5 * kUs, gpu_free_);
    gpu_free_ = start + 50 * kUs;
    tables_.insert("CUPTI_ACTIVITY_KIND_MEMCPY", start, gpu_free_, 0, 7, correlation_, kGlobalPid, 393216, 1, 0, 2);
  }

  // One PyProf-marked call: its call stack, the module marker where PyProf writes one, the
  // operator with its arguments, and emit_nvtx's marker with the sequence number, nested.
  void call(std::string_view func_stack, std::string_view module, std::string_view op, std::string_view args,
            std::string_view nvtx_op, int sequence, std::int64_t start, std::int64_t end) {
    range(fmt::format("{{'traceMarker': ['train.py:52'], 'funcStack': '{}'}}", func_stack), start, end, kMainTid);
    if (!module.empty()) range(std::string(module), start + kUs / 2, end - kUs / 2, kMainTid);
    range(fmt::format("{{'mod': 'torch.nn.functional', 'op': '{}', 'args': [{}]}}", op, args), start + kUs, end - kUs,
          kMainTid);
    range(fmt::format("{}, seq = {}", nvtx_op, sequence), start + 2 * kUs, end - 2 * kUs, kMainTid);
  }

  void addStep(int step) {
    const std::int64_t t = 2'000'000'000 + step * 2'000 * kUs;
    const int seq = 40 + step * 10;  // conv2d seq, relu seq + 1, linear seq + 2
    copyBatch(t + 10 * kUs);
    call("/Net::forward/Conv2d::_call_impl/Conv2d::forward/Conv2d::_conv_forward/conv2d",
         "{'mod': 'Conv2d', 'strRepr': '3, 64, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1)'}", "conv2d",
         fmt::format("{}, {}, {{'name': '', 'type': 'NoneType', 'value': None}}, {{'name': '', 'type': "
                     "'tuple', 'value': (1, 1)}}, {{'name': '', 'type': 'tuple', 'value': (1, 1)}}, "
                     "{{'name': '', 'type': 'tuple', 'value': (1, 1)}}, {{'name': '', 'type': 'int', "
                     "'value': 1}}",
                     tensor("(64, 3, 32, 32)"), tensor("(64, 3, 3, 3)")),
         "conv2d", seq, t + 100 * kUs, t + 140 * kUs);
    kernel(t + 110 * kUs, kMainTid, kConvCudaCores, 180 * kUs, 512);
    call("/Net::forward/relu", "", "relu", tensor("(64, 64, 32, 32)"), "relu", seq + 1, t + 150 * kUs, t + 170 * kUs);
    kernel(t + 155 * kUs, kMainTid, kRelu, 40 * kUs, 4096);
    call("/Net::forward/Linear::_call_impl/Linear::forward/linear", "", "linear",
         fmt::format("{}, {}", tensor("(64, 65536)"), tensor("(10, 65536)")), "linear", seq + 2, t + 180 * kUs,
         t + 220 * kUs);
    kernel(t + 190 * kUs, kMainTid, kLinear, 60 * kUs, 1);

    // Backward on autograd's thread, linked to the forward calls by the sequence numbers.
    range(fmt::format("AddmmBackward, seq = {}", seq + 2), t + 300 * kUs, t + 360 * kUs, kAutogradTid);
    kernel(t + 305 * kUs, kAutogradTid, kLinearGradInput, 70 * kUs, 64);
    kernel(t + 330 * kUs, kAutogradTid, kLinearGradWeight, 90 * kUs, 64);
    range(fmt::format("ThresholdBackward, seq = {}", seq + 1), t + 370 * kUs, t + 390 * kUs, kAutogradTid);
    kernel(t + 375 * kUs, kAutogradTid, kRelu, 45 * kUs, 4096);
    range(fmt::format("CudnnConvolutionBackward, seq = {}", seq), t + 400 * kUs, t + 440 * kUs, kAutogradTid);
    kernel(t + 405 * kUs, kAutogradTid, kConvWgrad, 120 * kUs, 64);

    range("Optimizer.step#SGD.step", t + 1'000 * kUs, t + 1'100 * kUs, kMainTid);
    kernel(t + 1'010 * kUs, kMainTid, kSgd, 30 * kUs, 2048);
  }

  SqlScript tables_ = [] {
    SqlScript tables;
    tables.add("CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT, "
               "globalTid INTEGER, eventId INTEGER NOT NULL PRIMARY KEY)");
    tables.add("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass "
               "INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL)");
    tables.add("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER "
               "NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT "
               "NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, "
               "blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, registersPerThread INTEGER NOT NULL, "
               "staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL)");
    tables.add("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER "
               "NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, "
               "copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER)");
    return tables;
  }();
  std::map<std::string, std::int64_t> strings_;
  std::int64_t nvtx_events_ = 0;
  std::int64_t correlation_ = 100;
  std::int64_t gpu_free_ = 0;
};

TEST(GoldenReportTest, NsightExportWithPyProfMarkersGivesTheExpectedReport) {
  const std::filesystem::path dir = kGoldenDir / "nsys_pyprof";
  expectGolden(NsysExport().build(), dir / "export.sql");
  test::ScratchDir scratch;
  const std::string export_path = scratch.file("export.sqlite");
  const trace::Status written = writeDatabase(export_path, test::readFile((dir / "export.sql").string()));
  ASSERT_TRUE(written) << written.error().message;
  expectReportMatchesGolden(dir, {export_path}, scratch);
}

}  // namespace
}  // namespace ampscope::golden
