// Golden case kineto_modules: a Kineto trace recorded with with_modules (nn.Module frames as
// python_function events) and a backward pass on the autograd thread, so that every kernel,
// forward and backward, belongs to a module instance; every report file compared with
// tests/golden/kineto_modules/.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "golden_fixture.h"
#include "kineto_trace_writer.h"

namespace ampscope::golden {
namespace {

// Kernel names as PyTorch 2 on an H100 runs them in BF16 (cuBLAS for aligned GEMMs, CUTLASS
// align1 kernels where a dimension, here GPT-2's vocabulary of 50,257, is odd).
constexpr const char* kAlignedGemm =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas";
constexpr const char* kOddGemmNn =
    "void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_nn_align1>(cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_nn_align1::Params)";
constexpr const char* kOddGemmTn =
    "void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1>(cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1::Params)";
constexpr const char* kGelu =
    "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
    "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, "
    "std::array<char*, 2ul> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}"
    "::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)";
constexpr const char* kGeluBackward =
    "void at::native::vectorized_elementwise_kernel<4, at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, "
    "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::"
    "{lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul> >(int, at::native::GeluBackwardCUDAKernelImpl("
    "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::"
    "{lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul>)";
constexpr const char* kFusedAdamW =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<4>, "
    "at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, double*, double, "
    "double, double, double, double, bool, float*, float*>(at::native::(anonymous namespace)::TensorListMetadata<4>, "
    "at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, double*, double, "
    "double, double, double, double, bool, float*, float*)";

constexpr int kHost = 10;      // the Python thread
constexpr int kAutograd = 11;  // autograd's device thread, where backward ops run

// A two-layer MLP head trained in BF16 on an H100, 512 tokens a step: Linear_0 (768 -> 3072),
// GELU_0, Linear_1 (3072 -> 50,257). Each module's call is an "nn.Module: <class>_<n>" frame
// around its operators; backward ops carry the forward op's sequence number, which is how their
// kernels find the module. Three profiler steps of 1.2 ms, the first a warm-up.
class ModuleTrace {
 public:
  std::string build() {
    for (int step = 0; step < 3; ++step) addStep(step);
    return trace_.document(R"("schemaVersion": 1,
  )" + deviceProperties("NVIDIA H100 80GB HBM3", 85018279936, 9, 0, 132));
  }

 private:
  // A kernel launched at launch_ts, run when the stream is free.
  void kernel(double launch_ts, int tid, const char* name, double dur) {
    const double start = std::max(launch_ts + 7, gpu_free_);
    trace_.launch(launch_ts, tid, name, start, dur);
    gpu_free_ = start + dur;
  }

  void op(std::string_view name, double ts, double dur, int tid, const std::string& args) {
    trace_.event("cpu_op", name, ts, dur, tid, args);
  }

  static std::string forwardArgs(std::string_view dims, std::string_view types, int sequence) {
    return fmt::format(R"("Input Dims": {}, "Input type": {}, "Fwd thread id": 0, "Sequence number": {})", dims, types,
                       sequence);
  }
  static std::string backwardArgs(int sequence) {
    return fmt::format(R"("Fwd thread id": 1, "Sequence number": {})", sequence);
  }

  // The backward of one forward op: autograd's evaluate_function around the node, the node around
  // the ops that launch the kernels.
  void backwardNode(std::string_view node, int sequence, double ts, double dur) {
    op(fmt::format("autograd::engine::evaluate_function: {}", node), ts, dur, kAutograd, backwardArgs(sequence));
    op(node, ts + 2, dur - 6, kAutograd, backwardArgs(sequence));
  }

  void addStep(int step) {
    const double t = 1000 + step * 1200;
    const int seq = 100 + step * 10;  // Linear_0: seq, seq + 1; GELU_0: seq + 2; Linear_1: seq + 3, seq + 4
    const std::string bf16_3 = R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])";
    trace_.event("user_annotation", fmt::format("ProfilerStep#{}", step + 1), t, 1199, kHost);
    trace_.event("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t + 1, 50, kHost);

    trace_.event("python_function", "nn.Module: Linear_0", t + 60, 60, kHost);
    op("aten::linear", t + 65, 50, kHost, forwardArgs("[[512, 768], [3072, 768], [3072]]", bf16_3, seq));
    op("aten::addmm", t + 70, 40, kHost, forwardArgs("[[3072], [512, 768], [768, 3072]]", bf16_3, seq + 1));
    kernel(t + 75, kHost, kAlignedGemm, 12);

    trace_.event("python_function", "nn.Module: GELU_0", t + 130, 30, kHost);
    op("aten::gelu", t + 133, 24, kHost, forwardArgs("[[512, 3072]]", R"(["c10::BFloat16"])", seq + 2));
    kernel(t + 136, kHost, kGelu, 8);

    trace_.event("python_function", "nn.Module: Linear_1", t + 170, 60, kHost);
    op("aten::linear", t + 175, 50, kHost, forwardArgs("[[512, 3072], [50257, 3072], [50257]]", bf16_3, seq + 3));
    op("aten::addmm", t + 180, 40, kHost, forwardArgs("[[50257], [512, 3072], [3072, 50257]]", bf16_3, seq + 4));
    kernel(t + 185, kHost, kOddGemmNn, 250);

    // Backward, last layer first: Linear_1's input and weight gradients, GELU_0's, then only
    // Linear_0's weight gradient (its input needs none).
    backwardNode("AddmmBackward0", seq + 4, t + 260, 120);
    op("aten::mm", t + 265, 40, kAutograd,
       R"("Input Dims": [[512, 50257], [50257, 3072]], "Input type": ["c10::BFloat16", "c10::BFloat16"])");
    kernel(t + 270, kAutograd, kOddGemmNn, 240);
    op("aten::mm", t + 310, 40, kAutograd,
       R"("Input Dims": [[50257, 512], [512, 3072]], "Input type": ["c10::BFloat16", "c10::BFloat16"])");
    kernel(t + 315, kAutograd, kOddGemmTn, 250);
    backwardNode("GeluBackward0", seq + 2, t + 390, 40);
    op("aten::gelu_backward", t + 395, 25, kAutograd,
       R"("Input Dims": [[512, 3072], [512, 3072]], "Input type": ["c10::BFloat16", "c10::BFloat16"])");
    kernel(t + 400, kAutograd, kGeluBackward, 10);
    backwardNode("AddmmBackward0", seq + 1, t + 440, 60);
    op("aten::mm", t + 445, 40, kAutograd,
       R"("Input Dims": [[3072, 512], [512, 768]], "Input type": ["c10::BFloat16", "c10::BFloat16"])");
    kernel(t + 450, kAutograd, kAlignedGemm, 14);

    trace_.event("user_annotation", "Optimizer.step#AdamW.step", t + 520, 100, kHost);
    op("aten::_fused_adamw_", t + 525, 80, kHost, "");
    kernel(t + 530, kHost, kFusedAdamW, 30);
  }

  KinetoTraceWriter trace_;
  double gpu_free_ = 0;
};

TEST(GoldenReportTest, KinetoTraceWithModuleFramesGivesTheExpectedReport) {
  const std::filesystem::path dir = kGoldenDir / "kineto_modules";
  expectGolden(ModuleTrace().build(), dir / "trace.json");
  test::ScratchDir scratch;
  expectReportMatchesGolden(dir, {"trace.json"}, scratch);
}

}  // namespace
}  // namespace ampscope::golden
