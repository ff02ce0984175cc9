#include "analyzer/model/convolution_output.h"

#include <algorithm>
#include <cctype>

#include "analyzer/core/gemm_shapes.h"

namespace ampscope::analyzer {

namespace {

using Dims = std::vector<std::int64_t>;
using trace::Index;
using trace::kNone;
using trace::Range;

// How far the consumer search looks: the ops of a conv's own layer (batch norm, activation,
// their inner aten ops and views) come within a few dozen ops.
constexpr int kConsumerOps = 32;
// Ranges of other threads passed over on the way, at most.
constexpr int kConsumerScan = 4096;

std::size_t at(Index index) { return static_cast<std::size_t>(index); }

const Range& rangeAt(const trace::Trace& trace, Index index) { return trace.ranges[at(index)]; }

bool isConvolution(const trace::Trace& trace, Index index) {
  return isForwardConvolutionOp(trace.str(rangeAt(trace, index).op));
}

Shapes shapesOf(const trace::Trace& trace, const Range& range) {
  if (range.shapes == trace::StringTable::kEmpty) return {};
  return parseShapes(trace.str(range.shapes)).value_or(Shapes{});
}

bool isAncestor(const trace::Trace& trace, Index ancestor, Index index) {
  // A parent starts no later than its child and sorts before it (Trace::sortByTime).
  for (Index p = rangeAt(trace, index).parent; p != kNone && p >= ancestor; p = rangeAt(trace, p).parent) {
    if (p == ancestor) return true;
  }
  return false;
}

// The ranges nested in `outer` on its thread, in start order.
template <typename Visit>
void forEachDescendant(const trace::Trace& trace, Index outer, Visit visit) {
  const Range& o = rangeAt(trace, outer);
  for (std::size_t j = at(outer) + 1; j < trace.ranges.size() && trace.ranges[j].start_ns <= o.end_ns; ++j) {
    if (trace.ranges[j].thread != o.thread || !isAncestor(trace, outer, static_cast<Index>(j))) continue;
    if (visit(static_cast<Index>(j))) return;
  }
}

// Where a backward op records grad_output: autograd nodes (ConvolutionBackward0,
// CudnnConvolutionBackward) record only it; aten::convolution_backward puts it first; the cuDNN,
// MIOpen and MKL-DNN backward ops take (self or its size, grad_output, ...). -1: not recorded.
int gradOutputPosition(std::string_view op) {
  if (const auto colons = op.rfind("::"); colons != std::string_view::npos) op = op.substr(colons + 2);
  if (op.starts_with("convolution_backward")) return 0;
  if (op.find("convolution_backward") != std::string_view::npos) return 1;
  if (op.find("Convolution") != std::string_view::npos && op.find("Backward") != std::string_view::npos &&
      op.find(' ') == std::string_view::npos) {
    return 0;
  }
  return -1;
}

struct ConvCall {
  Dims input;   // [N, C, spatial...]
  Dims weight;  // [K, C/groups, filter...]
  Index outermost = kNone;  // the outermost convolution op of this call (aten::conv2d over cudnn_convolution)

  // Could `shape` be this call's output [N, K, spatial...]?
  bool fits(const Dims& shape, bool check_spatial) const {
    if (shape.size() != input.size() || shape[0] != input[0] || shape[1] != weight[0]) return false;
    for (std::size_t i = 2; check_spatial && i < shape.size(); ++i) {
      if (shape[i] < 1 || shape[i] > input[i] + weight[i]) return false;
    }
    return true;
  }
};

std::optional<ConvCall> convCall(const trace::Trace& trace, Index range) {
  if (range == kNone || at(range) >= trace.ranges.size()) return std::nullopt;
  const std::string_view op = trace.str(rangeAt(trace, range).op);
  // A transposed convolution's weight does not give its output channels.
  if (op.find("transpose") != std::string_view::npos) return std::nullopt;
  const Shapes shapes = shapesOf(trace, rangeAt(trace, range));
  if (shapes.size() < 2 || shapes[0].size() < 3 || shapes[1].size() != shapes[0].size()) return std::nullopt;
  ConvCall call{shapes[0], shapes[1], range};
  for (Index p = rangeAt(trace, range).parent; p != kNone && isConvolution(trace, p); p = rangeAt(trace, p).parent) {
    call.outermost = p;
  }
  return call;
}

// The convolution ops of one call: the outermost and the convolutions nested in it.
std::vector<Index> callChain(const trace::Trace& trace, const ConvCall& call) {
  std::vector<Index> chain{call.outermost};
  forEachDescendant(trace, call.outermost, [&](Index j) {
    if (isConvolution(trace, j)) chain.push_back(j);
    return false;
  });
  return chain;
}

std::optional<InferredOutput> fromBackward(const trace::Trace& trace, const ConvCall& call,
                                           const std::vector<Index>& backward_ops) {
  std::optional<InferredOutput> found;
  const auto check = [&](Index index) {
    const Range& range = rangeAt(trace, index);
    const int position = gradOutputPosition(trace.str(range.op));
    if (position < 0) return false;
    const Shapes shapes = shapesOf(trace, range);
    if (at(position) >= shapes.size() || !call.fits(shapes[at(position)], false)) return false;
    found = InferredOutput{shapes[at(position)], WorkBasis::kBackwardGradient};
    return true;
  };
  for (Index backward : backward_ops) {
    if (check(backward)) return found;
    forEachDescendant(trace, backward, check);
    if (found) return found;
  }
  return std::nullopt;
}

std::optional<InferredOutput> fromConsumer(const trace::Trace& trace, const ConvCall& call) {
  const Range& outer = rangeAt(trace, call.outermost);
  auto next = std::lower_bound(trace.ranges.begin(), trace.ranges.end(), outer.end_ns,
                               [](const Range& r, std::int64_t t) { return r.start_ns < t; });
  int ops = 0;
  for (int scanned = 0; next != trace.ranges.end() && scanned < kConsumerScan; ++next, ++scanned) {
    if (next->thread != outer.thread || next->kind != trace::RangeKind::kOperator ||
        next->op == trace::StringTable::kEmpty) {
      continue;
    }
    if (++ops > kConsumerOps || isForwardConvolutionOp(trace.str(next->op))) break;
    const Shapes shapes = shapesOf(trace, *next);
    if (!shapes.empty() && call.fits(shapes[0], true)) return InferredOutput{shapes[0], WorkBasis::kConsumerInput};
  }
  return std::nullopt;
}

bool isBackwardRoot(const Range& range) {
  return range.sequence_number >= 0 && (range.fwd_thread_tid != 0 || range.phase == trace::Phase::kBackward);
}

bool sameProcess(const trace::Trace& trace, const Range& a, const Range& b) {
  if (a.thread == kNone || b.thread == kNone) return a.thread == b.thread;
  return trace.threads[at(a.thread)].pid == trace.threads[at(b.thread)].pid;
}

// `backward_of(op, out)` appends the backward ops linked to forward op `op`: those whose
// forward_range is it, and those with its sequence number. The number alone matters where the
// link went elsewhere: PyTorch records the counter's current value on ops that create no
// autograd node (PyTorch 1.8's data-loading ops carry the next convolution's number), so the
// first forward op with a number need not be the one whose backward it is.
template <typename BackwardOf>
std::optional<InferredOutput> inferOutput(const trace::Trace& trace, Index range, BackwardOf backward_of) {
  const auto call = convCall(trace, range);
  if (!call) return std::nullopt;
  std::vector<Index> backward_ops;
  for (Index op : callChain(trace, *call)) backward_of(op, backward_ops);
  std::sort(backward_ops.begin(), backward_ops.end());
  backward_ops.erase(std::unique(backward_ops.begin(), backward_ops.end()), backward_ops.end());
  std::erase_if(backward_ops, [&](Index b) { return !sameProcess(trace, rangeAt(trace, b), rangeAt(trace, range)); });
  if (auto found = fromBackward(trace, *call, backward_ops)) return found;
  return fromConsumer(trace, *call);
}

}  // namespace

std::optional<InferredOutput> inferConvolutionOutput(const trace::Trace& trace, trace::Index range) {
  return inferOutput(trace, range, [&](Index forward, std::vector<Index>& out) {
    const std::int64_t sequence = rangeAt(trace, forward).sequence_number;
    for (std::size_t i = 0; i < trace.ranges.size(); ++i) {
      const Range& r = trace.ranges[i];
      if (r.forward_range == forward || (sequence >= 0 && r.sequence_number == sequence && isBackwardRoot(r))) {
        out.push_back(static_cast<Index>(i));
      }
    }
  });
}

ConvolutionOutputInference::ConvolutionOutputInference(const trace::Trace& trace) : trace_(trace) {
  for (std::size_t i = 0; i < trace.ranges.size(); ++i) {
    const Range& r = trace.ranges[i];
    if (r.forward_range != kNone) backward_by_forward_.emplace_back(r.forward_range, static_cast<Index>(i));
    if (isBackwardRoot(r)) backward_by_sequence_.emplace_back(r.sequence_number, static_cast<Index>(i));
  }
  std::sort(backward_by_forward_.begin(), backward_by_forward_.end());
  std::sort(backward_by_sequence_.begin(), backward_by_sequence_.end());
}

std::optional<InferredOutput> ConvolutionOutputInference::infer(trace::Index range) const {
  return inferOutput(trace_, range, [&](Index forward, std::vector<Index>& out) {
    const auto add = [&](const auto& index, auto key) {
      using Key = decltype(key);
      auto it = std::lower_bound(index.begin(), index.end(), std::pair<Key, Index>{key, Index{-1}});
      for (; it != index.end() && it->first == key; ++it) out.push_back(it->second);
    };
    add(backward_by_forward_, forward);
    const std::int64_t sequence = rangeAt(trace_, forward).sequence_number;
    if (sequence >= 0) add(backward_by_sequence_, sequence);
  });
}

}  // namespace ampscope::analyzer
