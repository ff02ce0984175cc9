// The work of memory-bound ops (element-wise ops, reductions, normalisations, copies, fills):
// bytes only; and of views and allocations, which move none. Formulas, assumptions and sources:
// docs/performance_model.md, "Work per op", "Memory-bound and other ops".

#include "analyzer/model/op_work_call.h"

namespace ampscope::analyzer::op_work {

namespace {

constexpr std::string_view kViews[] = {
    "view", "view_as", "reshape", "_reshape_alias", "_unsafe_view", "as_strided", "as_strided_", "t", "t_",
    "transpose", "transpose_", "permute", "expand", "expand_as", "squeeze", "squeeze_", "unsqueeze", "unsqueeze_",
    "detach", "detach_", "alias", "slice", "select", "narrow", "resize_", "resize_as_", "empty", "empty_like",
    "empty_strided", "new_empty", "new_empty_strided", "flatten", "unflatten", "unfold", "split",
    "split_with_sizes", "chunk", "unbind", "contiguous", "lift_fresh", "numpy_T", "movedim", "diagonal",
    "conj", "resolve_conj", "resolve_neg", "record_stream", "set_"};

// Ops that write their tensor without reading it.
constexpr std::string_view kWriteOnly[] = {
    "fill_", "zero_", "normal_", "uniform_", "random_", "bernoulli_", "exponential_", "zeros_like", "ones_like",
    "full_like", "empty_permuted"};

}  // namespace

bool isViewOp(std::string_view op) { return isOneOf(op, kViews); }

OpWork viewWork() {
  OpWork work;
  work.basis = WorkBasis::kShapes;
  work.bytes = 0.0;
  work.note = "a view or allocation: no data moves";
  return work;
}

OpWork memoryWork(const Call& c) {
  const bool write_only = isOneOf(c.name, kWriteOnly);
  OpWork work;
  if (c.shapes.empty()) {
    work.note = "no shapes recorded (tensor lists are not read)";
    return work;
  }
  ByteCount bytes = write_only ? ByteCount{} : c.inputBytes();
  double largest = 0;
  int largest_bytes = 0;
  for (std::size_t i = 0; i < c.shapes.size(); ++i) {
    if (c.elements(i) <= largest) continue;
    largest = c.elements(i);
    largest_bytes = c.elementBytes(i);
  }
  if (c.name == "copy_" && largest > 0) {
    // copy_(self, src): src read, self written (in its own dtype): each input once.
    work.basis = WorkBasis::kShapes;
    work.note = "copies src into self: each once";
    finishBytes(work, bytes);
    return work;
  }
  if (largest == 0) {
    work.note = "no tensor input recorded: the output's size is unknown";
    return work;
  }
  bytes.add(largest, largest_bytes);
  work.basis = WorkBasis::kShapes;
  work.note = write_only ? "writes its tensor once"
                         : "memory-bound: inputs read once, an output the size of the largest input written once "
                           "(a reduction writes less)";
  finishBytes(work, bytes);
  return work;
}

}  // namespace ampscope::analyzer::op_work
