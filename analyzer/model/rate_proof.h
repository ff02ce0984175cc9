#pragma once
// Path (b) of the Tensor Core evidence (verdicts/tensor_core_evidence.h): physics. It needs the
// measured rate of each op, which only the model has, so it runs here, once the op rows exist,
// and hands the verdicts it proves back to the kernel verdicts.

#include <unordered_map>

#include "analyzer/core/tensor_core_verdict.h"
#include "analyzer/model/op_performance.h"
#include "analyzer/verdicts/kernel_verdicts.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

// Path (b): every kernel name whose verdict is unknown and that ran in an op whose achieved rate
// (its FLOPs over all its kernels' time) is above the CUDA-core bound and not above the Tensor
// Core peak, where no other matrix kernel of the op could have done the math. Adds the proven
// kernels' time to their op rows' tensor_core_time_ns.
// It builds the verdicts the per-kernel table (kernel_attribution.h) holds, so it runs before the
// table and keeps its own passes: `kernel_rows` as the model found them, `verdicts` as they stood
// before this proof.
std::unordered_map<trace::StringId, TensorCoreVerdict> proveByRate(const trace::Trace& trace, OpPerformance& ops,
                                                                   const KernelOpRows& kernel_rows,
                                                                   KernelVerdicts& verdicts);

}  // namespace ampscope::analyzer
