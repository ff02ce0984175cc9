#include "analyzer/steps/tf32_projection.h"

namespace ampscope::analyzer {

Tf32Projection projectTf32(const AmdahlProjection& amdahl, const OpPerformance& ops) {
  Tf32Projection out;
  const StepPart* fp32 = amdahl.part(StepPartKind::kEligibleFp32Math);
  if (!fp32 || fp32->ns_per_step <= 0 || amdahl.device.tf32_tflops <= 0 || amdahl.window_ns <= 0) return out;
  double now = 0;
  double then = 0;
  for (const OpRow& row : ops.rows) {
    if (row.op_class != OpClass::kMatrix || row.precision != MathPrecision::kFp32Simt || row.tf32_speedup <= 0) continue;
    now += static_cast<double>(row.time_ns);
    then += static_cast<double>(row.time_ns) / row.tf32_speedup;
  }
  out.relevant = true;
  out.matrix_speedup = then > 0 ? now / then : 1.0;
  const auto window = static_cast<double>(amdahl.window_ns);
  const auto math = static_cast<double>(fp32->ns_per_step);
  const double after = window - math + math / out.matrix_speedup;
  out.projected_speedup = after > 0 ? window / after : 1.0;
  return out;
}

}  // namespace ampscope::analyzer
