#include "analyzer/advice/run_comparison.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <cstdlib>
#include <set>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

#include "analyzer/advice/gpu_work_comparison.h"
#include "analyzer/advice/recommendations.h"
#include "analyzer/core/gemm_shapes.h"
#include "analyzer/core/rule_ids.h"

namespace ampscope::analyzer {

namespace {

// Below this share of A's op time paired with B's ops the two traces are not runs of one model,
// and no change between them can be scored.
constexpr double kMinPairedShare = 0.3;
// Kernels "of the same family" for a data-loading change: this share of each run's kernel time
// is in kernels the other run also ran.
constexpr double kMinSharedKernelTime = 0.7;
// A change in exposed data loading smaller than this share of A's step is noise between runs.
constexpr double kMinExposedChange = 0.03;
// The multiple that padding rounds matrix dimensions up to (FP16/BF16 Tensor Cores).
constexpr std::int64_t kPaddingMultiple = 8;

std::int64_t perStep(std::int64_t total_ns, const TraceSummary& summary) {
  // Op and layer times cover the whole trace, warm-up included: divide by every iteration.
  const std::size_t steps = summary.iterations.iterations.size();
  return steps == 0 ? total_ns : total_ns / static_cast<std::int64_t>(steps);
}

std::string pct(double fraction) { return fmt::format("{:.0f}%", 100.0 * fraction); }
std::string duration(std::int64_t ns) {
  const double x = static_cast<double>(ns);
  return std::abs(x) >= 1e6 ? fmt::format("{:.1f} ms", x / 1e6) : fmt::format("{:.1f} us", x / 1e3);
}

// Matches groups (layers) by name and compares their GPU time: per step, or (GPU-work basis) over
// the traces with B's divided by `work_ratio` (a layer's op calls differ between runs: AMP adds casts).
std::vector<OperatorComparison> compareGroups(const std::vector<GroupTime>& in_a, const TraceSummary& a,
                                              const std::vector<GroupTime>& in_b, const TraceSummary& b,
                                              MeasuredBasis basis, double work_ratio) {
  const bool steps = basis == MeasuredBasis::kSteps;
  std::map<std::string, OperatorComparison> by_name;
  for (const GroupTime& group : in_a) {
    OperatorComparison& c = by_name[group.name];
    c.name = group.name;
    c.a_trace_ns = group.gpu_time_ns;
    if (steps) c.a_ns_per_step = perStep(group.gpu_time_ns, a);
  }
  for (const GroupTime& group : in_b) {
    OperatorComparison& c = by_name[group.name];
    c.name = group.name;
    c.b_trace_ns = group.gpu_time_ns;
    if (steps) c.b_ns_per_step = perStep(group.gpu_time_ns, b);
  }
  std::vector<OperatorComparison> out;
  for (auto& [name, c] : by_name) {
    c.pairing = c.a_trace_ns == 0 ? OpPairing::kOnlyB : c.b_trace_ns == 0 ? OpPairing::kOnlyA : OpPairing::kNameAndShapes;
    if (steps && c.a_ns_per_step > 0 && c.b_ns_per_step > 0) {
      c.speedup = static_cast<double>(c.a_ns_per_step) / static_cast<double>(c.b_ns_per_step);
    } else if (!steps && c.a_trace_ns > 0 && c.b_trace_ns > 0) {
      c.speedup = work_ratio * static_cast<double>(c.a_trace_ns) / static_cast<double>(c.b_trace_ns);
    }
    out.push_back(c);
  }
  const auto a_time = [steps](const OperatorComparison& c) { return steps ? c.a_ns_per_step : c.a_trace_ns; };
  std::sort(out.begin(), out.end(), [&](const auto& x, const auto& y) {
    return a_time(x) != a_time(y) ? a_time(x) > a_time(y) : x.name < y.name;
  });
  return out;
}

// ---- Op rows of the two runs, paired -------------------------------------------------------

// All the op rows of one run that share a pairing key, with A's predictions summed as predicted
// times so that rows combine the way Amdahl combines them.
struct OpGroup {
  std::string op;
  std::string shapes;
  std::string b_shapes;
  std::string layer;
  std::map<trace::Phase, std::int64_t> a_pass_ns;
  std::map<trace::Phase, std::int64_t> b_pass_ns;
  std::size_t a_rows = 0;
  std::size_t b_rows = 0;
  std::int64_t a_ns = 0;
  std::int64_t b_ns = 0;
  std::uint64_t a_calls = 0;
  std::uint64_t b_calls = 0;
  bool matrix = false;
  bool amp_projected = true;  // every A row has an AMP prediction
  double a_amp_ns = 0;        // sum of time / amp_speedup over A's rows
  double a_tf32_ns = 0;       // sum of time / tf32_speedup
  OpPairing pairing = OpPairing::kNameAndShapes;

  trace::Phase pass() const {
    const auto& by = a_pass_ns.empty() ? b_pass_ns : a_pass_ns;
    trace::Phase out = trace::Phase::kUnknown;
    std::int64_t most = -1;
    for (const auto& [phase, ns] : by) {
      if (ns > most) {
        most = ns;
        out = phase;
      }
    }
    return out;
  }
};

using GroupKey = std::tuple<std::string, std::string, std::string, trace::Phase>;  // op, shapes, layer, pass

// B's shapes are A's with some dimensions rounded up to the next multiple of 8, and none changed
// otherwise.
bool paddedShapes(const std::string& a_text, const std::string& b_text) {
  const std::optional<Shapes> a = parseShapes(a_text);
  const std::optional<Shapes> b = parseShapes(b_text);
  if (!a || !b || a->size() != b->size()) return false;
  bool padded = false;
  for (std::size_t i = 0; i < a->size(); ++i) {
    const auto& da = (*a)[i];
    const auto& db = (*b)[i];
    if (da.size() != db.size()) return false;
    for (std::size_t j = 0; j < da.size(); ++j) {
      if (da[j] == db[j]) continue;
      if (db[j] < da[j] || db[j] % kPaddingMultiple != 0 || db[j] - da[j] >= kPaddingMultiple) return false;
      padded = true;
    }
  }
  return padded;
}

std::vector<OpGroup> pairOpRows(const TraceSummary& a, const TraceSummary& b) {
  // Layers and passes tell apart calls of one shape only where both traces name layers; where
  // they do not (stock PyTorch), a pass found in one run and not the other must not split a pair.
  const bool layered = !a.layers.empty() && !b.layers.empty();
  std::map<GroupKey, OpGroup> groups;
  const auto groupOf = [&](const OpRow& row) -> OpGroup& {
    GroupKey key{row.op, row.shapes, layered ? row.layer : std::string(), layered ? row.pass : trace::Phase::kUnknown};
    OpGroup& g = groups[key];
    g.op = row.op;
    g.shapes = row.shapes;
    g.layer = std::get<2>(key);
    return g;
  };
  for (const OpRow& row : a.op_performance.rows) {
    OpGroup& g = groupOf(row);
    ++g.a_rows;
    g.a_ns += row.time_ns;
    g.a_calls += row.calls;
    g.a_pass_ns[row.pass] += row.time_ns;
    g.matrix |= row.op_class == OpClass::kMatrix;
    g.amp_projected &= row.predicted_amp_ns.has_value();
    const double time = static_cast<double>(row.time_ns);
    g.a_amp_ns += time / std::max(1e-9, row.amp_speedup);
    g.a_tf32_ns += time / std::max(1e-9, row.tf32_speedup);
  }
  for (const OpRow& row : b.op_performance.rows) {
    OpGroup& g = groupOf(row);
    ++g.b_rows;
    g.b_ns += row.time_ns;
    g.b_calls += row.calls;
    g.b_pass_ns[row.pass] += row.time_ns;
    g.matrix |= row.op_class == OpClass::kMatrix;
  }

  std::vector<OpGroup> paired;
  std::vector<OpGroup> only_a;
  std::vector<OpGroup> only_b;
  for (auto& [key, g] : groups) {
    if (g.a_rows > 0 && g.b_rows > 0) paired.push_back(std::move(g));
    else if (g.a_rows > 0) only_a.push_back(std::move(g));
    else only_b.push_back(std::move(g));
  }
  // Padding changes the shapes: an op of A left alone pairs with B's op of the same name and pass
  // whose shapes are A's rounded up, heaviest first.
  const auto heavier_a = [](const OpGroup& x, const OpGroup& y) { return x.a_ns > y.a_ns; };
  std::stable_sort(only_a.begin(), only_a.end(), heavier_a);
  std::vector<bool> taken(only_b.size(), false);
  for (OpGroup& g : only_a) {
    std::size_t best = only_b.size();
    for (std::size_t i = 0; i < only_b.size(); ++i) {
      const OpGroup& candidate = only_b[i];
      if (taken[i] || candidate.op != g.op || candidate.layer != g.layer || candidate.pass() != g.pass()) continue;
      if (!paddedShapes(g.shapes, candidate.shapes)) continue;
      if (best == only_b.size() || candidate.b_ns > only_b[best].b_ns) best = i;
    }
    if (best == only_b.size()) {
      g.pairing = OpPairing::kOnlyA;
      continue;
    }
    taken[best] = true;
    g.pairing = OpPairing::kPaddedShapes;
    g.b_shapes = only_b[best].shapes;
    g.b_rows = only_b[best].b_rows;
    g.b_ns = only_b[best].b_ns;
    g.b_calls = only_b[best].b_calls;
    g.b_pass_ns = only_b[best].b_pass_ns;
  }
  std::vector<OpGroup> out = std::move(paired);
  for (OpGroup& g : only_a) out.push_back(std::move(g));
  for (std::size_t i = 0; i < only_b.size(); ++i) {
    if (taken[i]) continue;
    only_b[i].pairing = OpPairing::kOnlyB;
    out.push_back(std::move(only_b[i]));
  }
  return out;
}

// ---- What B changed ------------------------------------------------------------------------

// The math of a run's matrix ops, by the precision most of each op's kernel time ran in.
enum class MathClass : std::uint8_t { kNone, kFp32, kTf32, kHalf };

const char* mathClassLabel(MathClass c) {
  switch (c) {
    case MathClass::kFp32: return "FP32 on CUDA cores";
    case MathClass::kTf32: return "TF32 on Tensor Cores";
    case MathClass::kHalf: return "FP16/BF16";
    case MathClass::kNone: break;
  }
  return "no known precision";
}

struct MatrixMath {
  std::map<MathClass, double> ns;
  double total = 0;
  MathClass dominant = MathClass::kNone;

  double share(MathClass c) const {
    const auto it = ns.find(c);
    return total > 0 && it != ns.end() ? it->second / total : 0.0;
  }
};

MatrixMath matrixMath(const TraceSummary& s) {
  MatrixMath out;
  for (const OpRow& row : s.op_performance.rows) {
    if (row.op_class != OpClass::kMatrix) continue;
    MathClass c = MathClass::kNone;
    switch (row.precision) {
      case MathPrecision::kFp32Simt: case MathPrecision::kFp32: c = MathClass::kFp32; break;
      case MathPrecision::kTf32: c = MathClass::kTf32; break;
      case MathPrecision::kFp16: case MathPrecision::kBf16: case MathPrecision::kFp8: case MathPrecision::kFp4:
        c = MathClass::kHalf;
        break;
      default: break;
    }
    if (c == MathClass::kNone) continue;
    out.ns[c] += static_cast<double>(row.time_ns);
    out.total += static_cast<double>(row.time_ns);
  }
  double most = 0;
  for (const auto& [c, ns] : out.ns) {
    if (ns > most) {
      most = ns;
      out.dominant = c;
    }
  }
  return out;
}

// Share of `of`'s kernel time in kernels (by name) that `other` also ran.
double sharedKernelTime(const TraceSummary& of, const TraceSummary& other) {
  std::set<std::string_view> names;
  for (const KernelRow& k : other.kernels) names.insert(k.name);
  double shared = 0;
  double total = 0;
  for (const KernelRow& k : of.kernels) {
    total += static_cast<double>(k.time_ns);
    if (names.contains(k.name)) shared += static_cast<double>(k.time_ns);
  }
  return total > 0 ? shared / total : 0.0;
}

DetectedChange detectChange(const TraceSummary& a, const TraceSummary& b, const std::vector<OpGroup>& groups) {
  const auto unknown = [](std::string reason) { return DetectedChange{RunChange::kUnknown, std::move(reason)}; };
  if (a.device.spec && b.device.spec && a.device.spec->name != b.device.spec->name) {
    return unknown(fmt::format("A ran on {}, B on {}: the per-op model predicts changes on one GPU",
                               a.device.spec->name, b.device.spec->name));
  }
  if (a.recorded_on_cpu != b.recorded_on_cpu) {
    return unknown(fmt::format("{} was recorded on the CPU and {} on a GPU", a.recorded_on_cpu ? "A" : "B",
                               a.recorded_on_cpu ? "B" : "A"));
  }
  double a_ns = 0;
  double paired_ns = 0;
  const OpGroup* padded = nullptr;
  std::size_t padded_matrix = 0;
  for (const OpGroup& g : groups) {
    a_ns += static_cast<double>(g.a_ns);
    if (g.a_ns > 0 && g.b_ns > 0) paired_ns += static_cast<double>(g.a_ns);
    if (g.pairing == OpPairing::kPaddedShapes && g.matrix) {
      ++padded_matrix;
      if (!padded || g.a_ns > padded->a_ns) padded = &g;
    }
  }
  if (a_ns > 0 && paired_ns < kMinPairedShare * a_ns) {
    return unknown(fmt::format("only {} of A's op time is in ops (name and shapes) that B also ran: "
                               "not two runs of one model", pct(paired_ns / a_ns)));
  }

  const MatrixMath ma = matrixMath(a);
  const MatrixMath mb = matrixMath(b);
  const auto mix = [](const MatrixMath& m, MathClass c) { return fmt::format("{} {}", pct(m.share(c)), mathClassLabel(c)); };
  const bool a_full = ma.dominant == MathClass::kFp32 || ma.dominant == MathClass::kTf32;
  if (a_full && mb.dominant == MathClass::kHalf) {
    return {RunChange::kAmp, fmt::format("B's matrix ops run {} of their time in FP16/BF16 (A's: {}); A's ran {}",
                                         pct(mb.share(MathClass::kHalf)), pct(ma.share(MathClass::kHalf)),
                                         mix(ma, ma.dominant))};
  }
  if (ma.dominant == MathClass::kFp32 && mb.dominant == MathClass::kTf32) {
    return {RunChange::kTf32, fmt::format("B's matrix ops run {} of their time in TF32 on Tensor Cores (A's: {}); A's ran {}",
                                          pct(mb.share(MathClass::kTf32)), pct(ma.share(MathClass::kTf32)),
                                          mix(ma, MathClass::kFp32))};
  }
  if (ma.dominant != mb.dominant) {
    return unknown(fmt::format("the matrix math went from {} (A: {}) to {} (B: {}), a change the model does not predict",
                               mathClassLabel(ma.dominant), pct(ma.share(ma.dominant)), mathClassLabel(mb.dominant),
                               pct(mb.share(mb.dominant))));
  }
  if (padded) {
    return {RunChange::kPadding,
            fmt::format("{} matrix op call shape{} of B {} A's rounded up to multiples of {} (heaviest: {} {} -> {}); "
                        "the matrix math runs {} in both",
                        padded_matrix, padded_matrix == 1 ? "" : "s", padded_matrix == 1 ? "is" : "are", kPaddingMultiple,
                        padded->op, padded->shapes, padded->b_shapes, mathClassLabel(ma.dominant))};
  }
  const double shared = std::min(sharedKernelTime(a, b), sharedKernelTime(b, a));
  const std::int64_t a_exposed = a.data_pipeline.exposed_ns_per_iteration;
  const std::int64_t b_exposed = b.data_pipeline.exposed_ns_per_iteration;
  const std::string same_math = ma.dominant == MathClass::kNone
                                    ? std::string("neither run has matrix math of a known precision")
                                    : fmt::format("the matrix math runs {} in both", mathClassLabel(ma.dominant));
  if (shared < kMinSharedKernelTime) {
    return unknown(fmt::format("{}, but only {} of the kernel time is in kernels both runs ran: another library, "
                               "algorithm or model", same_math, pct(shared)));
  }
  const std::string exposure = fmt::format("exposed data loading per step {} in A ({:.1f}% of the step), {} in B ({:.1f}%)",
                                           duration(a_exposed), 100.0 * a.data_pipeline.exposed_fraction, duration(b_exposed),
                                           100.0 * b.data_pipeline.exposed_fraction);
  const bool steps = a.iterations.steady_mean_ns > 0 && b.iterations.steady_mean_ns > 0;
  if (steps && static_cast<double>(std::abs(a_exposed - b_exposed)) >=
                   kMinExposedChange * static_cast<double>(a.iterations.steady_mean_ns)) {
    return {RunChange::kDataLoading,
            fmt::format("the same kernels ({} of the kernel time is in kernels both runs ran) and {}; {}", pct(shared),
                        same_math, exposure)};
  }
  return unknown(fmt::format("the same kernels ({} of the kernel time in kernels both ran), {}, the same shapes, "
                             "and {}", pct(shared), same_math,
                             steps ? exposure : "no steps in " + std::string(a.iterations.steady_mean_ns > 0 ? "B" : "A") +
                                                    " to compare data loading in"));
}

// ---- What A predicted ----------------------------------------------------------------------

struct Prediction {
  std::optional<double> speedup;
  std::string from;
};

Prediction predictAmp(const TraceSummary& a) {
  const AmdahlProjection& amdahl = a.amdahl;
  if (amdahl.parts.empty()) return {std::nullopt, "A has no AMP projection: " + amdahl.note};
  if (!amdahl.replay.done) {
    return {amdahl.projected_speedup,
            fmt::format("A's AMP projection (Amdahl over its parts; no replay: {})",
                        amdahl.replay.note.empty() ? amdahl.note : amdahl.replay.note)};
  }
  // The host can hold the step whatever the GPU gains: the lower of the two is the prediction.
  return {amdahl.reachableSpeedup(),
          fmt::format("A's AMP projection, the lower of Amdahl over its parts ({:.2f}x) and the replay at the host's "
                      "pace ({:.2f}x)", amdahl.projected_speedup, amdahl.replay.speedup)};
}

// A's TF32 projection (the analysis' own, tf32_projection.h): Amdahl over its step with the FP32
// matrix part sped up by its ops' TF32 predictions.
Prediction predictTf32(const TraceSummary& a) {
  const AmdahlProjection& amdahl = a.amdahl;
  if (amdahl.parts.empty() || amdahl.window_ns <= 0) return {std::nullopt, "A has no step split to project on: " + amdahl.note};
  const StepPart* fp32 = amdahl.part(StepPartKind::kEligibleFp32Math);
  const double part = fp32 ? static_cast<double>(fp32->ns_per_step) : 0.0;
  const double projected = a.tf32.relevant ? a.tf32.projected_speedup : 1.0;
  const double matrix = a.tf32.relevant ? a.tf32.matrix_speedup : 1.0;
  return {projected, fmt::format("Amdahl over A's step: its FP32 matrix math ({} of the step) at its ops' TF32 "
                                 "predictions ({:.2f}x); no replay",
                                 pct(part / static_cast<double>(amdahl.window_ns)), matrix)};
}

Prediction predictDataLoading(const TraceSummary& a) {
  const DataPipelineExposure& d = a.data_pipeline;
  if (a.iterations.steadyCount() == 0) return {std::nullopt, "A has no steady steps to measure its data loading in"};
  if (d.replay_if_hidden.done) {
    return {d.replay_if_hidden.speedup, "A's input pipeline hidden, replayed at the host's pace"};
  }
  return {d.speedup_if_hidden, fmt::format("A's input pipeline hidden (its exposed loading removed; no replay: {})",
                                           d.replay_if_hidden.note)};
}

// A's recommendations to pad, summed: each estimates the time its op call shape would save.
Prediction predictPadding(const TraceSummary& a) {
  std::int64_t gain = 0;
  std::size_t estimated = 0;
  for (const Recommendation& r : recommend(a)) {
    if (r.rule != rule_ids::kPadDimensions || r.estimated_gain_ns <= 0) continue;
    gain += r.estimated_gain_ns;
    ++estimated;
  }
  const std::int64_t step = a.iterations.steady_mean_ns;
  if (estimated == 0 || step <= 0 || gain >= step) {
    return {std::nullopt, "A's analysis estimated no gain from padding (it needs aligned calls of the same op to compare with)"};
  }
  return {static_cast<double>(step) / static_cast<double>(step - gain),
          fmt::format("A's {} pad-dimensions recommendation{}: {} per step", estimated, estimated == 1 ? "" : "s", duration(gain))};
}

std::optional<double> predictOp(const OpGroup& g, RunChange change) {
  if (g.a_rows == 0 || g.a_ns <= 0) return std::nullopt;
  const double time = static_cast<double>(g.a_ns);
  switch (change) {
    case RunChange::kAmp:
      if (!g.amp_projected || g.a_amp_ns <= 0) return std::nullopt;
      return time / g.a_amp_ns;
    case RunChange::kTf32:
      // The TF32 prediction rests on the same device model as the AMP one.
      if (!g.amp_projected || g.a_tf32_ns <= 0) return std::nullopt;
      return time / g.a_tf32_ns;
    // Neither changes an op's kernels in A's model: A has no per-op padding prediction.
    case RunChange::kDataLoading:
    case RunChange::kPadding:
      return 1.0;
    case RunChange::kUnknown:
      break;
  }
  return std::nullopt;
}

}  // namespace

const char* runChangeName(RunChange change) {
  switch (change) {
    case RunChange::kAmp: return "amp";
    case RunChange::kTf32: return "tf32";
    case RunChange::kPadding: return "padding";
    case RunChange::kDataLoading: return "data_loading";
    case RunChange::kUnknown: break;
  }
  return "unknown";
}

const char* runChangeLabel(RunChange change) {
  switch (change) {
    case RunChange::kAmp: return "AMP (FP16/BF16 on Tensor Cores)";
    case RunChange::kTf32: return "TF32 (FP32 matrix math on Tensor Cores)";
    case RunChange::kPadding: return "padding (matrix dimensions rounded up to multiples of 8)";
    case RunChange::kDataLoading: return "data loading";
    case RunChange::kUnknown: break;
  }
  return "unknown";
}

const char* opPairingName(OpPairing pairing) {
  switch (pairing) {
    case OpPairing::kNameAndShapes: return "name_and_shapes";
    case OpPairing::kPaddedShapes: return "padded_shapes";
    case OpPairing::kOnlyA: return "only_a";
    case OpPairing::kOnlyB: break;
  }
  return "only_b";
}

const char* measuredBasisName(MeasuredBasis basis) {
  return basis == MeasuredBasis::kSteps ? "steps" : "gpu_work";
}

const char* measuredBasisLabel(MeasuredBasis basis) {
  return basis == MeasuredBasis::kSteps ? "per steady step" : "per trace's GPU work, no steps";
}

double predictionErrorFraction(double log_ratio) { return std::exp(log_ratio) - 1.0; }

RunComparison compareRuns(const TraceSummary& a, const TraceSummary& b) {
  RunComparison out;
  out.a_step_ns = a.iterations.steady_mean_ns;
  out.b_step_ns = b.iterations.steady_mean_ns;
  const bool steps = out.a_step_ns > 0 && out.b_step_ns > 0;
  out.measured_basis = steps ? MeasuredBasis::kSteps : MeasuredBasis::kGpuWork;
  out.basis_reason = steps                                         ? "both runs have steady steps"
                     : out.a_step_ns == 0 && out.b_step_ns == 0 ? "neither run has steady steps"
                     : out.a_step_ns == 0                         ? "A has no steady steps"
                                                                  : "B has no steady steps";
  if (steps) out.measured_speedup = static_cast<double>(out.a_step_ns) / static_cast<double>(out.b_step_ns);
  out.a_projections.push_back({"hide the input pipeline", a.data_pipeline.speedup_if_hidden});
  if (a.data_pipeline.replay_if_hidden.done) {
    out.a_projections.push_back({"hide the input pipeline (replayed at the host's pace)",
                                 a.data_pipeline.replay_if_hidden.speedup});
  }
  if (!a.amdahl.parts.empty()) {
    out.a_projections.push_back({"enable AMP", a.amdahl.projected_speedup});
    out.a_projections.push_back({"AMP ceiling (infinitely fast math)", a.amdahl.ceiling});
  }
  if (a.amdahl.replay.done) {
    out.a_projections.push_back({"enable AMP (replayed at the host's pace)", a.amdahl.replay.speedup});
  }

  const std::vector<OpGroup> groups = pairOpRows(a, b);
  out.change = detectChange(a, b, groups);

  double a_total = 0;
  double a_paired = 0;
  for (const OpGroup& g : groups) {
    OperatorComparison c;
    c.name = g.op;
    c.shapes = g.shapes;
    c.b_shapes = g.b_shapes;
    c.layer = g.layer;
    c.pass = g.pass();
    c.pairing = g.pairing;
    c.a_trace_ns = g.a_ns;
    c.b_trace_ns = g.b_ns;
    c.a_calls = g.a_calls;
    c.b_calls = g.b_calls;
    if (steps) {
      c.a_ns_per_step = perStep(g.a_ns, a);
      c.b_ns_per_step = perStep(g.b_ns, b);
      if (c.a_ns_per_step > 0 && c.b_ns_per_step > 0) {
        c.speedup = static_cast<double>(c.a_ns_per_step) / static_cast<double>(c.b_ns_per_step);
      }
    } else if (g.a_ns > 0 && g.b_ns > 0 && g.a_calls > 0 && g.b_calls > 0) {
      // No steps to divide by: per call, which holds where the runs made different numbers of calls.
      c.speedup = (static_cast<double>(g.a_ns) / static_cast<double>(g.a_calls)) /
                  (static_cast<double>(g.b_ns) / static_cast<double>(g.b_calls));
    }
    c.predicted_speedup = predictOp(g, out.change.kind);
    switch (g.pairing) {
      case OpPairing::kNameAndShapes: ++out.pairing.by_name_and_shapes; break;
      case OpPairing::kPaddedShapes: ++out.pairing.by_padded_shapes; break;
      case OpPairing::kOnlyA: ++out.pairing.only_a; break;
      case OpPairing::kOnlyB: ++out.pairing.only_b; break;
    }
    a_total += static_cast<double>(g.a_ns);
    if (g.a_ns > 0 && g.b_ns > 0) a_paired += static_cast<double>(g.a_ns);
    out.operators.push_back(std::move(c));
  }
  out.pairing.a_time_paired = a_total > 0 ? a_paired / a_total : 0.0;
  const auto a_time = [steps](const OperatorComparison& c) { return steps ? c.a_ns_per_step : c.a_trace_ns; };
  const auto b_time = [steps](const OperatorComparison& c) { return steps ? c.b_ns_per_step : c.b_trace_ns; };
  std::sort(out.operators.begin(), out.operators.end(), [&](const auto& x, const auto& y) {
    if (a_time(x) != a_time(y)) return a_time(x) > a_time(y);
    if (b_time(x) != b_time(y)) return b_time(x) > b_time(y);
    return std::tie(x.name, x.shapes, x.layer) < std::tie(y.name, y.shapes, y.layer);
  });

  out.gpu_work = compareGpuWork(a, b, out.operators);
  Prediction prediction;
  if (steps) {
    switch (out.change.kind) {
      case RunChange::kAmp: prediction = predictAmp(a); break;
      case RunChange::kTf32: prediction = predictTf32(a); break;
      case RunChange::kPadding: prediction = predictPadding(a); break;
      case RunChange::kDataLoading: prediction = predictDataLoading(a); break;
      case RunChange::kUnknown: prediction.from = "no prediction for an unknown change"; break;
    }
  } else {
    // No step to project on: the change applied to A's GPU work, against B's measured GPU work.
    out.measured_speedup = out.gpu_work.busy_speedup;
    GpuWorkPrediction p = predictGpuWork(a, out.change.kind);
    prediction = {p.speedup, std::move(p.from)};
  }
  out.predicted_speedup = prediction.speedup;
  out.predicted_from = std::move(prediction.from);
  if (out.predicted_speedup && *out.predicted_speedup > 0 && out.measured_speedup > 0) {
    out.prediction_error = std::log(*out.predicted_speedup / out.measured_speedup);
  }
  out.layers = compareGroups(a.layers, a, b.layers, b, out.measured_basis, out.gpu_work.work_ratio);
  out.memory = compareMemory(a, b, out.change.kind == RunChange::kAmp);
  return out;
}

}  // namespace ampscope::analyzer
