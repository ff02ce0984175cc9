// Convolutions through cuDNN's convolution API (NCHW or NHWC, FP32 accumulation). Operands of one dtype
// go to cuDNN as they are. A mix of dtypes, which cuDNN does not take, or a 16-bit type cuDNN has
// no algorithm for on this GPU, runs in FP32 on widened copies (exact) and rounds the result once,
// as the CPU backend does.
#include <array>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "trainer/backend/backend_error.h"
#include "trainer/cuda/conv_plan.h"
#include "trainer/cuda/cuda_backend_impl.h"
#include "trainer/cuda/cuda_check.h"

namespace ampscope::trainer::cuda {

namespace {

// Algorithms asking for more are passed over; cuDNN always offers some that need far less.
constexpr std::size_t kMaxWorkspaceBytes = std::size_t{1} << 30;

// The math mode to run an algorithm cuDNN proposes with, or none when it is not allowed: FP32
// without TF32 stays on FMA (cuDNN's default math lets Ampere and newer use TF32), and nothing may
// convert FP32 data down to FP16.
std::optional<cudnnMathType_t> allowedMath(cudnnMathType_t proposed, DType data, bool tf32) {
  if (proposed == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) return std::nullopt;
  if (data == DType::kFp32 && !tf32) {
    if (proposed == CUDNN_TENSOR_OP_MATH) return std::nullopt;
    return CUDNN_FMA_MATH;
  }
  return proposed;
}

// What to ask the heuristics with, and the fallback's mode: Tensor Cores for 16-bit data, and for
// FP32 what the TF32 setting allows.
cudnnMathType_t baseMath(DType data, bool tf32) {
  if (data != DType::kFp32) return CUDNN_TENSOR_OP_MATH;
  return tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
}

// Walks cuDNN's heuristic ranking (best first) and takes the first algorithm that succeeds with an
// allowed math mode and a workspace within bounds; workspace(algo, &bytes) queries the size for
// the mode set on the descriptor. Then algorithm 0 (implicit GEMM / ALGO_0), if cuDNN takes it;
// none when it does not.
template <typename Perf, typename Workspace>
std::optional<ConvAlgorithm> pickAlgorithm(const Perf* ranked, int ranked_count, const ConvPlan& plan, bool tf32,
                                           Workspace&& workspace) {
  using Algo = decltype(ranked[0].algo);
  for (int i = 0; i < ranked_count; ++i) {
    const Perf& candidate = ranked[i];
    if (candidate.status != CUDNN_STATUS_SUCCESS || candidate.memory > kMaxWorkspaceBytes) continue;
    const std::optional<cudnnMathType_t> math = allowedMath(candidate.mathType, plan.data_type, tf32);
    if (!math) continue;
    AMPSCOPE_CUDNN_CHECK(cudnnSetConvolutionMathType(plan.conv.get(), *math));
    std::size_t bytes = 0;
    if (workspace(candidate.algo, &bytes) != CUDNN_STATUS_SUCCESS || bytes > kMaxWorkspaceBytes) continue;
    return ConvAlgorithm{static_cast<int>(candidate.algo), *math, bytes};
  }
  const cudnnMathType_t math = baseMath(plan.data_type, tf32);
  AMPSCOPE_CUDNN_CHECK(cudnnSetConvolutionMathType(plan.conv.get(), math));
  std::size_t bytes = 0;
  if (workspace(static_cast<Algo>(0), &bytes) != CUDNN_STATUS_SUCCESS) return std::nullopt;
  return ConvAlgorithm{0, math, bytes};
}

std::optional<ConvAlgorithm> chooseForward(cudnnHandle_t handle, const ConvPlan& plan, bool tf32) {
  std::array<cudnnConvolutionFwdAlgoPerf_t, CUDNN_CONVOLUTION_FWD_ALGO_COUNT> ranked{};
  int count = 0;
  AMPSCOPE_CUDNN_CHECK(cudnnSetConvolutionMathType(plan.conv.get(), baseMath(plan.data_type, tf32)));
  AMPSCOPE_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(handle, plan.x.get(), plan.filter.get(), plan.conv.get(),
                                                              plan.y.get(), static_cast<int>(ranked.size()), &count,
                                                              ranked.data()));
  return pickAlgorithm(ranked.data(), count, plan, tf32, [&](cudnnConvolutionFwdAlgo_t algo, std::size_t* bytes) {
    return cudnnGetConvolutionForwardWorkspaceSize(handle, plan.x.get(), plan.filter.get(), plan.conv.get(),
                                                   plan.y.get(), algo, bytes);
  });
}

std::optional<ConvAlgorithm> chooseBackwardData(cudnnHandle_t handle, const ConvPlan& plan, bool tf32) {
  std::array<cudnnConvolutionBwdDataAlgoPerf_t, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT> ranked{};
  int count = 0;
  AMPSCOPE_CUDNN_CHECK(cudnnSetConvolutionMathType(plan.conv.get(), baseMath(plan.data_type, tf32)));
  AMPSCOPE_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, plan.filter.get(), plan.y.get(),
                                                                   plan.conv.get(), plan.x.get(),
                                                                   static_cast<int>(ranked.size()), &count,
                                                                   ranked.data()));
  return pickAlgorithm(ranked.data(), count, plan, tf32, [&](cudnnConvolutionBwdDataAlgo_t algo, std::size_t* bytes) {
    return cudnnGetConvolutionBackwardDataWorkspaceSize(handle, plan.filter.get(), plan.y.get(), plan.conv.get(),
                                                        plan.x.get(), algo, bytes);
  });
}

std::optional<ConvAlgorithm> chooseBackwardFilter(cudnnHandle_t handle, const ConvPlan& plan, bool tf32) {
  std::array<cudnnConvolutionBwdFilterAlgoPerf_t, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT> ranked{};
  int count = 0;
  AMPSCOPE_CUDNN_CHECK(cudnnSetConvolutionMathType(plan.conv.get(), baseMath(plan.data_type, tf32)));
  AMPSCOPE_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, plan.x.get(), plan.y.get(),
                                                                     plan.conv.get(), plan.filter.get(),
                                                                     static_cast<int>(ranked.size()), &count,
                                                                     ranked.data()));
  return pickAlgorithm(ranked.data(), count, plan, tf32,
                       [&](cudnnConvolutionBwdFilterAlgo_t algo, std::size_t* bytes) {
                         return cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, plan.x.get(), plan.y.get(),
                                                                               plan.conv.get(), plan.filter.get(),
                                                                               algo, bytes);
                       });
}

using Chooser = std::optional<ConvAlgorithm> (*)(cudnnHandle_t, const ConvPlan&, bool);

// The plan and algorithm one direction runs with: in the operands' common type when they share
// one and cuDNN has an algorithm for it, in FP32 otherwise.
std::pair<ConvPlan*, ConvAlgorithm> resolve(ConvPlanCache& cache, cudnnHandle_t handle, const ConvGeometry& g,
                                            DType a, DType b, DType out, bool tf32, ConvDirection ConvPlan::*direction,
                                            Chooser choose, const char* name) {
  DType data = a == b && b == out ? a : DType::kFp32;
  while (true) {
    ConvPlan& plan = cache.plan(g, data, tf32);
    ConvDirection& state = plan.*direction;
    if (!state.chosen) {
      state.algorithm = choose(handle, plan, tf32);
      state.chosen = true;
    }
    if (state.algorithm) return {&plan, *state.algorithm};
    if (data == DType::kFp32) {
      throw BackendError("cuDNN", fmt::format("no {} convolution algorithm for n={} c={} h={} w={} k={} r={} s={} "
                                              "stride={} pad={} {} in float32",
                                              name, g.n, g.c, g.h, g.w, g.k, g.r, g.s, g.stride, g.pad,
                                              g.layout == MemoryLayout::kChannelsLast ? "NHWC" : "NCHW"));
    }
    data = DType::kFp32;
  }
}

// Sets the algorithm's math mode on the shared descriptor and returns a workspace big enough.
void* prepare(const ConvPlan& plan, const ConvAlgorithm& algo, DeviceBuffer& workspace, cudaStream_t stream) {
  AMPSCOPE_CUDNN_CHECK(cudnnSetConvolutionMathType(plan.conv.get(), algo.math));
  return workspace.reserve(algo.workspace_bytes + 1, stream);
}

constexpr float kOne = 1.0f;
constexpr float kZero = 0.0f;

}  // namespace

void CudaBackend::convForward(const ConvGeometry& g, const Tensor& x, const Tensor& filter, Tensor& y) {
  const auto [plan, algo] = resolve(*conv_plans_, cudnn_.get(), g, x.dtype(), filter.dtype(), y.dtype(), tf32_,
                                    &ConvPlan::forward, chooseForward, "forward");
  const Tensor x_in = castTensor(*this, x, plan->data_type);
  const Tensor w_in = castTensor(*this, filter, plan->data_type);
  Tensor y_out = y.dtype() == plan->data_type ? y : allocate(y.shape(), plan->data_type);
  void* workspace = prepare(*plan, algo, workspace_, stream());
  AMPSCOPE_CUDNN_CHECK(cudnnConvolutionForward(cudnn_.get(), &kOne, plan->x.get(), readView(x_in).data,
                                               plan->filter.get(), readView(w_in).data, plan->conv.get(),
                                               static_cast<cudnnConvolutionFwdAlgo_t>(algo.algorithm), workspace,
                                               algo.workspace_bytes, &kZero, plan->y.get(), writeView(y_out).data));
  if (y_out.raw() != y.raw()) copy(y_out, y);
}

void CudaBackend::convBackwardData(const ConvGeometry& g, const Tensor& dy, const Tensor& filter, Tensor& dx) {
  const auto [plan, algo] = resolve(*conv_plans_, cudnn_.get(), g, dy.dtype(), filter.dtype(), dx.dtype(), tf32_,
                                    &ConvPlan::backward_data, chooseBackwardData, "backward data");
  const Tensor dy_in = castTensor(*this, dy, plan->data_type);
  const Tensor w_in = castTensor(*this, filter, plan->data_type);
  Tensor dx_out = dx.dtype() == plan->data_type ? dx : allocate(dx.shape(), plan->data_type);
  void* workspace = prepare(*plan, algo, workspace_, stream());
  AMPSCOPE_CUDNN_CHECK(cudnnConvolutionBackwardData(cudnn_.get(), &kOne, plan->filter.get(), readView(w_in).data,
                                                    plan->y.get(), readView(dy_in).data, plan->conv.get(),
                                                    static_cast<cudnnConvolutionBwdDataAlgo_t>(algo.algorithm),
                                                    workspace, algo.workspace_bytes, &kZero, plan->x.get(),
                                                    writeView(dx_out).data));
  if (dx_out.raw() != dx.raw()) copy(dx_out, dx);
}

void CudaBackend::convBackwardFilter(const ConvGeometry& g, const Tensor& x, const Tensor& dy, Tensor& dfilter) {
  const auto [plan, algo] = resolve(*conv_plans_, cudnn_.get(), g, x.dtype(), dy.dtype(), dfilter.dtype(), tf32_,
                                    &ConvPlan::backward_filter, chooseBackwardFilter, "backward filter");
  const Tensor x_in = castTensor(*this, x, plan->data_type);
  const Tensor dy_in = castTensor(*this, dy, plan->data_type);
  Tensor dw_out = dfilter.dtype() == plan->data_type ? dfilter : allocate(dfilter.shape(), plan->data_type);
  void* workspace = prepare(*plan, algo, workspace_, stream());
  AMPSCOPE_CUDNN_CHECK(cudnnConvolutionBackwardFilter(cudnn_.get(), &kOne, plan->x.get(), readView(x_in).data,
                                                      plan->y.get(), readView(dy_in).data, plan->conv.get(),
                                                      static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo.algorithm),
                                                      workspace, algo.workspace_bytes, &kZero, plan->filter.get(),
                                                      writeView(dw_out).data));
  if (dw_out.raw() != dfilter.raw()) copy(dw_out, dfilter);
}

}  // namespace ampscope::trainer::cuda
