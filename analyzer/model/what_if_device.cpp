#include "analyzer/model/what_if_device.h"

#include <algorithm>

#include <fmt/format.h>

#include "analyzer/model/amp_op_policy.h"

namespace ampscope::analyzer {

WhatIfProjection projectOnDevice(const OpPerformance& ops, const DeviceChoice& target, double steps, bool default_device) {
  WhatIfProjection out;
  out.device = target;
  out.default_device = default_device;
  if (!target.spec) return out;
  const DeviceSpec& device = *target.spec;
  const MathPrecision amp_precision = ampPrecision(device);
  steps = std::max(1.0, steps);
  out.op_of_row.assign(ops.rows.size(), -1);
  double recorded = 0;
  double known = 0;
  for (std::size_t i = 0; i < ops.rows.size(); ++i) {
    const OpRow& row = ops.rows[i];
    recorded += static_cast<double>(row.time_ns);

    const double calls = static_cast<double>(row.calls) / steps;
    // The recorded kernels (host ops on a CPU run) say nothing of the GPU's: one GEMM per matrix
    // op, two in a backward pass (data and weight gradients); one kernel per memory-bound op.
    const int kernels = row.op_class == OpClass::kMatrix && row.pass == trace::Phase::kBackward ? 2 : 1;
    const bool half_recorded = dtypesAreHalf(row.dtypes_text);
    WhatIfOp op;
    op.row = i;
    if (row.work_above_peak) continue;
    if (row.op_class == OpClass::kMatrix && row.work.flops && row.work.gemm) {
      const double bytes = row.work.bytes.value_or(0.0);
      const double fp32_bytes = half_recorded ? bytes * 2 : bytes;
      const double half_bytes = fp32_bytes / 2;
      const auto fp32 = estimateMatrixTime(device, MathPrecision::kFp32Simt, *row.work.gemm, *row.work.flops, fp32_bytes, kernels);
      const auto tf32 = estimateMatrixTime(device, MathPrecision::kTf32, *row.work.gemm, *row.work.flops, fp32_bytes, kernels);
      const auto amp = estimateMatrixTime(device, amp_precision, *row.work.gemm, *row.work.flops, half_bytes, kernels);
      if (fp32) op.fp32_ns = fp32->ns * calls;
      op.tf32_ns = tf32 ? tf32->ns * calls : op.fp32_ns;
      // Under autocast the library still picks the fastest kernel: where the shape suits Tensor
      // Cores badly (one input channel), an FP16 kernel on CUDA cores, at FP32's rate on half the bytes.
      const auto simt_half = estimateMatrixTime(device, MathPrecision::kFp32Simt, *row.work.gemm, *row.work.flops, half_bytes, kernels);
      if (amp) {
        op.amp_ns = (simt_half ? std::min(amp->ns, simt_half->ns) : amp->ns) * calls;
        op.amp_tile_waste = amp->tile_waste;
      }
      op.misaligned = misalignedDimensions(*row.work.gemm, requiredMultiple(amp_precision));
      if (!op.misaligned.empty()) {
        const GemmDims wide = paddedDims(*row.work.gemm, op.misaligned);
        const double scale = gemmFlops(wide) / std::max(1.0, gemmFlops(*row.work.gemm));
        if (const auto pad = estimateMatrixTime(device, amp_precision, wide, *row.work.flops * scale, half_bytes * scale, kernels)) {
          op.amp_padded_ns = std::min(pad->ns * calls, op.amp_ns.value_or(pad->ns * calls));
        }
      }
    } else if (row.op_class == OpClass::kMemory && row.work.bytes) {
      const double fp32_bytes = half_recorded ? *row.work.bytes * 2 : *row.work.bytes;
      const bool keeps_fp32 = autocastKeepsFp32(row.op) || updatesMasterWeights(row.op, row.pass);
      const double fp32 = estimateMemoryTime(device, fp32_bytes, kernels).ns * calls;
      op.fp32_ns = fp32;
      op.tf32_ns = fp32;
      op.amp_ns = estimateMemoryTime(device, keeps_fp32 ? fp32_bytes : fp32_bytes / 2, kernels).ns * calls;
    }
    if (!op.fp32_ns || !op.amp_ns) continue;
    known += static_cast<double>(row.time_ns);
    out.step_fp32_ns += *op.fp32_ns;
    out.step_tf32_ns += op.tf32_ns.value_or(*op.fp32_ns);
    out.step_amp_ns += *op.amp_ns;
    out.op_of_row[i] = static_cast<std::int32_t>(out.ops.size());
    out.ops.push_back(std::move(op));
  }
  out.known_share = recorded > 0 ? known / recorded : 0.0;
  out.note = fmt::format(
      "model estimates on {} ({}), not measurements: GPU work only, from each op's FLOPs and bytes; "
      "the host, data loading and launch gaps are not included; {:.0f}% of the recorded op time has known work",
      device.name, target.reason, 100.0 * out.known_share);
  return out;
}

}  // namespace ampscope::analyzer
