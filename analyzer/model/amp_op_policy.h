#pragma once
// What automatic mixed precision does to an op, by its name, from PyTorch's autocast op lists
// (docs: torch.amp "CUDA Ops that can autocast to float16" / "... to float32"): matrix ops run in
// FP16/BF16; ops autocast keeps in FP32 (softmax, norms, losses, exp/log, reductions) read and
// write FP32 as before; the optimizer updates FP32 master weights; collectives reduce the FP32
// gradients. Everything else runs on the half-precision tensors the matrix ops produce.

#include <string_view>

#include "trace/trace_model.h"

namespace ampscope::analyzer {

// softmax, log_softmax, layer_norm, group_norm, nll_loss, cross_entropy, mse_loss, sum, cumsum,
// exp, log, pow, norm, ... and their backward ops, in aten::, autograd-node and PyProf spelling.
bool autocastKeepsFp32(std::string_view op_name);

// The optimizer's work: its phase, or an optimizer step / fused or foreach update by name.
bool updatesMasterWeights(std::string_view op_name, trace::Phase phase);

// NCCL and other collective kernels (ncclKernel_*, ncclDevKernel_*), and the framework ops that
// launch them (c10d::*, nccl:*, record_param_comms).
bool isCollectiveKernel(std::string_view kernel_name);
bool isCollectiveOp(std::string_view op_name);

// A dtype list (Range::dtypes) whose floating-point tensors are FP16/BF16 (or lower).
bool dtypesAreHalf(std::string_view dtypes_json);

}  // namespace ampscope::analyzer
