#include "analyzer/advice/padding_findings.h"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "analyzer/model/op_time_model.h"

namespace ampscope::analyzer {

namespace {

bool onTensorCores(MathPrecision precision) {
  return precision == MathPrecision::kTf32 || precision == MathPrecision::kFp16 ||
         precision == MathPrecision::kBf16 || precision == MathPrecision::kFp8;
}

// The work its recorded shapes describe: 2·M·N·K per GEMM, over every call.
double flopsOf(const ShapeCheck& c) { return gemmFlops(c.dims) * static_cast<double>(c.calls); }

// The share of a GEMM's time in `precision` that padding `findings` would save on `device`, by the
// time model: its time as it is over its time padded (the padded GEMM does more work, so the share
// can be zero); nullopt when the model cannot say.
std::optional<double> paddingCostShare(const DeviceSpec& device, MathPrecision precision, const ShapeCheck& c,
                                       const std::vector<DimensionFinding>& findings) {
  if (c.dims.m <= 0) return std::nullopt;
  const auto estimate = [&](const GemmDims& d) {
    const double batch = static_cast<double>(std::max<std::int64_t>(1, d.batch));
    const double m = static_cast<double>(d.m);
    const double n = static_cast<double>(d.n);
    const double k = static_cast<double>(d.k);
    const double element = precision == MathPrecision::kTf32 ? 4.0 : 2.0;
    return estimateMatrixTime(device, precision, d, gemmFlops(d), element * batch * (m * k + k * n + m * n), 1);
  };
  const auto now = estimate(c.dims);
  const auto padded = estimate(paddedDims(c.dims, findings));
  if (!now || !padded || now->ns <= 0) return std::nullopt;
  return std::max(0.0, 1.0 - padded->ns / now->ns);
}

// The distinct misaligned sizes of a call, each with the dimensions it sits in.
std::map<std::int64_t, std::vector<DimensionFinding>> findingsBySize(const ShapeCheck& c) {
  std::map<std::int64_t, std::vector<DimensionFinding>> by_size;
  for (const DimensionFinding& f : c.misaligned) {
    // A dimension of 1 is a matrix-vector product (a bias, a batch of one): padding it would
    // multiply the work, never save time.
    if (f.value > 1) by_size[f.value].push_back(f);
  }
  return by_size;
}

class PaddingCauses {
 public:
  explicit PaddingCauses(const TraceSummary& s)
      : s_(s), steps_(static_cast<double>(std::max<std::size_t>(1, s.iterations.iterations.size()))) {}

  std::vector<PaddingFinding> run() {
    std::map<std::int64_t, PaddingFinding> by_size;
    for (const ShapeCheck& c : s_.shape_checks) {
      if (c.misaligned.empty() || c.gpu_time_ns <= 0) continue;
      const auto sizes = findingsBySize(c);
      if (sizes.empty()) continue;
      std::vector<DimensionFinding> to_pad;
      for (const auto& [value, findings] : sizes) to_pad.insert(to_pad.end(), findings.begin(), findings.end());
      const Cost cost = costOf(c, to_pad);
      const std::vector<double> parts = splitBetweenSizes(c, sizes);
      std::size_t index = 0;
      for (const auto& [value, findings] : sizes) {
        PaddingFinding& finding = by_size[value];
        finding.value = value;
        PaddedOp op;
        op.check = &c;
        for (const DimensionFinding& f : findings) op.dimensions += (op.dimensions.empty() ? "" : ", ") + f.dimension;
        op.estimated = cost.gain_ns.has_value();
        op.gain_ns = cost.gain_ns ? static_cast<std::int64_t>(static_cast<double>(*cost.gain_ns) * parts[index]) : 0;
        op.cost = cost.text;
        if (sizes.size() > 1 && op.estimated) {
          op.cost += fmt::format(" ({:.0f}% of that this size's)", 100.0 * parts[index]);
        }
        finding.ops.push_back(std::move(op));
        ++index;
      }
    }
    std::vector<PaddingFinding> out;
    for (auto& [key, finding] : by_size) {
      std::stable_sort(finding.ops.begin(), finding.ops.end(), [](const PaddedOp& a, const PaddedOp& b) {
        return a.check->gpu_time_ns > b.check->gpu_time_ns;
      });
      for (const PaddedOp& op : finding.ops) {
        finding.gpu_time_ns += op.check->gpu_time_ns;
        finding.calls += op.check->calls;
        finding.gain_ns += op.gain_ns;
      }
      // Ops in different precisions want different multiples (TF32 4, FP16/BF16 8, FP8 16): the
      // largest serves them all.
      for (const PaddedOp& op : finding.ops) {
        finding.required_multiple = std::max(finding.required_multiple, op.check->required_multiple);
      }
      const std::int64_t multiple = finding.required_multiple;
      finding.padded = (finding.value + multiple - 1) / multiple * multiple;
      finding.precision = finding.ops.front().check->precision;
      out.push_back(std::move(finding));
    }
    std::stable_sort(out.begin(), out.end(), [](const PaddingFinding& a, const PaddingFinding& b) {
      if (a.gain_ns != b.gain_ns) return a.gain_ns > b.gain_ns;
      return a.gpu_time_ns > b.gpu_time_ns;
    });
    return out;
  }

 private:
  struct Cost {
    std::optional<std::int64_t> gain_ns;  // per step, for padding every misaligned size of the call
    std::string text;
  };

  // A rate above the device's peak means the shapes do not describe the work the kernels did (a
  // wrong shape, or a Winograd convolution): no estimate may rest on it.
  bool physical(double flops_per_ns, MathPrecision precision) const {
    const double peak = peakTflops(s_.amdahl.device, precision) * 1e3;
    return peak <= 0.0 || flops_per_ns <= peak;
  }

  // What a CPU run's misaligned call would cost on the what-if GPU under AMP, per step (model).
  std::optional<double> whatIfCost(const ShapeCheck& c) const {
    const WhatIfProjection& w = s_.what_if;
    std::optional<double> cost;
    for (std::size_t i = 0; i < s_.op_performance.rows.size() && i < w.op_of_row.size(); ++i) {
      const OpRow& row = s_.op_performance.rows[i];
      if (row.op != c.op || row.shapes != c.shapes || w.op_of_row[i] < 0) continue;
      const WhatIfOp& op = w.ops[static_cast<std::size_t>(w.op_of_row[i])];
      if (op.amp_ns && op.amp_padded_ns) cost = cost.value_or(0.0) + std::max(0.0, *op.amp_ns - *op.amp_padded_ns);
    }
    return cost;
  }

  // The cost of the call's sizes `to_pad`, per step, and its statement in a few words (the
  // finding says once whose model and which device).
  Cost costOf(const ShapeCheck& c, const std::vector<DimensionFinding>& to_pad) const {
    const DeviceSpec& device = s_.amdahl.device;
    if (s_.recorded_on_cpu) {
      const std::optional<double> cost = whatIfCost(c);
      if (s_.what_if.device.spec && cost) {
        return {std::nullopt, fmt::format("recorded on the CPU: {:.1f} us per step in FP16/BF16 on {} ({}; an "
                                          "estimate, not a measurement)",
                                          *cost / 1e3, s_.what_if.device.spec->name, s_.what_if.device.reason)};
      }
      return {std::nullopt, "recorded on the CPU: its cost on a GPU's Tensor Cores is not estimated"};
    }
    if (device.name.empty()) return {std::nullopt, "not estimated: the device is unknown (name it with --gpu NAME)"};
    if (c.dims.m <= 0) return {std::nullopt, "not estimated: its output positions are not recorded"};
    const double rate = flopsOf(c) / static_cast<double>(c.gpu_time_ns);
    if (!physical(rate, c.precision)) {
      return {std::nullopt, fmt::format("not estimated: its recorded shapes give {:.1f} TFLOP/s, above {}'s peak in {}, "
                                        "so they do not describe its work",
                                        rate / 1e3, device.name, precisionName(c.precision))};
    }
    if (onTensorCores(c.precision)) {
      const std::optional<double> share = paddingCostShare(device, c.precision, c, to_pad);
      if (!share) return {std::nullopt, "not estimated by the time model"};
      return {static_cast<std::int64_t>(static_cast<double>(c.gpu_time_ns) * *share / steps_),
              fmt::format("{:.0f}% of its {} time", 100.0 * *share, precisionName(c.precision))};
    }
    const MathPrecision amp = ampPrecision(device);
    if (const std::optional<double> share = paddingCostShare(device, amp, c, to_pad)) {
      return {std::int64_t{0}, fmt::format("nothing on CUDA cores now; {:.0f}% of its {} time once AMP is on",
                                           100.0 * *share, precisionName(amp))};
    }
    return {std::nullopt, "not estimated by the time model"};
  }

  // Each size's part of the call's cost: what padding it alone would save, normalised; equal
  // parts where the model cannot tell them apart.
  std::vector<double> splitBetweenSizes(const ShapeCheck& c,
                                        const std::map<std::int64_t, std::vector<DimensionFinding>>& sizes) const {
    std::vector<double> parts(sizes.size(), 1.0 / static_cast<double>(sizes.size()));
    if (sizes.size() < 2 || s_.amdahl.device.name.empty()) return parts;
    const MathPrecision precision = onTensorCores(c.precision) ? c.precision : ampPrecision(s_.amdahl.device);
    std::vector<double> alone;
    double total = 0;
    for (const auto& [value, findings] : sizes) {
      const double share = paddingCostShare(s_.amdahl.device, precision, c, findings).value_or(0.0);
      alone.push_back(share);
      total += share;
    }
    if (total <= 0) return parts;
    for (std::size_t i = 0; i < parts.size(); ++i) parts[i] = alone[i] / total;
    return parts;
  }

  const TraceSummary& s_;
  double steps_;
};

}  // namespace

std::vector<PaddingFinding> findPaddingCauses(const TraceSummary& summary) { return PaddingCauses(summary).run(); }

}  // namespace ampscope::analyzer
