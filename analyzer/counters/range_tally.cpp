#include "analyzer/counters/range_tally.h"

#include <algorithm>
#include <cmath>

#include "analyzer/counters/range_reading.h"

namespace ampscope::analyzer {

std::optional<double> RangeTally::add(const trace::Trace& trace, const trace::KernelMetrics& range) {
  ++ranges_;
  if (range.kernel != trace::kNone || range.launch != trace::kNone) ++matched_;
  for (const trace::MetricValue& v : range.values) {
    if (!std::isfinite(v.value)) continue;
    MetricTotal& total = totals_[v.metric];
    total.total += v.value;
    ++total.ranges;
  }
  if (const std::optional<CudaCoreOps> ops = readCudaCoreOps(trace, range)) {
    if (!cuda_core_ops_) cuda_core_ops_.emplace();
    cuda_core_ops_->fp16 += ops->fp16;
    cuda_core_ops_->fp32 += ops->fp32;
    cuda_core_ops_->fp64 += ops->fp64;
  }
  const RangeTensorReading reading = readTensorPipe(trace, range);
  if (!reading.busy) return std::nullopt;
  busy_ = busy_.value_or(false) || *reading.busy;
  basis_.insert(reading.basis);
  if (!reading.share) return std::nullopt;
  // A range matched to a kernel weighs its kernel's time; one with the kernel's times its own;
  // one with placeholder times weighs one.
  double weight = 1.0;
  if (range.kernel != trace::kNone) {
    const trace::Kernel& kernel = trace.kernels[static_cast<std::size_t>(range.kernel)];
    weight = static_cast<double>(std::max<std::int64_t>(1, kernel.end_ns - kernel.start_ns));
  } else if (range.times_measured) {
    weight = static_cast<double>(std::max<std::int64_t>(1, range.end_ns - range.start_ns));
  }
  share_weighted_ += *reading.share * weight;
  share_weight_ += weight;
  return reading.share;
}

std::vector<MetricTotal> RangeTally::totals(const trace::Trace& trace) const {
  std::vector<MetricTotal> out;
  out.reserve(totals_.size());
  for (const auto& [metric, total] : totals_) {
    out.push_back(total);
    out.back().metric = std::string(trace.str(metric));
  }
  std::sort(out.begin(), out.end(), [](const MetricTotal& a, const MetricTotal& b) { return a.metric < b.metric; });
  return out;
}

std::optional<double> RangeTally::share() const {
  if (share_weight_ <= 0.0) return std::nullopt;
  return share_weighted_ / share_weight_;
}

std::string RangeTally::basis() const {
  std::string out;
  for (const std::string& part : basis_) out += (out.empty() ? "" : "; ") + part;
  return out;
}

}  // namespace ampscope::analyzer
