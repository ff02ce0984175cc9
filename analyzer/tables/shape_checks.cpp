#include "analyzer/tables/shape_checks.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "analyzer/core/operator_labels.h"
#include "analyzer/model/convolution_output.h"
#include "analyzer/model/op_work.h"
#include "analyzer/verdicts/kernel_verdicts.h"

namespace ampscope::analyzer {

namespace {

using trace::Index;
using trace::kNone;

struct Accumulated {
  ShapeCheck check;
  std::map<MathPrecision, std::int64_t> matrix_time_by_precision;
  std::uint64_t calls = 0;  // eligible calls with these shapes
  std::map<std::string, std::int64_t> layer_time;
  Index example = kNone;  // one call: its arguments and the trace around it tell a convolution's M
};

// A convolution's implicit-GEMM M counts its output positions, which the input shapes alone do
// not give (the stride and padding do): taken from the op's work (op_work.h), 0 when unknown.
std::int64_t convolutionM(const trace::Trace& trace, const trace::Range& call, Index index, const Shapes& shapes,
                          std::string_view op, std::optional<ConvolutionOutputInference>& inference) {
  OpCall c;
  c.op = op;
  c.shapes = &shapes;
  c.dtypes = &trace.range_values.dtypes(call.dtypes);
  c.arguments = &trace.range_values.arguments(call.arguments);
  OpWork work = opWork(c);
  if (!work.gemm) {
    if (!inference) inference.emplace(trace);
    if (const std::optional<InferredOutput> output = inference->infer(index)) {
      c.output_shape = output->shape;
      c.output_basis = output->basis;
      work = opWork(c);
    }
  }
  return work.gemm ? work.gemm->m : 0;
}

}  // namespace

std::vector<ShapeCheck> checkShapes(const trace::Trace& trace, const KernelAttribution& kernels) {
  // By op name, shapes and strides: one layout of a shape may need alignment where another does not.
  std::map<std::tuple<std::string_view, trace::StringId, trace::StringId>, Accumulated> by_call_shape;
  // Where each eligible call's kernels add up, found once per call: its keys are compared per
  // call, not per kernel (a step of a large model launches millions). Map nodes do not move.
  struct Slots {
    Accumulated* shape = nullptr;
    std::int64_t* layer_time = nullptr;  // nullptr: the call names no layer
  };
  std::vector<Slots> slots_of(trace.ranges.size());  // by eligible op range

  for (std::size_t k = 0; k < trace.kernels.size(); ++k) {
    const trace::Kernel& kernel = trace.kernels[k];
    const Index eligible = kernels.originOf(k).shaped_op;
    if (eligible == kNone) continue;
    Slots& slots = slots_of[static_cast<std::size_t>(eligible)];
    if (!slots.shape) {
      const trace::Range& op = trace.ranges[static_cast<std::size_t>(eligible)];
      slots.shape = &by_call_shape[{opName(trace, op), op.shapes, op.strides}];
      ++slots.shape->calls;
      if (slots.shape->example == kNone) slots.shape->example = eligible;
      if (op.layer != trace::StringTable::kEmpty) slots.layer_time = &slots.shape->layer_time[std::string(trace.str(op.layer))];
    }
    const TensorCoreVerdict& verdict = kernels.verdictOf(k);

    Accumulated& a = *slots.shape;
    const std::int64_t duration = kernel.end_ns - kernel.start_ns;
    a.check.gpu_time_ns += duration;
    if (slots.layer_time) *slots.layer_time += duration;
    if (verdict.tensor_core) a.check.tensor_core_time_ns += duration;
    // Only matrix kernels say which precision the op ran in (not its copies or transposes).
    if (isMatrixKernel(verdict, true)) {
      a.matrix_time_by_precision[verdict.precision] += duration;
    }
    if (verdict.alignment > 0) {
      int& smallest = a.check.smallest_kernel_alignment;
      smallest = smallest == 0 ? verdict.alignment : std::min(smallest, verdict.alignment);
    }
  }

  std::vector<ShapeCheck> out;
  std::optional<ConvolutionOutputInference> inference;  // built on first need
  for (auto& [key, a] : by_call_shape) {
    ShapeCheck& c = a.check;
    const auto& [op_name, shapes_id, strides_id] = key;
    c.op = std::string(op_name);
    c.shapes = std::string(trace.str(shapes_id));
    c.strides = std::string(trace.str(strides_id));
    c.calls = a.calls;
    const auto shapes = parseShapes(c.shapes);
    const auto strides = parseShapes(c.strides);
    const auto dims = shapes ? gemmDims(c.op, *shapes, strides ? &*strides : nullptr) : std::nullopt;
    if (!dims) continue;  // shapes that do not describe a GEMM (e.g. a backward node's)
    // An op whose matrix work ran in a nested eligible op (linear around matmul) launched only
    // copies and bias adds itself: the nested op carries the finding.
    if (a.matrix_time_by_precision.empty()) continue;
    c.dims = *dims;
    if (c.dims.convolution) {
      c.dims.m = convolutionM(trace, trace.ranges[static_cast<std::size_t>(a.example)], a.example, *shapes, c.op, inference);
    }
    const auto dominant = std::max_element(a.matrix_time_by_precision.begin(), a.matrix_time_by_precision.end(),
                                           [](const auto& x, const auto& y) { return x.second < y.second; });
    c.precision = dominant == a.matrix_time_by_precision.end() ? MathPrecision::kUnknown : dominant->first;
    c.required_multiple = requiredMultiple(c.precision);
    c.misaligned = misalignedDimensions(c.dims, c.required_multiple);
    const auto layer = std::max_element(a.layer_time.begin(), a.layer_time.end(),
                                        [](const auto& x, const auto& y) { return x.second < y.second; });
    if (layer != a.layer_time.end()) c.layer = layer->first;
    out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const ShapeCheck& x, const ShapeCheck& y) {
    if (x.gpu_time_ns != y.gpu_time_ns) return x.gpu_time_ns > y.gpu_time_ns;
    return std::tie(x.shapes, x.strides) < std::tie(y.shapes, y.strides);
  });
  return out;
}

}  // namespace ampscope::analyzer
