#include "analyzer/tables/measured_activity.h"

#include <cmath>
#include <map>
#include <string_view>
#include <utility>

namespace ampscope::analyzer {
namespace {

struct Weighted {
  double busy_ns = 0.0;
  std::int64_t measured_ns = 0;

  void add(float share, std::int64_t ns) {
    busy_ns += static_cast<double>(share) * static_cast<double>(ns);
    measured_ns += ns;
  }
  void into(std::optional<double>& share, std::int64_t& measured) const {
    if (measured_ns <= 0) return;
    share = busy_ns / static_cast<double>(measured_ns);
    measured = measured_ns;
  }
};

}  // namespace

void addMeasuredTensorActivity(std::vector<KernelRow>& kernel_rows, LayerTable& layers, const trace::Trace& trace,
                               const KernelAttribution& kernels, const std::vector<float>& share_by_kernel) {
  if (share_by_kernel.size() != trace.kernels.size()) return;
  // Measured kernels ran on a GPU: their rows are the GPU rows of their names.
  std::map<std::string_view, Weighted> by_name;
  std::map<std::pair<std::string_view, trace::Phase>, Weighted> by_layer;
  for (std::size_t k = 0; k < trace.kernels.size(); ++k) {
    const float share = share_by_kernel[k];
    if (std::isnan(share)) continue;
    const trace::Kernel& kernel = trace.kernels[k];
    const std::int64_t ns = kernel.end_ns - kernel.start_ns;
    by_name[trace.str(kernel.name)].add(share, ns);
    const KernelOrigin& origin = kernels.originOf(k);
    if (origin.group >= 0) by_layer[{kernels.origins.label(origin.group), origin.phase}].add(share, ns);
  }
  for (KernelRow& row : kernel_rows) {
    if (row.verdict.tensor_core == TensorCoreUse::kHost) continue;
    if (const auto found = by_name.find(row.name); found != by_name.end()) {
      found->second.into(row.measured_tensor_active, row.measured_tensor_ns);
    }
  }
  for (LayerRow& row : layers.rows) {
    if (const auto found = by_layer.find({row.layer, row.pass}); found != by_layer.end()) {
      found->second.into(row.measured_tensor_active, row.measured_tensor_ns);
    }
  }
}

}  // namespace ampscope::analyzer
