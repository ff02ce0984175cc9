#include "analyzer/steps/amp_numerics.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "trace/trace_model.h"

namespace ampscope::analyzer {

namespace {

// Per-tensor counters: "gradient_values/fc1.weight" and its siblings.
enum class GradientCounter { kValues, kZeros, kNonFinite, kUnderflow };

struct TensorCounter {
  GradientCounter which;
  std::string_view tensor;
};

std::optional<TensorCounter> tensorCounter(std::string_view name) {
  static constexpr std::pair<std::string_view, GradientCounter> kPrefixes[] = {
      {"gradient_values/", GradientCounter::kValues},
      {"gradient_zeros/", GradientCounter::kZeros},
      {"gradient_non_finite/", GradientCounter::kNonFinite},
      {"gradient_underflow/", GradientCounter::kUnderflow},
  };
  for (const auto& [prefix, which] : kPrefixes) {
    if (name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix) {
      return TensorCounter{which, name.substr(prefix.size())};
    }
  }
  return std::nullopt;
}

void add(GradientCounts& counts, GradientCounter which, double value) {
  // Counts arrive as doubles (every counter is one); negative or NaN ones are not counts.
  const auto n = value > 0 && std::isfinite(value) ? static_cast<std::uint64_t>(std::llround(value)) : 0u;
  switch (which) {
    case GradientCounter::kValues: counts.values += n; break;
    case GradientCounter::kZeros: counts.zeros += n; break;
    case GradientCounter::kNonFinite: counts.non_finite += n; break;
    case GradientCounter::kUnderflow: counts.underflow += n; break;
  }
}

bool isNumericsCounter(std::string_view name) {
  return name == "loss" || name == kLossScaleCounter || name == "skipped_step" || name == "gradient_norm" ||
         name == "learning_rate" || tensorCounter(name).has_value();
}

std::vector<StepRun> runsOf(const std::set<std::int64_t>& steps) {
  std::vector<StepRun> runs;
  for (std::int64_t step : steps) {
    if (!runs.empty() && runs.back().last + 1 == step) {
      runs.back().last = step;
    } else {
      runs.push_back({step, step});
    }
  }
  return runs;
}

// The recent window: the last tenth of the distinct steps, at least one.
std::size_t recentCount(const std::set<std::int64_t>& steps) {
  return std::max<std::size_t>(1, steps.size() / static_cast<std::size_t>(kRecentStepsDivisor));
}

std::vector<std::string> computeDtypes(const trace::Trace& trace) {
  std::vector<std::string> out;
  for (const trace::Range& range : trace.ranges) {
    if (range.text_form != trace::RangeTextForm::kTrainerLayerOp) continue;
    // One dtype per shape, all the same for the trainer's ops: "float16", ...
    const std::vector<std::string>& dtypes = trace.range_values.dtypes(range.dtypes).names;
    if (dtypes.empty()) continue;
    const std::string& dtype = dtypes.front();
    if (std::find(out.begin(), out.end(), dtype) == out.end()) out.push_back(dtype);
  }
  return out;
}

// Values of a histogram bin e lie in [2^e, 2^(e+1)); scaled by 2^k they round to zero in FP16
// when 2^(e+1+k) <= 2^-25 (half the smallest subnormal, which rounds to even: zero).
bool binUnderflowsAt(std::int32_t exponent, int scale_exponent) { return exponent + 1 + scale_exponent <= -25; }

void measureBins(const trace::Trace& trace, AmpNumerics& out, std::map<std::string, TensorNumerics>& tensors) {
  if (trace.gradient_bins.empty()) return;
  std::int32_t largest = std::numeric_limits<std::int32_t>::min();
  for (const trace::GradientBin& bin : trace.gradient_bins) {
    if (bin.count == 0) continue;
    TensorNumerics& t = tensors[std::string(trace.str(bin.tensor))];
    t.smallest_exponent = t.has_bins ? std::min(t.smallest_exponent, bin.exponent) : bin.exponent;
    t.largest_exponent = t.has_bins ? std::max(t.largest_exponent, bin.exponent) : bin.exponent;
    t.has_bins = true;
    largest = std::max(largest, bin.exponent);
  }
  if (largest == std::numeric_limits<std::int32_t>::min()) return;
  // Keep the largest scaled value below 2^15: 2^(largest + 1 + k) <= 2^15.
  const int scale_exponent = 14 - largest;
  out.suggested_loss_scale = std::ldexp(1.0, scale_exponent);
  std::map<std::string_view, std::pair<std::uint64_t, std::uint64_t>> under_of;  // tensor -> (under, all)
  for (const trace::GradientBin& bin : trace.gradient_bins) {
    auto& [under, all] = under_of[trace.str(bin.tensor)];
    all += bin.count;
    if (binUnderflowsAt(bin.exponent, scale_exponent)) under += bin.count;
  }
  for (auto& [name, t] : tensors) {
    const auto found = under_of.find(name);
    if (found == under_of.end() || found->second.second == 0) continue;
    t.underflow_share_at_suggested_scale =
        static_cast<double>(found->second.first) / static_cast<double>(found->second.second);
  }
}

}  // namespace

double GradientCounts::zeroShare() const {
  return values == 0 ? 0.0 : static_cast<double>(zeros) / static_cast<double>(values);
}

double GradientCounts::underflowShare() const {
  return values == 0 ? 0.0 : static_cast<double>(underflow) / static_cast<double>(values);
}

AmpNumerics measureAmpNumerics(const trace::Trace& trace) {
  AmpNumerics out;
  std::set<std::int64_t> steps;
  std::set<std::int64_t> histogram_steps;
  for (const trace::Counter& counter : trace.counters) {
    if (counter.step < 0) continue;
    const std::string_view name = trace.str(counter.name);
    if (isNumericsCounter(name)) steps.insert(counter.step);
    if (tensorCounter(name)) histogram_steps.insert(counter.step);
  }
  out.steps = steps.size();
  out.histogram_steps = histogram_steps.size();
  if (!steps.empty()) {
    out.first_step = *steps.begin();
    out.last_step = *steps.rbegin();
    // Over the steps that have what the window measures: a window of steps without histograms
    // would show their shares as 0.
    const std::set<std::int64_t>& window = histogram_steps.empty() ? steps : histogram_steps;
    out.recent_steps = recentCount(window);
    out.recent_from_step = *std::prev(window.end(), static_cast<std::ptrdiff_t>(out.recent_steps));
  }
  out.compute_dtypes = computeDtypes(trace);

  std::map<std::string, TensorNumerics> tensors;
  std::set<std::int64_t> skipped;
  for (const trace::Counter& counter : trace.counters) {
    const std::string_view name = trace.str(counter.name);
    if (name == "loss") {
      if (!out.has_loss) {
        out.loss_first = counter.value;
        out.loss_first_step = counter.step;
      }
      out.has_loss = true;
      out.loss_last = counter.value;
      out.loss_last_step = counter.step;
    } else if (name == kLossScaleCounter) {
      if (out.loss_scale_samples == 0 || counter.value != out.loss_scale_final) {
        out.loss_scale_changes.push_back({counter.step, counter.value});
      }
      out.loss_scale_min = out.loss_scale_samples == 0 ? counter.value : std::min(out.loss_scale_min, counter.value);
      out.loss_scale_max = out.loss_scale_samples == 0 ? counter.value : std::max(out.loss_scale_max, counter.value);
      out.loss_scale_final = counter.value;
      ++out.loss_scale_samples;
    } else if (name == "skipped_step") {
      ++out.counted_steps;
      if (counter.value != 0.0) skipped.insert(counter.step);
    } else if (const auto gradient = tensorCounter(name)) {
      TensorNumerics& t = tensors[std::string(gradient->tensor)];
      add(t.all, gradient->which, counter.value);
      if (counter.step >= out.recent_from_step && out.recent_from_step >= 0) add(t.recent, gradient->which, counter.value);
    }
  }
  out.skipped_steps = skipped.size();
  out.skipped = runsOf(skipped);
  measureBins(trace, out, tensors);
  out.recorded = out.steps > 0 || !trace.gradient_bins.empty();

  for (auto& [name, t] : tensors) {
    t.tensor = name;
    out.tensors.push_back(std::move(t));
  }
  std::stable_sort(out.tensors.begin(), out.tensors.end(), [](const TensorNumerics& a, const TensorNumerics& b) {
    return a.all.underflowShare() > b.all.underflowShare();
  });
  return out;
}

std::string formatStepRuns(const std::vector<StepRun>& runs, std::size_t max_runs) {
  std::string out;
  for (std::size_t i = 0; i < runs.size() && i < max_runs; ++i) {
    if (i > 0) out += ", ";
    out += runs[i].first == runs[i].last ? fmt::format("{}", runs[i].first)
                                         : fmt::format("{}-{}", runs[i].first, runs[i].last);
  }
  if (runs.size() > max_runs) out += fmt::format(", ... ({} more)", runs.size() - max_runs);
  return out;
}

std::string recentStepsText(const AmpNumerics& numerics) {
  if (numerics.histogram_steps > 0 && numerics.histogram_steps < numerics.steps) {
    return numerics.recent_steps == 1
               ? fmt::format("the last of the {} steps with histograms", numerics.histogram_steps)
               : fmt::format("the last {} of the {} steps with histograms", numerics.recent_steps,
                             numerics.histogram_steps);
  }
  return numerics.recent_steps == 1 ? std::string("the last step")
                                    : fmt::format("the last {} steps", numerics.recent_steps);
}

std::string formatLossScaleHistory(const std::vector<LossScaleChange>& changes, std::size_t max_changes) {
  std::string out;
  for (std::size_t i = 0; i < changes.size() && i < max_changes; ++i) {
    out += fmt::format("{}{} at step {}", i == 0 ? "" : ", ", changes[i].value, changes[i].step);
  }
  if (changes.size() > max_changes) out += fmt::format(", ... ({} more changes)", changes.size() - max_changes);
  return out;
}

}  // namespace ampscope::analyzer
