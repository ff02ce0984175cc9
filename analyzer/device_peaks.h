#pragma once
// Peak math rates per GPU generation (dense, no sparsity, from NVIDIA's datasheets; see
// docs/amdahl.md), which set how much faster matrix math gets on FP16/BF16 Tensor Cores.

#include <string>

#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct DevicePeaks {
  std::string name;           // the table row used, e.g. "A100 SXM"
  double fp32_tflops = 0;     // CUDA cores
  double tf32_tflops = 0;     // Tensor Cores (0: none)
  double fp16_tflops = 0;     // FP16/BF16 Tensor Cores, FP32 accumulate
};

// The row for a device, chosen by compute capability; kNone-like empty name when unknown.
DevicePeaks peaksFor(const trace::Device& device);

}  // namespace ampscope::analyzer
