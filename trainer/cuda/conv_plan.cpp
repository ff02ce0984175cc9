#include "trainer/cuda/conv_plan.h"

#include "trainer/cuda/cuda_check.h"

namespace ampscope::trainer::cuda {

namespace {

cudnnDataType_t cudnnType(DType dtype) {
  switch (dtype) {
    case DType::kFp16: return CUDNN_DATA_HALF;
    case DType::kBf16: return CUDNN_DATA_BFLOAT16;
    case DType::kFp32: break;
  }
  return CUDNN_DATA_FLOAT;
}

}  // namespace

ConvPlan::ConvPlan(const ConvGeometry& g, DType data) : data_type(data) {
  const cudnnDataType_t type = cudnnType(data);
  // cuDNN takes the dimensions in NCHW order whatever the format; the format says how they lie.
  const cudnnTensorFormat_t format =
      g.layout == MemoryLayout::kChannelsLast ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  const int n = checkedInt(g.n, "conv n");
  const int c = checkedInt(g.c, "conv c");
  const int k = checkedInt(g.k, "conv k");

  cudnnTensorDescriptor_t tensor = nullptr;
  AMPSCOPE_CUDNN_CHECK(cudnnCreateTensorDescriptor(&tensor));
  x = decltype(x)(tensor);
  AMPSCOPE_CUDNN_CHECK(cudnnSetTensor4dDescriptor(x.get(), format, type, n, c, checkedInt(g.h, "conv h"),
                                                  checkedInt(g.w, "conv w")));
  AMPSCOPE_CUDNN_CHECK(cudnnCreateTensorDescriptor(&tensor));
  y = decltype(y)(tensor);
  AMPSCOPE_CUDNN_CHECK(cudnnSetTensor4dDescriptor(y.get(), format, type, n, k, checkedInt(g.p(), "conv p"),
                                                  checkedInt(g.q(), "conv q")));

  cudnnFilterDescriptor_t weights = nullptr;
  AMPSCOPE_CUDNN_CHECK(cudnnCreateFilterDescriptor(&weights));
  filter = decltype(filter)(weights);
  AMPSCOPE_CUDNN_CHECK(cudnnSetFilter4dDescriptor(filter.get(), type, format, k, c,
                                                  checkedInt(g.r, "conv r"), checkedInt(g.s, "conv s")));

  cudnnConvolutionDescriptor_t convolution = nullptr;
  AMPSCOPE_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&convolution));
  conv = decltype(conv)(convolution);
  const int pad = checkedInt(g.pad, "conv pad");
  const int stride = checkedInt(g.stride, "conv stride");
  // Cross-correlation is what every framework calls convolution; FP32 accumulation for all types.
  AMPSCOPE_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(conv.get(), pad, pad, stride, stride, 1, 1,
                                                       CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
}

ConvPlan& ConvPlanCache::plan(const ConvGeometry& g, DType data, bool tf32) {
  // TF32 only changes anything for FP32 data; keying it otherwise would duplicate plans.
  const bool key_tf32 = tf32 && data == DType::kFp32;
  const std::array<std::int64_t, 12> key{g.n, g.c, g.h, g.w, g.k, g.r, g.s, g.stride, g.pad,
                                         static_cast<std::int64_t>(g.layout), static_cast<std::int64_t>(data),
                                         key_tf32 ? 1 : 0};
  std::unique_ptr<ConvPlan>& slot = plans_[key];
  if (!slot) slot = std::make_unique<ConvPlan>(g, data);
  return *slot;
}

}  // namespace ampscope::trainer::cuda
