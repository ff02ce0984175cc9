#include "analyzer/model/roofline.h"

#include <algorithm>
#include <map>

namespace ampscope::analyzer {

namespace {

bool isHalf(MathPrecision precision) { return precision == MathPrecision::kFp16 || precision == MathPrecision::kBf16; }

}  // namespace

bool onRoofline(const OpRow& row) {
  return row.achieved_tflops && row.intensity && *row.achieved_tflops > 0 && *row.intensity > 0;
}

Roofline rooflineOf(const OpPerformance& ops, bool recorded_on_cpu) {
  Roofline out;
  const DeviceSpec* device = recorded_on_cpu ? nullptr : ops.device.spec.get();
  if (!device) return out;
  bool fp32_matrix_on_cuda_cores = false;
  for (const OpRow& row : ops.rows) {
    if (!onRoofline(row)) continue;
    if (std::find(out.ran_in.begin(), out.ran_in.end(), row.precision) == out.ran_in.end()) out.ran_in.push_back(row.precision);
    fp32_matrix_on_cuda_cores |= row.precision == MathPrecision::kFp32Simt && row.op_class == OpClass::kMatrix;
  }
  if (out.ran_in.empty()) return out;
  std::sort(out.ran_in.begin(), out.ran_in.end());
  out.memory_gbs = device->memory_gbs;

  std::map<double, RooflineRoof> by_peak;
  const auto add = [&](MathPrecision precision, RoofSource source) {
    const double peak = peakTflops(*device, precision);
    if (peak <= 0) return;
    RooflineRoof& roof = by_peak.try_emplace(peak, RooflineRoof{.tflops = peak, .precisions = {}, .source = source}).first->second;
    if (std::find(roof.precisions.begin(), roof.precisions.end(), precision) == roof.precisions.end()) {
      roof.precisions.push_back(precision);
      std::sort(roof.precisions.begin(), roof.precisions.end());
    }
    if (source == RoofSource::kRan) roof.source = RoofSource::kRan;
  };
  for (const MathPrecision precision : out.ran_in) add(precision, RoofSource::kRan);
  if (std::none_of(out.ran_in.begin(), out.ran_in.end(), isHalf)) {
    add(MathPrecision::kFp16, RoofSource::kAmp);
    add(MathPrecision::kBf16, RoofSource::kAmp);
  }
  const bool tf32_ran = std::find(out.ran_in.begin(), out.ran_in.end(), MathPrecision::kTf32) != out.ran_in.end();
  if (fp32_matrix_on_cuda_cores && !tf32_ran) add(MathPrecision::kTf32, RoofSource::kTf32);
  for (auto& [peak, roof] : by_peak) out.roofs.push_back(std::move(roof));
  return out;
}

}  // namespace ampscope::analyzer
