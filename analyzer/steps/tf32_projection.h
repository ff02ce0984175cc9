#pragma once
// What allow_tf32 would give a run whose FP32 matrix math runs on CUDA cores, on a GPU with TF32
// Tensor Cores: that math at the per-op model's TF32 prediction (OpRow::tf32_speedup), every other
// part of the step as it is (Amdahl over the AMP projection's parts). Computed once in the summary;
// the enable-tf32 finding and the job's per-rank views read it. docs/amdahl.md.

#include "analyzer/model/op_performance.h"
#include "analyzer/steps/amdahl.h"

namespace ampscope::analyzer {

struct Tf32Projection {
  bool relevant = false;           // FP32 CUDA-core matrix math ran on a GPU with TF32 Tensor Cores
  double matrix_speedup = 1.0;     // of that math: its time over the model's TF32 prediction
  double projected_speedup = 1.0;  // of the step (or the window, amdahl.per_step false)
};

Tf32Projection projectTf32(const AmdahlProjection& amdahl, const OpPerformance& ops);

}  // namespace ampscope::analyzer
