#pragma once
// Inside op_work.h: the call as the work formulas see it and what they share. Each family of
// formulas has a file (gemm_work.cpp, attention_work.cpp, convolution_work.cpp, memory_work.cpp);
// op_work.cpp sends each call to its family. Not for other callers: they use op_work.h.

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/model/op_work.h"
#include "trace/range_values.h"

namespace ampscope::analyzer::op_work {

using Dims = std::vector<std::int64_t>;

template <std::size_t N>
bool isOneOf(std::string_view name, const std::string_view (&names)[N]) {
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

inline double numel(const Dims& dims, std::size_t from = 0) {
  double n = 1;
  for (std::size_t i = from; i < dims.size(); ++i) n *= static_cast<double>(dims[i]);
  return n;
}

// Accumulates bytes; one tensor of unknown element size makes the total unknown.
struct ByteCount {
  double bytes = 0;
  bool known = true;
  void add(double elements, int element_bytes) {
    if (elements <= 0) return;
    if (element_bytes <= 0) known = false;
    bytes += elements * element_bytes;
  }
  std::optional<double> value() const { return known ? std::optional<double>(bytes) : std::nullopt; }
};

// The recorded call, with its dtypes and arguments as the range normaliser read them.
struct Call {
  const OpCall& op;
  std::string_view name;  // base name: "conv2d", "mm", "MmBackward0"
  const Shapes& shapes;
  const trace::RangeDtypes& dtypes;
  const trace::RangeArguments& args;

  const Dims* shape(std::size_t i) const { return i < shapes.size() && !shapes[i].empty() ? &shapes[i] : nullptr; }
  int elementBytes(std::size_t i) const {
    const int bytes = dtypes.elementBytes(i);
    return bytes > 0 ? bytes : op.element_bytes_fallback;
  }
  // Elements of input i: "[]" is a scalar argument, or a 0-dim tensor where its dtype says so.
  double elements(std::size_t i) const {
    if (i >= shapes.size()) return 0;
    if (!shapes[i].empty()) return numel(shapes[i]);
    return dtypes.elementBytes(i) > 0 ? 1 : 0;
  }
  const trace::ArgumentValue& arg(int i) const { return args.at(i); }
  // Every recorded tensor input read once.
  ByteCount inputBytes() const {
    ByteCount count;
    for (std::size_t i = 0; i < shapes.size(); ++i) count.add(elements(i), elementBytes(i));
    return count;
  }
};

// Sets the work's bytes from the count, noting when an element size was unknown.
void finishBytes(OpWork& work, const ByteCount& bytes);

// A matrix op whose work the record does not give, and why.
OpWork unknownMatrixWork(std::string note);

// Each family: which ops it computes (by base name) and their work. docs/performance_model.md,
// "Work per op", has each family's formulas, assumptions and sources.
bool isGemmOp(std::string_view op);
OpWork gemmWork(const Call& c);  // gemm_work.cpp

bool isAttentionOp(std::string_view op);  // the ops whose signature attention_work.cpp reads
OpWork attentionWork(const Call& c);      // attention_work.cpp

bool isConvolutionBackwardOp(std::string_view op);
OpWork convolutionWork(const Call& c);          // convolution_work.cpp, forward ops
OpWork convolutionBackwardWork(const Call& c);  // convolution_work.cpp, backward ops

bool isViewOp(std::string_view op);  // views and allocations: no data moves
OpWork viewWork();
OpWork memoryWork(const Call& c);  // memory_work.cpp: every other op, bytes only

}  // namespace ampscope::analyzer::op_work
