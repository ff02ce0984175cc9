#pragma once
// cuDNN descriptors for one convolution geometry and data type, with the algorithm chosen for
// each direction. A training run meets the same few geometries every step, so building the
// descriptors and asking cuDNN's heuristics once per geometry takes that work off the step.

#include <cudnn.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>

#include "trainer/backend/backend.h"
#include "trainer/cuda/cuda_check.h"

namespace ampscope::trainer::cuda {

// An algorithm of one direction (cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t as int), the math
// mode it runs with and the workspace it needs.
struct ConvAlgorithm {
  int algorithm = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  std::size_t workspace_bytes = 0;
};

// What cuDNN was asked for one direction: nothing yet, or its answer (possibly that it has no
// algorithm for this data type, which sends the op to FP32).
struct ConvDirection {
  bool chosen = false;
  std::optional<ConvAlgorithm> algorithm;
};

struct ConvPlan {
  // x [n,c,h,w], filter [k,c,r,s], y [n,k,p,q] in the geometry's layout (NCHW and KCRS, or NHWC
  // and KRSC), all of `data`'s type; FP32 compute.
  ConvPlan(const ConvGeometry& g, DType data);

  DType data_type;
  UniqueHandle<cudnnTensorDescriptor_t, &cudnnDestroyTensorDescriptor> x;
  UniqueHandle<cudnnTensorDescriptor_t, &cudnnDestroyTensorDescriptor> y;
  UniqueHandle<cudnnFilterDescriptor_t, &cudnnDestroyFilterDescriptor> filter;
  UniqueHandle<cudnnConvolutionDescriptor_t, &cudnnDestroyConvolutionDescriptor> conv;
  ConvDirection forward;
  ConvDirection backward_data;
  ConvDirection backward_filter;
};

// Plans by geometry (its layout included), data type and TF32 setting. Unbounded: a model has a
// handful of geometries.
class ConvPlanCache {
 public:
  ConvPlan& plan(const ConvGeometry& g, DType data, bool tf32);

 private:
  std::map<std::array<std::int64_t, 12>, std::unique_ptr<ConvPlan>> plans_;
};

}  // namespace ampscope::trainer::cuda
