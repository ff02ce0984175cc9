#include "analyzer/model/unfused_attention.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "analyzer/core/gemm_shapes.h"
#include "analyzer/core/memo_by_id.h"
#include "analyzer/core/operator_labels.h"
#include "analyzer/core/time_by_kind.h"
#include "analyzer/model/fused_attention_cost.h"
#include "analyzer/model/op_work.h"
#include "analyzer/normalise/range_values_reader.h"
#include "analyzer/verdicts/kernel_verdicts.h"

// What is recognised and why, and the estimate's bounds: docs/performance_model.md, "Attention
// computed in pieces".

namespace ampscope::analyzer {

namespace {

using trace::Index;
using trace::kNone;
using Dims = std::vector<std::int64_t>;

// How far from the softmax the matrix ops may be, in ops at its level on its thread: a scale, a
// mask, casts and dropout sit between them, and a few ops on other tensors (the mask's own
// computation) may be interleaved.
constexpr std::size_t kSearchWindow = 16;

enum class Role : std::uint8_t { kScoresGemm, kBeforeSoftmax, kSoftmax, kAfterSoftmax, kOutputGemm };

bool isSoftmaxOp(std::string_view base) { return base == "softmax" || base == "_softmax" || base == "_safe_softmax"; }

bool isMatrixOp(std::string_view base) {
  return base == "bmm" || base == "baddbmm" || base == "matmul" || base == "mm" || base == "einsum";
}

// Ops that add a mask or a bias to the scores (or fill masked places).
bool isMaskOp(std::string_view base) {
  return base == "add" || base == "add_" || base == "__add__" || base == "__iadd__" || base == "masked_fill" ||
         base == "masked_fill_" || base == "where";
}

bool isOperator(const trace::Range& range) {
  return range.kind == trace::RangeKind::kOperator && range.op != trace::StringTable::kEmpty;
}

double numel(const Dims& dims) {
  double n = 1;
  for (const std::int64_t d : dims) n *= static_cast<double>(d);
  return n;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The precision a recorded dtype computes in on Tensor Cores or CUDA cores (FP32 without the
// kernels' names: which unit is unknown).
MathPrecision precisionOfDtype(std::string_view dtype) {
  const std::string d = lower(dtype);
  if (d.find("bfloat16") != std::string::npos || d.find("bf16") != std::string::npos) return MathPrecision::kBf16;
  if (d.find("half") != std::string::npos || d.find("float16") != std::string::npos) return MathPrecision::kFp16;
  if (import::dtypeBytes(dtype) == 4 && d.find("float") != std::string::npos) return MathPrecision::kFp32;
  return MathPrecision::kUnknown;
}

bool isHalfPrecision(MathPrecision p) { return p == MathPrecision::kFp16 || p == MathPrecision::kBf16; }

// One call of attention in pieces.
struct Call {
  std::vector<std::pair<Index, Role>> pieces;  // in order
  Dims scores;
  std::int64_t head_size = 0;
  std::int64_t value_head_size = 0;
  trace::StringId layer = trace::StringTable::kEmpty;
  bool masked = false;
  bool in_multi_head_attention = false;
  double mask_bytes = 0;   // what the mask adds to a fused kernel's reads
  int score_bytes = 0;     // per score element, as the softmax took them; 0 unknown
  MathPrecision dtype_precision = MathPrecision::kUnknown;
  PrecisionTimes matrix_precision;  // of the two matrix ops' matrix kernels
  std::int64_t gemm_ns = 0;
  std::int64_t softmax_ns = 0;
  std::int64_t elementwise_ns = 0;
  std::int64_t backward_ns = 0;

  std::int64_t measuredNs() const { return gemm_ns + softmax_ns + elementwise_ns + backward_ns; }
  MathPrecision precision() const {
    const MathPrecision kernels = matrix_precision.heaviest(/*skip_first=*/true);
    return kernels != MathPrecision::kUnknown ? kernels : dtype_precision;
  }
};

class Finder {
 public:
  Finder(const trace::Trace& trace, const KernelAttribution& kernels) : trace_(trace), kernels_(kernels) {}

  std::vector<Call> run() {
    const std::vector<Index> softmaxes = outermostSoftmaxes();
    if (softmaxes.empty()) return {};
    siblingLists(softmaxes);
    for (const Index s : softmaxes) {
      if (auto call = callAround(s)) claim(std::move(*call));
    }
    if (!calls_.empty()) measure();
    return std::move(calls_);
  }

 private:
  static constexpr std::int32_t kUnresolved = -1;
  static constexpr std::int32_t kNoOwner = -2;
  using Key = std::pair<Index, Index>;  // thread, operator parent

  const trace::Range& at(Index i) const { return trace_.ranges[static_cast<std::size_t>(i)]; }
  std::string_view base(Index i) const { return opBaseName(opName(trace_, at(i))); }

  // The nearest enclosing operator: Python frames and annotations between do not count, so ops
  // called from different Python functions of one forward share a level.
  Index operatorParent(Index i) const {
    for (Index p = at(i).parent; p != kNone; p = at(p).parent) {
      if (isOperator(at(p))) return p;
    }
    return kNone;
  }

  bool inside(Index i, Index ancestor) const {
    for (Index p = at(i).parent; p != kNone; p = at(p).parent) {
      if (p == ancestor) return true;
    }
    return false;
  }

  bool insideFusedAttention(Index i) const {
    for (Index p = i; p != kNone; p = at(p).parent) {
      if (isOperator(at(p)) && isFusedAttentionOp(opName(trace_, at(p)))) return true;
    }
    return false;
  }

  // The module call the range runs in, where the trace records modules as Python frames.
  Index moduleFrame(Index i) const {
    for (Index p = at(i).parent; p != kNone; p = at(p).parent) {
      if (at(p).text_form == trace::RangeTextForm::kModuleFrame) return p;
    }
    return kNone;
  }

  std::optional<Shapes> shapesOf(Index i) const { return parseShapes(trace_.str(at(i).shapes)); }

  // Softmax ops not nested in another softmax (aten::_softmax inside aten::softmax) nor inside an
  // op that already computes attention fused (or picks its kernels: SDPA's math implementation).
  std::vector<Index> outermostSoftmaxes() const {
    std::vector<Index> out;
    // Every operator range is asked, and a run has a few hundred op names: each decided once.
    NameTest softmax_name;
    const auto softmax = [&](Index r) { return softmax_name(opNameId(at(r)), [&] { return isSoftmaxOp(base(r)); }); };
    for (std::size_t i = 0; i < trace_.ranges.size(); ++i) {
      const auto r = static_cast<Index>(i);
      if (!isOperator(at(r)) || !softmax(r)) continue;
      const Index parent = operatorParent(r);
      if (parent != kNone && isSoftmaxOp(base(parent))) continue;
      if (insideFusedAttention(r)) continue;
      out.push_back(r);
    }
    return out;
  }

  // The ops at each softmax's level on its thread, in start order.
  void siblingLists(const std::vector<Index>& softmaxes) {
    std::unordered_set<Index> threads;
    for (const Index s : softmaxes) {
      threads.insert(at(s).thread);
      siblings_[{at(s).thread, operatorParent(s)}];
    }
    for (std::size_t i = 0; i < trace_.ranges.size(); ++i) {
      const auto r = static_cast<Index>(i);
      if (!isOperator(at(r)) || !threads.contains(at(r).thread)) continue;
      const auto found = siblings_.find({at(r).thread, operatorParent(r)});
      if (found != siblings_.end()) found->second.push_back(r);
    }
  }

  // The bmm an einsum runs (the largest, where it runs several).
  Index bmmInside(Index einsum) const {
    Index best = kNone;
    double best_size = 0;
    for (auto j = static_cast<std::size_t>(einsum) + 1;
         j < trace_.ranges.size() && trace_.ranges[j].start_ns <= at(einsum).end_ns; ++j) {
      const auto r = static_cast<Index>(j);
      if (at(r).thread != at(einsum).thread || !isOperator(at(r)) || base(r) != "bmm" || !inside(r, einsum)) continue;
      const auto shapes = shapesOf(r);
      const double size = shapes && !shapes->empty() ? numel(shapes->front()) : 0;
      if (best == kNone || size > best_size) {
        best = r;
        best_size = size;
      }
    }
    return best;
  }

  // The GEMM a matrix op performs, where its operands' inner dimensions agree.
  std::optional<GemmDims> gemmOf(Index op) const {
    const Index g = base(op) == "einsum" ? bmmInside(op) : op;
    if (g == kNone) return std::nullopt;
    const auto shapes = shapesOf(g);
    if (!shapes) return std::nullopt;
    const auto dims = gemmDims(opName(trace_, at(g)), *shapes);
    const std::size_t b = base(g) == "baddbmm" ? 2 : 1;
    if (!dims || b >= shapes->size() || (*shapes)[b].empty()) return std::nullopt;
    const Dims& rhs = (*shapes)[b];
    const std::int64_t inner = rhs.size() >= 2 ? rhs[rhs.size() - 2] : rhs.front();
    if (inner != dims->k || dims->m <= 0 || dims->n <= 0 || dims->k <= 0) return std::nullopt;
    return dims;
  }

  // Whether the op takes a tensor of the scores' size: a scale, mask, cast or dropout of them.
  bool touchesScores(Index op, double scores) const {
    const auto shapes = shapesOf(op);
    if (!shapes) return false;
    return std::any_of(shapes->begin(), shapes->end(), [&](const Dims& d) { return !d.empty() && numel(d) == scores; });
  }

  // A mask's or bias's elements: the op's inputs besides the scores.
  double maskBytes(Index op, double scores) const {
    const auto shapes = shapesOf(op);
    if (!shapes) return 0;
    const trace::RangeDtypes& dtypes = trace_.range_values.dtypes(at(op).dtypes);
    bool skipped_scores = false;
    double bytes = 0;
    for (std::size_t i = 0; i < shapes->size(); ++i) {
      const Dims& d = (*shapes)[i];
      if (d.empty()) continue;
      if (!skipped_scores && numel(d) == scores) {
        skipped_scores = true;
        continue;
      }
      const int element = dtypes.elementBytes(i);
      bytes += numel(d) * (element > 0 ? element : 2);
    }
    return bytes;
  }

  // The attention whose softmax is `s`: the matrix op before it that gives its input, the one
  // after it that takes its output, and the ops on the scores between them.
  std::optional<Call> callAround(Index s) {
    const auto softmax_shapes = shapesOf(s);
    if (!softmax_shapes || softmax_shapes->empty() || softmax_shapes->front().size() < 2) return std::nullopt;
    const Dims& scores = softmax_shapes->front();
    const auto rank = static_cast<std::int64_t>(scores.size());
    // Over the last dimension, where the call records it (aten::softmax(self, dim, dtype)).
    const std::string& dim = trace_.range_values.arguments(at(s).arguments).at(1).text;
    if (!dim.empty()) {
      if (dim != "-1" && dim != std::to_string(rank - 1)) return std::nullopt;
    }
    const double size = numel(scores);
    const std::int64_t sq = scores[scores.size() - 2];
    const std::int64_t sk = scores.back();
    const std::vector<Index>& level = siblings_.at({at(s).thread, operatorParent(s)});
    // A level lists its ops in index order (siblingLists): found by halving, not by a scan that
    // would make a trace of many softmaxes and many ops on one level quadratic.
    const auto position = static_cast<std::size_t>(std::lower_bound(level.begin(), level.end(), s) - level.begin());
    Call call;
    std::vector<Index> before;
    Index scores_gemm = kNone;
    for (std::size_t back = 1; back <= kSearchWindow && back <= position; ++back) {
      const Index r = level[position - back];
      const std::string_view b = base(r);
      if (isSoftmaxOp(b)) return std::nullopt;
      if (isMatrixOp(b)) {
        const auto dims = gemmOf(r);
        if (!dims || dims->m != sq || dims->n != sk ||
            static_cast<double>(dims->batch) * static_cast<double>(dims->m) * static_cast<double>(dims->n) != size) {
          return std::nullopt;  // a matrix op that does not give the scores: no attention here
        }
        scores_gemm = r;
        call.head_size = dims->k;
        break;
      }
      if (touchesScores(r, size)) before.push_back(r);
    }
    if (scores_gemm == kNone) return std::nullopt;
    std::vector<Index> after;
    Index output_gemm = kNone;
    for (std::size_t ahead = 1; ahead <= kSearchWindow && position + ahead < level.size(); ++ahead) {
      const Index r = level[position + ahead];
      const std::string_view b = base(r);
      if (isSoftmaxOp(b)) return std::nullopt;
      if (isMatrixOp(b)) {
        const auto dims = gemmOf(r);
        if (!dims || dims->m != sq || dims->k != sk ||
            static_cast<double>(dims->batch) * static_cast<double>(dims->m) * static_cast<double>(dims->k) != size) {
          return std::nullopt;
        }
        output_gemm = r;
        call.value_head_size = dims->n;
        break;
      }
      if (touchesScores(r, size)) after.push_back(r);
    }
    if (output_gemm == kNone) return std::nullopt;
    // One layer: inside the module call the first GEMM runs in; where the trace records no module
    // calls, the two GEMMs in the same named layer (the softmax may be a module of its own).
    const Index module = moduleFrame(scores_gemm);
    if (module != kNone) {
      if (!inside(s, module) || !inside(output_gemm, module)) return std::nullopt;
      call.layer = at(module).layer;
    } else {
      if (at(scores_gemm).layer != at(output_gemm).layer) return std::nullopt;
      call.layer = at(scores_gemm).layer;
    }
    call.scores = scores;
    call.pieces.emplace_back(scores_gemm, Role::kScoresGemm);
    for (auto it = before.rbegin(); it != before.rend(); ++it) {
      call.pieces.emplace_back(*it, Role::kBeforeSoftmax);
      if (isMaskOp(base(*it))) {
        call.masked = true;
        call.mask_bytes = std::max(call.mask_bytes, maskBytes(*it, size));
      }
    }
    call.pieces.emplace_back(s, Role::kSoftmax);
    for (const Index r : after) call.pieces.emplace_back(r, Role::kAfterSoftmax);
    call.pieces.emplace_back(output_gemm, Role::kOutputGemm);
    const Index parent = operatorParent(s);
    call.in_multi_head_attention = parent != kNone && base(parent) == "multi_head_attention_forward";
    const trace::RangeDtypes& dtypes = trace_.range_values.dtypes(at(s).dtypes);
    if (!dtypes.names.empty()) call.score_bytes = dtypes.elementBytes(0);
    const trace::RangeDtypes& gemm_dtypes = trace_.range_values.dtypes(at(scores_gemm).dtypes);
    if (!gemm_dtypes.names.empty()) call.dtype_precision = precisionOfDtype(gemm_dtypes.names.back());
    return call;
  }

  // Each op is a piece of one call only.
  void claim(Call call) {
    for (const auto& [range, role] : call.pieces) {
      if (piece_of_root_.contains(range)) return;
    }
    const auto index = static_cast<std::int32_t>(calls_.size());
    for (const auto& [range, role] : call.pieces) {
      piece_of_root_[range] = static_cast<std::int32_t>(pieces_.size());
      pieces_.push_back({index, role});
    }
    calls_.push_back(std::move(call));
  }

  // The piece a forward op belongs to (it or an op it runs in), encoded as piece x 2; kNoOwner.
  std::int32_t forwardOwner(Index op) const {
    for (Index p = op; p != kNone; p = at(p).parent) {
      if (const auto found = piece_of_root_.find(p); found != piece_of_root_.end()) return found->second * 2;
    }
    return kNoOwner;
  }

  // The piece whose work a range does: piece x 2 forward, piece x 2 + 1 for the backward op of a
  // piece (an autograd node linked to it, and every op it runs); kNoOwner. Memoised by range.
  std::int32_t ownerOf(Index range) {
    path_.clear();
    std::int32_t found = kNoOwner;
    for (Index x = range; x != kNone; x = at(x).parent) {
      const std::int32_t memo = owner_[static_cast<std::size_t>(x)];
      if (memo != kUnresolved) {
        found = memo;
        break;
      }
      path_.push_back(x);
      if (const auto piece = piece_of_root_.find(x); piece != piece_of_root_.end()) {
        found = piece->second * 2;
        break;
      }
      if (at(x).forward_range != kNone) {
        if (const std::int32_t forward = forwardOwner(at(x).forward_range); forward >= 0) {
          found = forward + 1;
          break;
        }
      }
    }
    for (const Index x : path_) owner_[static_cast<std::size_t>(x)] = found;
    return found;
  }

  void measure() {
    owner_.assign(trace_.ranges.size(), kUnresolved);
    for (std::size_t k = 0; k < trace_.kernels.size(); ++k) {
      const trace::Kernel& kernel = trace_.kernels[k];
      if (kernel.op_range == kNone) continue;
      const std::int32_t owner = ownerOf(kernel.op_range);
      if (owner < 0) continue;
      const Piece& piece = pieces_[static_cast<std::size_t>(owner / 2)];
      Call& call = calls_[static_cast<std::size_t>(piece.call)];
      const std::int64_t ns = kernel.end_ns - kernel.start_ns;
      if (owner % 2 == 1) {
        call.backward_ns += ns;
        continue;
      }
      switch (piece.role) {
        case Role::kScoresGemm:
        case Role::kOutputGemm: {
          call.gemm_ns += ns;
          const TensorCoreVerdict& verdict = kernels_.verdictOf(k);
          if (isMatrixKernel(verdict, true)) call.matrix_precision.add(verdict.precision, ns);
          break;
        }
        case Role::kSoftmax: call.softmax_ns += ns; break;
        case Role::kBeforeSoftmax:
        case Role::kAfterSoftmax: call.elementwise_ns += ns; break;
      }
    }
  }

  struct Piece {
    std::int32_t call;
    Role role;
  };

  const trace::Trace& trace_;
  const KernelAttribution& kernels_;
  std::map<Key, std::vector<Index>> siblings_;
  std::vector<Call> calls_;
  std::vector<Piece> pieces_;
  std::unordered_map<Index, std::int32_t> piece_of_root_;
  std::vector<std::int32_t> owner_;  // by range: ownerOf, kUnresolved until asked (sized by measure)
  std::vector<Index> path_;
};

// Calls of one shape and precision, as one finding.
using GroupKey = std::tuple<Dims, std::int64_t, std::int64_t, MathPrecision>;

UnfusedAttention startGroup(const Call& call, MathPrecision precision) {
  UnfusedAttention a;
  const Dims& s = call.scores;
  const std::size_t rank = s.size();
  a.scores_shape = s;
  a.query_length = s[rank - 2];
  a.key_length = s[rank - 1];
  a.head_size = call.head_size;
  a.value_head_size = call.value_head_size;
  a.batch = 1;
  if (rank >= 4) {
    a.heads = s[rank - 3];
    for (std::size_t i = 0; i + 3 < rank; ++i) a.batch *= s[i];
  } else if (rank == 3) {
    a.batch = s[0];
  }
  a.precision = precision;
  const int element = call.score_bytes > 0 ? call.score_bytes : (isHalfPrecision(precision) ? 2 : 4);
  a.scores_bytes = numel(s) * element;
  return a;
}

}  // namespace

std::vector<UnfusedAttention> findUnfusedAttention(const trace::Trace& trace, const IterationSummary& iterations,
                                                   const DeviceChoice& device, bool recorded_on_cpu,
                                                   const KernelAttribution& kernels) {
  if (recorded_on_cpu) return {};
  const std::vector<Call> calls = Finder(trace, kernels).run();
  std::map<GroupKey, std::size_t> index_of_group;
  std::vector<UnfusedAttention> groups;
  std::vector<std::map<trace::StringId, std::int64_t>> layer_time;
  std::vector<std::int64_t> heaviest_call_ns;
  std::vector<double> mask_bytes;
  for (const Call& call : calls) {
    const MathPrecision precision = call.precision();
    const GroupKey key{call.scores, call.head_size, call.value_head_size, precision};
    auto [found, fresh] = index_of_group.try_emplace(key, groups.size());
    if (fresh) {
      groups.push_back(startGroup(call, precision));
      layer_time.emplace_back();
      heaviest_call_ns.push_back(-1);
      mask_bytes.push_back(0);
    }
    const std::size_t g = found->second;
    UnfusedAttention& a = groups[g];
    ++a.calls;
    if (call.backward_ns > 0) ++a.backward_calls;
    a.gemm_ns += call.gemm_ns;
    a.softmax_ns += call.softmax_ns;
    a.elementwise_ns += call.elementwise_ns;
    a.backward_ns += call.backward_ns;
    a.masked |= call.masked;
    a.in_multi_head_attention |= call.in_multi_head_attention;
    mask_bytes[g] = std::max(mask_bytes[g], call.mask_bytes);
    if (call.layer != trace::StringTable::kEmpty) layer_time[g][call.layer] += call.measuredNs();
    if (call.measuredNs() > heaviest_call_ns[g]) {
      heaviest_call_ns[g] = call.measuredNs();
      a.ops.clear();
      for (const auto& [range, role] : call.pieces) {
        a.ops.emplace_back(opName(trace, trace.ranges[static_cast<std::size_t>(range)]));
      }
    }
  }
  const double steps = static_cast<double>(std::max<std::size_t>(1, iterations.iterations.size()));
  for (std::size_t g = 0; g < groups.size(); ++g) {
    UnfusedAttention& a = groups[g];
    std::vector<std::pair<trace::StringId, std::int64_t>> layers(layer_time[g].begin(), layer_time[g].end());
    std::stable_sort(layers.begin(), layers.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
    for (const auto& [layer, ns] : layers) a.layers.emplace_back(trace.str(layer));
    a.measured_ns_per_step = static_cast<std::int64_t>(static_cast<double>(a.measuredNs()) / steps);
    if (!device.spec) {
      a.note = "not estimated: the device is unknown (name it with --gpu NAME)";
      continue;
    }
    // The fused kernels run in FP16/BF16: pieces in FP32 (or of a precision not known) are
    // estimated in the half precision AMP would use, and then the gain includes AMP's.
    a.fused_precision = isHalfPrecision(a.precision) ? a.precision : ampPrecision(*device.spec);
    // Any other precision than the fused one (FP32, FP8, INT8, or one not known) is a change of
    // precision the estimate makes: said, not hidden in the gain.
    a.includes_amp = a.fused_precision != a.precision;
    const AttentionShape shape{a.batch, a.heads, a.query_length, a.key_length, a.head_size, a.value_head_size};
    const std::optional<FusedAttentionCost> cost =
        estimateFusedAttention(*device.spec, a.fused_precision, shape, mask_bytes[g]);
    if (!cost) {
      a.note = fmt::format("not estimated: the time model has no {} rate for {}", precisionName(a.fused_precision),
                           device.spec->name);
      continue;
    }
    a.fused_efficiency = cost->efficiency;
    a.fused_tile_min = kFusedAttentionTileMin;
    a.fused_forward_ns = static_cast<std::int64_t>(cost->forward_ns * static_cast<double>(a.calls));
    a.fused_backward_ns = static_cast<std::int64_t>(cost->backward_ns * static_cast<double>(a.backward_calls));
    a.fused_ns_per_step = static_cast<std::int64_t>(static_cast<double>(*a.fused_forward_ns + *a.fused_backward_ns) / steps);
    a.gain_ns_per_step = a.measured_ns_per_step - a.fused_ns_per_step;
  }
  std::stable_sort(groups.begin(), groups.end(), [](const UnfusedAttention& x, const UnfusedAttention& y) {
    if (x.gain_ns_per_step != y.gain_ns_per_step) return x.gain_ns_per_step > y.gain_ns_per_step;
    return x.measuredNs() > y.measuredNs();
  });
  return groups;
}

}  // namespace ampscope::analyzer
