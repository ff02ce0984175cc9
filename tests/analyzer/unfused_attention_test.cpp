#include "analyzer/model/unfused_attention.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../test_support.h"
#include "analyzer/advice/recommendations.h"
#include "analyzer/run_analysis.h"

namespace ampscope::analyzer {
namespace {

constexpr const char* kGemmKernel =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas";
constexpr const char* kSoftmaxKernel =
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16, float, c10::BFloat16, "
    "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(c10::BFloat16*, c10::BFloat16 const*, int)";
constexpr const char* kSoftmaxBackwardKernel =
    "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<8, c10::BFloat16, float, c10::BFloat16, "
    "at::native::(anonymous namespace)::SoftMaxBackwardEpilogue>(c10::BFloat16*, c10::BFloat16 const*, "
    "c10::BFloat16 const*, int)";
constexpr const char* kElementwiseKernel =
    "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, "
    "c10::BFloat16, at::native::binary_internal::DivFunctor<float> >, std::array<char*, 3ul> >(int, "
    "at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, "
    "at::native::binary_internal::DivFunctor<float> >, std::array<char*, 3ul>)";
constexpr const char* kFlashKernel =
    "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
    "cutlass::bfloat16_t, Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, false, false, false, "
    "false, true, false, false>(pytorch_flash::Flash_fwd_params)";

// A Kineto trace of one profiler step on an H100, written op by op: operators on the main thread
// (tid 1) or the autograd thread (tid 2) open and close around the kernels they launch, and the
// kernels run one after another on one stream.
class KinetoWriter {
 public:
  struct Op {
    std::string name;
    std::string dims = "[]";
    std::string types = "[]";
    std::string concrete;  // Concrete Inputs, "" for none
    int sequence = -1;
    bool backward = false;  // on the autograd thread, with its forward thread's id
  };

  KinetoWriter& open(const Op& op) {
    open_.push_back({op, now_});
    now_ += 1;
    return *this;
  }
  KinetoWriter& openModule(const std::string& module) { return open({"nn.Module: " + module, "", "", "", -1, false}); }

  KinetoWriter& kernel(const std::string& name, double us) {
    const int correlation = ++correlation_;
    const int tid = !open_.empty() && open_.back().op.backward ? 2 : 1;
    events_.push_back(fmt::format(R"({{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":{},)"
                                  R"("ts":{:.1f},"dur":0.5,"args":{{"correlation":{}}}}})",
                                  tid, now_, correlation));
    gpu_now_ = std::max(gpu_now_, now_ + 1.0);
    events_.push_back(fmt::format(R"({{"ph":"X","cat":"kernel","name":"{}","pid":0,"tid":7,"ts":{:.1f},"dur":{:.1f},)"
                                  R"("args":{{"device":0,"stream":7,"correlation":{}}}}})",
                                  name, gpu_now_, us, correlation));
    gpu_now_ += us;
    now_ += 1;
    return *this;
  }

  KinetoWriter& close() {
    const Open o = open_.back();
    open_.pop_back();
    const double dur = now_ - o.start;
    now_ += 1;
    if (o.op.name.starts_with("nn.Module: ")) {
      events_.push_back(fmt::format(R"({{"ph":"X","cat":"python_function","name":"{}","pid":1,"tid":1,"ts":{:.1f},)"
                                    R"("dur":{:.1f},"args":{{}}}})",
                                    o.op.name, o.start, dur));
      return *this;
    }
    std::string args = fmt::format(R"("Input Dims":{},"Input type":{})", o.op.dims, o.op.types);
    if (!o.op.concrete.empty()) args += fmt::format(R"(,"Concrete Inputs":{})", o.op.concrete);
    if (o.op.sequence >= 0) args += fmt::format(R"(,"Sequence number":{})", o.op.sequence);
    if (o.op.backward) args += R"(,"Fwd thread id":1)";
    events_.push_back(fmt::format(R"({{"ph":"X","cat":"cpu_op","name":"{}","pid":1,"tid":{},"ts":{:.1f},)"
                                  R"("dur":{:.1f},"args":{{{}}}}})",
                                  o.op.name, o.op.backward ? 2 : 1, o.start, dur, args));
    return *this;
  }

  // An op with one kernel (or none: kernel_us 0).
  KinetoWriter& op(const Op& op, const std::string& kernel_name = "", double kernel_us = 0) {
    open(op);
    if (kernel_us > 0) kernel(kernel_name, kernel_us);
    return close();
  }

  // `device`: whether the trace names its GPU (deviceProperties). Without it, the trace names a
  // GPU the table does not know and gives nothing to derive its peaks from: the device is unknown
  // (with no deviceProperties at all, the kernels' sm90_ names would make it at least a Hopper).
  std::string json(bool device = true) const {
    std::string out = R"({"schemaVersion":1,)";
    out += device ? R"("deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3",)"
                    R"("totalGlobalMem":85018279936,"computeMajor":9,"computeMinor":0,"numSms":132}],)"
                  : R"("deviceProperties":[{"id":0,"name":"Prototype Accelerator"}],)";
    out += R"("traceEvents":[)";
    out += fmt::format(R"({{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0.0,)"
                       R"("dur":{:.1f},"args":{{}}}})",
                       now_ + 1);
    for (const std::string& e : events_) out += ",\n" + e;
    return out + "]}";
  }

  double gpuMicroseconds() const { return gpu_now_ - first_gpu_; }

 private:
  struct Open {
    Op op;
    double start;
  };
  std::vector<std::string> events_;
  std::vector<Open> open_;
  double now_ = 10;
  double gpu_now_ = 20;
  double first_gpu_ = 20;
  int correlation_ = 0;
};

std::string dims(std::initializer_list<std::vector<std::int64_t>> shapes) {
  std::string text = "[";
  for (const auto& shape : shapes) {
    text += text.size() > 1 ? "," : "";
    text += "[";
    for (std::size_t i = 0; i < shape.size(); ++i) text += (i == 0 ? "" : ",") + std::to_string(shape[i]);
    text += "]";
  }
  return text + "]";
}

constexpr const char* kBf16x2 = R"(["c10::BFloat16","c10::BFloat16"])";
constexpr const char* kBf16AndScalar = R"(["c10::BFloat16","Scalar"])";

// B=2, H=12, S=4096, E=64 in BF16, the way a transformer without SDPA computes it: Q Kᵀ, a scale, a
// mask added, softmax over the last dimension, dropout, P V. The kernels' times are what the
// pieces take on an H100: each of the 2·12·4096² BF16 scores (805 MB) is written by the first
// GEMM, read and written by the scale, the mask and the softmax, and read by the second GEMM, at
// about 2.8 TB/s; 2.3 ms in all, 45 TFLOP/s of attention (FlashAttention-3's paper measures
// standard attention at head size 64 and 4k tokens at 72 TFLOP/s, without the mask).
struct LongAttention {
  std::int64_t b = 2, h = 12, s = 4096, e = 64;
  bool folded_heads = false;  // [B·H, S, E] bmm calls instead of [B, H, S, E] matmul calls
  bool training = false;      // and the backward of each piece, on the autograd thread

  static constexpr double kScoresGemmUs = 300, kScaleUs = 565, kMaskUs = 570, kSoftmaxUs = 575, kOutputGemmUs = 290;
  static constexpr double kForwardUs = kScoresGemmUs + kScaleUs + kMaskUs + kSoftmaxUs + kOutputGemmUs;
  // The backward: two GEMMs per matrix op, the softmax's backward (P and dP read, dS written), the
  // scale's (dS read and written).
  static constexpr double kBackwardUs = 2 * 300 + 850 + 565 + 2 * 290;

  std::vector<std::int64_t> lead() const {
    return folded_heads ? std::vector<std::int64_t>{b * h} : std::vector<std::int64_t>{b, h};
  }
  std::vector<std::int64_t> shape(std::int64_t rows, std::int64_t cols) const {
    std::vector<std::int64_t> d = lead();
    d.push_back(rows);
    d.push_back(cols);
    return d;
  }

  void matrixOp(KinetoWriter& w, const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& bb, int sequence,
                double us) const {
    if (folded_heads) {
      w.op({"aten::bmm", dims({a, bb}), kBf16x2, "", sequence}, kGemmKernel, us);
      return;
    }
    // aten::matmul folds the heads into the batch and calls aten::bmm, which creates the node.
    std::vector<std::int64_t> a3{b * h, a[2], a[3]};
    std::vector<std::int64_t> b3{b * h, bb[2], bb[3]};
    w.open({"aten::matmul", dims({a, bb}), kBf16x2, "", -1});
    w.op({"aten::bmm", dims({a3, b3}), kBf16x2, "", sequence}, kGemmKernel, us);
    w.close();
  }

  void forward(KinetoWriter& w) const {
    const auto scores = shape(s, s);
    matrixOp(w, shape(s, e), shape(e, s), 10, kScoresGemmUs);
    w.op({"aten::div", dims({scores, {}}), kBf16AndScalar, R"(["","8.0"])", 11}, kElementwiseKernel, kScaleUs);
    w.op({"aten::add", dims({scores, {b, 1, 1, s}}), kBf16x2, "", 12}, kElementwiseKernel, kMaskUs);
    w.open({"aten::softmax", dims({scores, {}, {}}), R"(["c10::BFloat16","Scalar",""])", R"(["","-1",""])", 13});
    w.op({"aten::_softmax", dims({scores, {}, {}}), R"(["c10::BFloat16","Scalar","Scalar"])", R"(["","-1","False"])", 13},
         kSoftmaxKernel, kSoftmaxUs);
    w.close();
    w.op({"aten::dropout", dims({scores, {}, {}}), R"(["c10::BFloat16","Scalar","Scalar"])", R"(["","0.","False"])", 14});
    matrixOp(w, scores, shape(s, e), 15, kOutputGemmUs);
  }

  // Autograd runs the nodes in reverse, each under its evaluate_function range.
  void backward(KinetoWriter& w) const {
    const auto node = [&](const std::string& name, int sequence) {
      w.open({"autograd::engine::evaluate_function: " + name, "[]", "[]", "", sequence, true});
      w.open({name, "[]", "[]", "", sequence, true});
    };
    const auto done = [&] { w.close().close(); };
    const auto bmm = [&](double us) { w.op({"aten::bmm", "[]", "[]", "", -1, true}, kGemmKernel, us); };
    node("BmmBackward0", 15);
    bmm(290);
    bmm(290);
    done();
    node("SoftmaxBackward0", 13);
    w.op({"aten::_softmax_backward_data", "[]", "[]", "", -1, true}, kSoftmaxBackwardKernel, 850);
    done();
    node("AddBackward0", 12);
    done();
    node("DivBackward0", 11);
    w.op({"aten::div", "[]", "[]", "", -1, true}, kElementwiseKernel, 565);
    done();
    node("BmmBackward0", 10);
    bmm(300);
    bmm(300);
    done();
  }

  std::string json(bool device = true) const {
    KinetoWriter w;
    forward(w);
    if (training) backward(w);
    return w.json(device);
  }
};

RunAnalysis analyze(const test::ScratchDir& dir, const std::string& json) {
  auto run = analyzeFile(dir.write("trace.json", json));
  EXPECT_TRUE(run) << run.error().message;
  return run ? std::move(*run) : RunAnalysis{};
}

const Recommendation* findRule(const std::vector<Recommendation>& all, std::string_view rule) {
  for (const Recommendation& r : all) {
    if (r.rule == rule) return &r;
  }
  return nullptr;
}

// FLOP rates that FlashAttention-2 and -3 reach on an H100 SXM in BF16 at head size 64, forward,
// sequences of 512 to 16k (Shah et al., FlashAttention-3, arXiv:2407.08608, figure "Attention
// forward speed, head dim 64"): FlashAttention-2 282-324 TFLOP/s, FlashAttention-3 333-497.
constexpr double kSlowestFusedTflops = 282;
constexpr double kFastestFusedTflops = 497;

TEST(UnfusedAttentionTest, LongSequenceAttentionInPiecesGainsWhatPublishedFusedKernelsWouldSave) {
  test::ScratchDir dir;
  const LongAttention spec;
  const RunAnalysis run = analyze(dir, spec.json());
  ASSERT_EQ(run.summary.unfused_attention.size(), 1u);
  const UnfusedAttention& a = run.summary.unfused_attention[0];
  EXPECT_EQ(a.batch, 2);
  EXPECT_EQ(a.heads, 12);
  EXPECT_EQ(a.query_length, 4096);
  EXPECT_EQ(a.key_length, 4096);
  EXPECT_EQ(a.head_size, 64);
  EXPECT_EQ(a.value_head_size, 64);
  EXPECT_EQ(a.precision, MathPrecision::kBf16);
  EXPECT_EQ(a.fused_precision, MathPrecision::kBf16);
  EXPECT_FALSE(a.includes_amp);
  EXPECT_TRUE(a.masked);
  EXPECT_EQ(a.calls, 1u);
  EXPECT_EQ(a.backward_calls, 0u);
  EXPECT_TRUE(a.layers.empty());  // no module frames: found by nesting, order and shapes
  EXPECT_EQ(a.ops, (std::vector<std::string>{"aten::matmul", "aten::div", "aten::add", "aten::softmax",
                                             "aten::dropout", "aten::matmul"}));
  // Every piece's kernels, measured.
  EXPECT_EQ(a.gemm_ns, static_cast<std::int64_t>((LongAttention::kScoresGemmUs + LongAttention::kOutputGemmUs) * 1e3));
  EXPECT_EQ(a.softmax_ns, static_cast<std::int64_t>(LongAttention::kSoftmaxUs * 1e3));
  EXPECT_EQ(a.elementwise_ns, static_cast<std::int64_t>((LongAttention::kScaleUs + LongAttention::kMaskUs) * 1e3));
  EXPECT_EQ(a.measured_ns_per_step, static_cast<std::int64_t>(LongAttention::kForwardUs * 1e3));
  ASSERT_TRUE(a.estimated()) << a.note;
  // The forward's 4·B·H·S²·E FLOPs at the published fused kernels' rates bound the fused time.
  const double flops = 4.0 * 2 * 12 * 4096.0 * 4096.0 * 64;
  const double slowest_ns = flops / (kSlowestFusedTflops * 1e3);
  const double fastest_ns = flops / (kFastestFusedTflops * 1e3);
  EXPECT_GE(static_cast<double>(a.fused_ns_per_step), fastest_ns);
  EXPECT_LE(static_cast<double>(a.fused_ns_per_step), slowest_ns);
  const double measured_ns = LongAttention::kForwardUs * 1e3;
  EXPECT_GE(static_cast<double>(a.gain_ns_per_step), measured_ns - slowest_ns);
  EXPECT_LE(static_cast<double>(a.gain_ns_per_step), measured_ns - fastest_ns);
  EXPECT_GT(a.fused_efficiency, kFastestFusedTflops / 989.4 * 0.5);
  EXPECT_LT(a.fused_efficiency, kFastestFusedTflops / 989.4);

  const Recommendation* r = findRule(run.recommendations, "fuse-attention");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->target, "attention S=4096 E=64");
  EXPECT_EQ(r->estimated_gain_ns, a.gain_ns_per_step);
  EXPECT_NE(r->evidence.find("B=2, H=12, S=4096, E=64"), std::string::npos) << r->evidence;
  EXPECT_NE(r->evidence.find("BF16"), std::string::npos) << r->evidence;
  EXPECT_NE(r->evidence.find("FlashAttention-class kernel per call at"), std::string::npos) << r->evidence;
  EXPECT_NE(r->action.find("scaled_dot_product_attention(q, k, v, attn_mask=mask"), std::string::npos) << r->action;
}

TEST(UnfusedAttentionTest, OnAnUnknownDeviceTheFindingIsANoteWithoutAnEstimate) {
  test::ScratchDir dir;
  const RunAnalysis run = analyze(dir, LongAttention{}.json(/*device=*/false));
  ASSERT_EQ(run.summary.unfused_attention.size(), 1u);
  const UnfusedAttention& a = run.summary.unfused_attention[0];
  EXPECT_FALSE(a.estimated());
  EXPECT_EQ(a.gain_ns_per_step, 0);
  EXPECT_EQ(a.measured_ns_per_step, static_cast<std::int64_t>(LongAttention::kForwardUs * 1e3));
  const Recommendation* r = findRule(run.recommendations, "fuse-attention");
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(isNote(*r));
  EXPECT_NE(r->evidence.find("not estimated: the device is unknown"), std::string::npos) << r->evidence;
}

TEST(UnfusedAttentionTest, HeadsFoldedIntoTheBatchGiveTheSameAttentionAndEstimate) {
  test::ScratchDir dir;
  LongAttention spec;
  const RunAnalysis separate = analyze(dir, spec.json());
  spec.folded_heads = true;
  const RunAnalysis folded = analyze(dir, spec.json());
  ASSERT_EQ(separate.summary.unfused_attention.size(), 1u);
  ASSERT_EQ(folded.summary.unfused_attention.size(), 1u);
  const UnfusedAttention& a = folded.summary.unfused_attention[0];
  EXPECT_EQ(a.batch, 24);
  EXPECT_EQ(a.heads, 0);
  EXPECT_EQ(a.ops.front(), "aten::bmm");
  EXPECT_EQ(a.measured_ns_per_step, separate.summary.unfused_attention[0].measured_ns_per_step);
  EXPECT_EQ(a.fused_ns_per_step, separate.summary.unfused_attention[0].fused_ns_per_step);
  const Recommendation* r = findRule(folded.recommendations, "fuse-attention");
  ASSERT_NE(r, nullptr);
  EXPECT_NE(r->evidence.find("B x H=24"), std::string::npos) << r->evidence;
}

TEST(UnfusedAttentionTest, TrainingCountsTheBackwardOfEveryPieceAndTheFusedBackward) {
  test::ScratchDir dir;
  LongAttention spec;
  spec.training = true;
  const RunAnalysis run = analyze(dir, spec.json());
  ASSERT_EQ(run.summary.unfused_attention.size(), 1u);
  const UnfusedAttention& a = run.summary.unfused_attention[0];
  EXPECT_EQ(a.backward_calls, 1u);
  EXPECT_EQ(a.backward_ns, static_cast<std::int64_t>(LongAttention::kBackwardUs * 1e3));
  EXPECT_EQ(a.measured_ns_per_step, static_cast<std::int64_t>((LongAttention::kForwardUs + LongAttention::kBackwardUs) * 1e3));
  ASSERT_TRUE(a.fused_forward_ns && a.fused_backward_ns);
  // The backward does 2.5 times the forward's FLOPs (FlashAttention-2's five products), which the
  // published kernels run at 198-291 (FlashAttention-2) to 272-474 TFLOP/s (FlashAttention-3) on
  // an H100 at head size 64 (the same paper's "Attention backward speed, head dim 64").
  const double backward_flops = 2.5 * 4.0 * 2 * 12 * 4096.0 * 4096.0 * 64;
  EXPECT_GE(static_cast<double>(*a.fused_backward_ns), backward_flops / (474 * 1e3));
  EXPECT_LE(static_cast<double>(*a.fused_backward_ns), backward_flops / (198 * 1e3));
  EXPECT_GT(*a.fused_backward_ns, 2 * *a.fused_forward_ns);
  EXPECT_LT(*a.fused_backward_ns, 3 * *a.fused_forward_ns);
  EXPECT_EQ(a.gain_ns_per_step, a.measured_ns_per_step - (*a.fused_forward_ns + *a.fused_backward_ns));
  const Recommendation* r = findRule(run.recommendations, "fuse-attention");
  ASSERT_NE(r, nullptr);
  EXPECT_NE(r->evidence.find("their backward"), std::string::npos) << r->evidence;
  EXPECT_NE(r->evidence.find("its backward as FlashAttention-2's"), std::string::npos) << r->evidence;
}

// Within one module call: the softmax may be a module of its own (nn.Softmax), but both matrix ops
// of one attention run in the module that holds them.
TEST(UnfusedAttentionTest, TheLayerIsTheModuleCallThatHoldsThePieces) {
  test::ScratchDir dir;
  const LongAttention spec;
  const auto scores = spec.shape(4096, 4096);
  const auto softmax = [&](KinetoWriter& w) {
    w.openModule("Softmax_0");
    w.op({"aten::softmax", dims({scores, {}, {}}), R"(["c10::BFloat16","Scalar",""])", R"(["","-1",""])"},
         kSoftmaxKernel, LongAttention::kSoftmaxUs);
    w.close();
  };
  KinetoWriter one;
  one.openModule("WindowAttention_0");
  spec.matrixOp(one, spec.shape(4096, 64), spec.shape(64, 4096), -1, LongAttention::kScoresGemmUs);
  softmax(one);
  spec.matrixOp(one, scores, spec.shape(4096, 64), -1, LongAttention::kOutputGemmUs);
  one.close();
  const RunAnalysis nested = analyze(dir, one.json());
  ASSERT_EQ(nested.summary.unfused_attention.size(), 1u);
  EXPECT_EQ(nested.summary.unfused_attention[0].layers, std::vector<std::string>{"WindowAttention_0"});

  KinetoWriter two;
  two.openModule("Attention_0");
  spec.matrixOp(two, spec.shape(4096, 64), spec.shape(64, 4096), -1, LongAttention::kScoresGemmUs);
  two.close();
  two.openModule("Attention_1");
  softmax(two);
  spec.matrixOp(two, scores, spec.shape(4096, 64), -1, LongAttention::kOutputGemmUs);
  two.close();
  EXPECT_TRUE(analyze(dir, two.json()).summary.unfused_attention.empty());
}

TEST(UnfusedAttentionTest, AttentionAlreadyFusedGetsNoFinding) {
  test::ScratchDir dir;
  const std::vector<std::int64_t> q{2, 12, 4096, 64};
  const std::vector<std::int64_t> scores{2, 12, 4096, 4096};
  const std::string qkv = dims({q, q, q});
  const std::string types = R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16"])";
  // The flash implementation: one kernel.
  KinetoWriter flash;
  flash.open({"aten::scaled_dot_product_attention", qkv, types, ""});
  flash.open({"aten::_scaled_dot_product_flash_attention", qkv, types, ""});
  flash.op({"aten::_flash_attention_forward", dims({{2, 4096, 12, 64}, {2, 4096, 12, 64}, {2, 4096, 12, 64}}), types, ""},
           kFlashKernel, 260);
  flash.close().close();
  // The math implementation computes the pieces inside the op the user already calls.
  KinetoWriter math;
  math.open({"aten::scaled_dot_product_attention", qkv, types, ""});
  math.open({"aten::_scaled_dot_product_attention_math", qkv, types, ""});
  math.op({"aten::matmul", dims({q, {2, 12, 64, 4096}}), kBf16x2, ""}, kGemmKernel, 300);
  math.open({"aten::_safe_softmax", dims({scores, {}, {}}), R"(["c10::BFloat16","Scalar",""])", R"(["","-1",""])"});
  math.kernel(kSoftmaxKernel, 575);
  math.close();
  math.op({"aten::matmul", dims({scores, q}), kBf16x2, ""}, kGemmKernel, 290);
  math.close().close();
  for (const KinetoWriter* w : {&flash, &math}) {
    const RunAnalysis run = analyze(dir, w->json());
    EXPECT_TRUE(run.summary.unfused_attention.empty());
    EXPECT_EQ(findRule(run.recommendations, "fuse-attention"), nullptr);
  }
}

TEST(UnfusedAttentionTest, ASoftmaxNotOverAGemmsScoresGetsNoFinding) {
  test::ScratchDir dir;
  const std::vector<std::int64_t> scores{2, 12, 4096, 4096};
  const std::string softmax_types = R"(["c10::BFloat16","Scalar",""])";
  // A classifier's softmax over a linear layer's logits: no matrix op takes its output.
  KinetoWriter classifier;
  classifier.op({"aten::addmm", dims({{1000}, {64, 768}, {768, 1000}}), R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16"])", ""},
                kGemmKernel, 20);
  classifier.op({"aten::softmax", dims({{64, 1000}, {}, {}}), softmax_types, R"(["","-1",""])"}, kSoftmaxKernel, 5);
  // Scores-sized softmax fed by no matrix op (a tensor made element-wise), then a matrix op.
  KinetoWriter elementwise;
  elementwise.op({"aten::exp", dims({scores}), R"(["c10::BFloat16"])", ""}, kElementwiseKernel, 565);
  elementwise.op({"aten::softmax", dims({scores, {}, {}}), softmax_types, R"(["","-1",""])"}, kSoftmaxKernel, 575);
  elementwise.op({"aten::matmul", dims({scores, {2, 12, 4096, 64}}), kBf16x2, ""}, kGemmKernel, 290);
  // The right GEMMs around a softmax over another dimension.
  KinetoWriter other_dim;
  const LongAttention spec;
  spec.matrixOp(other_dim, spec.shape(4096, 64), spec.shape(64, 4096), -1, 300);
  other_dim.op({"aten::softmax", dims({scores, {}, {}}), softmax_types, R"(["","2",""])"}, kSoftmaxKernel, 575);
  spec.matrixOp(other_dim, scores, spec.shape(4096, 64), -1, 290);
  for (const KinetoWriter* w : {&classifier, &elementwise, &other_dim}) {
    const RunAnalysis run = analyze(dir, w->json());
    EXPECT_TRUE(run.summary.unfused_attention.empty());
    EXPECT_EQ(findRule(run.recommendations, "fuse-attention"), nullptr);
  }
}

// PyTorch 2.11's SDPA (cuDNN in BF16, memory-efficient in FP32) in the H100 LM traces.
TEST(UnfusedAttentionTest, TheLmTracesUseScaledDotProductAttentionAlready) {
  for (const char* name : {"h100/lm_bf16.json.gz", "h100/lm_fp32.json.gz"}) {
    auto run = analyzeFile(test::testData(name));
    ASSERT_TRUE(run) << run.error().message;
    EXPECT_TRUE(run->summary.unfused_attention.empty()) << name;
  }
}

TEST(UnfusedAttentionTest, TimesformerAttentionLayersGetFuseAttention) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-h100-timesformer-bf16/facebook_timesformer-base-finetuned-k400__1016002.json.gz");
  auto run = analyzeFile(path);
  ASSERT_TRUE(run) << run.error().message;
  // Divided space-time attention: over the 3137 tokens of a frame (patches and the class token)
  // and over the 8 frames of a patch, in each of the 12 layers; both by the same module class.
  ASSERT_EQ(run->summary.unfused_attention.size(), 2u);
  const UnfusedAttention& spatial = run->summary.unfused_attention[0];
  EXPECT_EQ(spatial.scores_shape, (std::vector<std::int64_t>{8, 12, 3137, 3137}));
  EXPECT_EQ(spatial.head_size, 64);
  EXPECT_EQ(spatial.precision, MathPrecision::kBf16);
  EXPECT_EQ(spatial.calls, 12u);
  const UnfusedAttention& temporal = run->summary.unfused_attention[1];
  EXPECT_EQ(temporal.scores_shape, (std::vector<std::int64_t>{3136, 12, 8, 8}));
  for (const UnfusedAttention* a : {&spatial, &temporal}) {
    EXPECT_EQ(a->layers.size(), 12u);
    for (const std::string& layer : a->layers) EXPECT_TRUE(layer.starts_with("TimesformerSelfAttention_")) << layer;
    EXPECT_EQ(a->ops, (std::vector<std::string>{"aten::matmul", "aten::mul", "aten::softmax", "aten::dropout",
                                                "aten::matmul"}));
  }
  // The spatial attention's pieces: the softmax over 1.9 GB of scores a call is most of them.
  EXPECT_GT(spatial.softmax_ns, spatial.gemm_ns);
  ASSERT_TRUE(spatial.estimated());
  EXPECT_GT(spatial.gain_ns_per_step, spatial.measured_ns_per_step / 2);
  // 3137 tokens cost a fused kernel a ragged last tile, not the align1 loads of a GEMM whose rows
  // they would be: near the model's 40% at E = 64.
  EXPECT_GT(spatial.fused_efficiency, 0.3);
  // 8 frames fill an eighth of a 64 x 64 tile on each side.
  ASSERT_TRUE(temporal.estimated());
  EXPECT_LT(temporal.fused_efficiency, 0.01);
  const Recommendation* r = findRule(run->recommendations, "fuse-attention");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->target, "attention S=3137 E=64");
  EXPECT_EQ(r->layers, spatial.layers);
  EXPECT_NE(r->evidence.find("TimesformerSelfAttention_"), std::string::npos);
}

}  // namespace
}  // namespace ampscope::analyzer
