// The work of convolutions, forward (with their stride, padding, dilation, groups, transposed)
// and backward (the data and weight gradients their output_mask asks for). Formulas, assumptions
// and sources: docs/performance_model.md, "Work per op", "Convolutions". Argument positions follow
// the ops' schemas in PyTorch's aten/src/ATen/native/native_functions.yaml: Kineto's "Concrete
// Inputs" has one entry per schema argument, in order.

#include "analyzer/model/op_work_call.h"

namespace ampscope::analyzer {

namespace op_work {

namespace {

struct ConvSignature {
  std::string_view name;
  int stride, padding, dilation, groups;  // argument positions; -1: the op has none (1 by definition)
  int output_padding = -1;
  int transposed = -1;  // argument position of the transposed flag; -1: fixed by the op
  bool always_transposed = false;
  bool forward = true;
};

constexpr ConvSignature kConvolutions[] = {
    {"conv1d", 3, 4, 5, 6}, {"conv2d", 3, 4, 5, 6}, {"conv3d", 3, 4, 5, 6},
    {"convolution", 3, 4, 5, 8, 7, 6}, {"_convolution", 3, 4, 5, 8, 7, 6},
    {"convolution_overrideable", 3, 4, 5, 8, 7, 6}, {"_convolution_mode", 3, 4, 5, 6},
    {"conv_transpose1d", 3, 4, 7, 6, 5, -1, true}, {"conv_transpose2d", 3, 4, 7, 6, 5, -1, true},
    {"conv_transpose3d", 3, 4, 7, 6, 5, -1, true},
    // cuDNN, MKL-DNN and MIOpen ops put padding before stride.
    {"cudnn_convolution", 3, 2, 4, 5}, {"cudnn_convolution_transpose", 4, 2, 5, 6, 3, -1, true},
    {"cudnn_convolution_relu", 3, 4, 5, 6}, {"cudnn_convolution_add_relu", 5, 6, 7, 8},
    {"mkldnn_convolution", 4, 3, 5, 6}, {"miopen_convolution", 4, 3, 5, 6},
    {"miopen_depthwise_convolution", 4, 3, 5, 6}, {"miopen_convolution_transpose", 5, 3, 6, 7, 4, -1, true},
    {"_slow_conv2d_forward", 4, 5, -1, -1}, {"thnn_conv2d", 4, 5, -1, -1}, {"slow_conv3d", 4, 5, -1, -1},
    {"slow_conv3d_forward", 4, 5, -1, -1}, {"slow_conv_dilated2d", 4, 5, 6, -1}, {"slow_conv_dilated3d", 4, 5, 6, -1},
    {"slow_conv_transpose2d", 4, 5, 7, -1, 6, -1, true}, {"slow_conv_transpose3d", 4, 5, 7, -1, 6, -1, true},
    {"_conv_depthwise2d", 4, 5, 6, -2}, {"_nnpack_spatial_convolution", 4, 3, -1, -1},
    // Backward ops.
    {"convolution_backward", 4, 5, 6, 9, 8, 7, false, false},
    {"convolution_backward_overrideable", 3, 4, 5, 8, 7, 6, false, false},
    {"cudnn_convolution_backward", 4, 3, 5, 6, -1, -1, false, false},
    {"cudnn_convolution_backward_input", 4, 3, 5, 6, -1, -1, false, false},
    {"cudnn_convolution_backward_weight", 4, 3, 5, 6, -1, -1, false, false},
    {"cudnn_convolution_transpose_backward", 5, 3, 6, 7, 4, -1, true, false},
    {"mkldnn_convolution_backward", 4, 3, 5, 6, -1, -1, false, false},
    {"miopen_convolution_backward", 4, 3, 5, 6, -1, -1, false, false},
    {"miopen_convolution_backward_input", 4, 3, 5, 6, -1, -1, false, false},
    {"miopen_convolution_backward_weight", 4, 3, 5, 6, -1, -1, false, false},
    {"miopen_convolution_transpose_backward", 5, 3, 6, 7, 4, -1, true, false},
};

const ConvSignature* convSignature(std::string_view op) {
  for (const ConvSignature& s : kConvolutions) {
    if (s.name == op) return &s;
  }
  return nullptr;
}

struct RecordedGeometry {
  ConvGeometry geometry;
  bool same_padding = false;  // padding="same": the output keeps the input's size
};

// `filter`: the weight's filter sizes, needed only for padding="same"; empty when not known.
std::optional<RecordedGeometry> recordedGeometry(std::string_view op, const trace::RangeArguments& arguments,
                                                 std::size_t spatial, const Dims& filter) {
  const ConvSignature* sig = convSignature(op);
  if (!sig || arguments.values.empty() || spatial == 0) return std::nullopt;
  int shift = 0;
  // Older cuDNN ops took a bias before padding (cudnn_convolution(self, weight, bias, padding, ...)).
  if ((op == "cudnn_convolution" || op == "cudnn_convolution_transpose") &&
      !arguments.at(2).integers && arguments.at(3).integers) {
    shift = 1;
  }
  const auto at = [&](int pos) -> const trace::ArgumentValue& { return arguments.at(pos < 0 ? -1 : pos + shift); };
  // An int[] argument: one value per spatial dimension, or one value for all.
  const auto list = [&](int pos, std::int64_t fixed) -> std::optional<Dims> {
    if (pos < 0) return Dims(spatial, fixed);
    auto values = at(pos).integers;
    if (!values || values->empty()) return std::nullopt;
    if (values->size() == 1) return Dims(spatial, values->front());
    if (values->size() != spatial) return std::nullopt;
    return values;
  };
  RecordedGeometry out;
  ConvGeometry& g = out.geometry;
  auto stride = list(sig->stride, 1);
  auto dilation = list(sig->dilation, 1);
  auto output_padding = list(sig->output_padding, 0);
  if (!stride || !dilation || !output_padding) return std::nullopt;
  g.stride = *stride;
  g.dilation = *dilation;
  g.output_padding = *output_padding;
  const std::string_view padding_text = at(sig->padding).word();
  if (padding_text == "valid" || padding_text == "'valid'") {
    g.padding = Dims(spatial, 0);
  } else if (padding_text == "same" || padding_text == "'same'") {
    // PyTorch pads d*(f-1) in total, the odd one on the far side; the near side is shown.
    if (filter.size() != spatial) return std::nullopt;
    for (std::size_t i = 0; i < spatial; ++i) g.padding.push_back(g.dilation[i] * (filter[i] - 1) / 2);
    out.same_padding = true;
  } else {
    auto padding = list(sig->padding, 0);
    if (!padding) return std::nullopt;
    g.padding = *padding;
  }
  if (sig->groups == -2) return std::nullopt;  // _conv_depthwise2d: groups = input channels, not an argument
  if (sig->groups >= 0) {
    const auto groups = at(sig->groups).integer();
    if (!groups || *groups <= 0) return std::nullopt;
    g.groups = *groups;
  }
  g.transposed = sig->always_transposed;
  if (sig->transposed >= 0) {
    const auto transposed = at(sig->transposed).flag;
    if (!transposed) return std::nullopt;
    g.transposed = *transposed;
  }
  return out;
}

// Output spatial sizes; nullopt where a size is not positive.
std::optional<Dims> convOutputSpatial(const Dims& in, const Dims& filter, const RecordedGeometry& p) {
  const ConvGeometry& g = p.geometry;
  Dims out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::int64_t span = g.dilation[i] * (filter[i] - 1);
    std::int64_t size = 0;
    if (p.same_padding) {
      size = in[i];
    } else if (g.transposed) {
      size = (in[i] - 1) * g.stride[i] - 2 * g.padding[i] + span + g.output_padding[i] + 1;
    } else {
      const std::int64_t reach = in[i] + 2 * g.padding[i] - span - 1;
      size = reach < 0 || g.stride[i] <= 0 ? 0 : reach / g.stride[i] + 1;
    }
    if (size <= 0) return std::nullopt;
    out.push_back(size);
  }
  return out;
}

// The last argument that is a list, where it is a list of booleans: output_mask (an int list of
// ones and zeros, a dilation or padding, is not one).
std::optional<std::vector<bool>> outputMask(const Call& c) {
  const std::vector<trace::ArgumentValue>& values = c.args.values;
  for (auto it = values.rbegin(); it != values.rend(); ++it) {
    if (it->list) return it->flags;
  }
  return std::nullopt;
}

Dims tail(const Dims& dims, std::size_t from) {
  return Dims(dims.begin() + static_cast<std::ptrdiff_t>(from), dims.end());
}

}  // namespace

// Input [N, C, spatial...], weight [K, C/groups, filter...] (transposed: [C, K/groups, filter...]).
OpWork convolutionWork(const Call& c) {
  OpWork work;
  work.matrix = true;
  const Dims* in = c.shape(0);
  const Dims* wt = c.shape(1);
  if (!in || !wt || in->size() < 3 || wt->size() != in->size()) {
    work.note = "convolution: input and weight shapes not recorded";
    return work;
  }
  const std::size_t spatial = in->size() - 2;
  const Dims filter = tail(*wt, 2);
  const auto stated = recordedGeometry(c.name, c.args, spatial, filter);
  const ConvSignature* sig = convSignature(c.name);
  const bool transposed = stated ? stated->geometry.transposed : sig && sig->always_transposed;
  if (stated) work.conv = stated->geometry;
  const std::int64_t n = (*in)[0];
  Dims out_spatial;
  std::int64_t out_channels = transposed ? 0 : (*wt)[0];
  WorkBasis out_basis = WorkBasis::kUnknown;
  if (stated) {
    const auto o = convOutputSpatial(tail(*in, 2), filter, *stated);
    if (!o) {
      work.note = "convolution: the recorded arguments give an empty output";
      return work;
    }
    out_spatial = *o;
    out_basis = WorkBasis::kArguments;
    if (transposed) out_channels = (*wt)[1] * stated->geometry.groups;
  } else if (const Dims& o = c.op.output_shape; o.size() == in->size() && o[0] == n &&
                                                (transposed || o[1] == out_channels)) {
    out_spatial = tail(o, 2);
    out_channels = o[1];
    out_basis = c.op.output_basis == WorkBasis::kUnknown ? WorkBasis::kOutputShape : c.op.output_basis;
  }
  const double weight_elements = numel(*wt);
  const double positions_in = numel(*in, 2);
  const double positions_out = out_spatial.empty() ? 0 : numel(out_spatial);
  const double out_elements = static_cast<double>(n) * static_cast<double>(out_channels) * positions_out;
  const double bias_flops = c.shape(2) ? out_elements : 0;
  if (!transposed) {
    if (out_spatial.empty()) {
      work.note = "convolution: stride, padding and dilation not recorded and no output shape known: output "
                  "positions unknown (stride 1 is never assumed)";
      return work;
    }
    // Implicit GEMM: M = N x output positions, N = K, K = C/groups x filter; each output channel
    // sees only its group's input channels, so FLOPs = 2 N P K (C/groups) R S = 2 N P |weight|.
    work.flops = 2.0 * static_cast<double>(n) * positions_out * weight_elements + bias_flops;
    work.gemm = GemmDims{n * static_cast<std::int64_t>(positions_out), (*wt)[0],
                         static_cast<std::int64_t>(numel(*wt, 1)), 1, true, (*in)[1], std::nullopt};
    work.basis = out_basis;
  } else {
    // Every input position meets every filter tap once: 2 N P_in |weight|, whatever the stride.
    work.flops = 2.0 * static_cast<double>(n) * positions_in * weight_elements + bias_flops;
    work.basis = WorkBasis::kShapes;
    if (out_channels > 0 && (*wt)[1] > 0) {
      const std::int64_t groups = out_channels / (*wt)[1];
      work.gemm = GemmDims{n * static_cast<std::int64_t>(positions_in), out_channels,
                           (*in)[1] / std::max<std::int64_t>(groups, 1) * static_cast<std::int64_t>(numel(filter)), 1,
                           true, (*in)[1], std::nullopt};
    }
    if (out_spatial.empty()) {
      work.note = "transposed convolution: output size not recorded: bytes unknown";
      return work;
    }
  }
  ByteCount bytes = c.inputBytes();
  bytes.add(out_elements, c.elementBytes(0));
  finishBytes(work, bytes);
  return work;
}

OpWork convolutionBackwardWork(const Call& c) {
  OpWork work;
  work.matrix = true;
  const std::string_view op = c.name;
  const bool input_only = op.ends_with("_backward_input");
  const bool weight_only = op.ends_with("_backward_weight");
  const bool grad_first = op.starts_with("convolution_backward");
  // convolution_backward(grad_output, input, weight, ...); the cuDNN/MIOpen/MKL-DNN ops put
  // self (or its size) first: (self, grad_output, weight|self, ...).
  const Dims* go = c.shape(grad_first ? 0 : 1);
  const Dims* in = input_only ? nullptr : c.shape(grad_first ? 1 : (weight_only ? 2 : 0));
  const Dims* wt = weight_only ? nullptr : c.shape(2);
  // The size-only operand (the input's or the weight's) from the arguments, else the op's
  // output shape (the gradient has that shape).
  Dims sized;
  if (input_only || weight_only) {
    if (const auto& size = c.arg(0).integers; size && !size->empty()) sized = *size;
    else if (!c.op.output_shape.empty()) sized = c.op.output_shape;
    if (!sized.empty()) (input_only ? in : wt) = &sized;
  }
  if (!go || go->size() < 3) {
    work.note = std::string(op) + ": grad_output shape not recorded";
    return work;
  }
  if (!wt || wt->size() != go->size()) {
    work.note = weight_only ? std::string(op) + ": the weight's size is not recorded, so neither is the filter's: "
                                                "FLOPs unknown (the enclosing convolution backward op records it)"
                            : std::string(op) + ": weight shape not recorded";
    return work;
  }
  const auto stated = recordedGeometry(op, c.args, go->size() - 2, tail(*wt, 2));
  if (stated) work.conv = stated->geometry;
  const ConvSignature* sig = convSignature(op);
  bool transposed = stated ? stated->geometry.transposed : sig && sig->always_transposed;
  if (!stated && grad_first && in) {
    // Without arguments: a transposed convolution's grad_output has the weight's second dimension
    // (times groups) as channels, and its input the weight's first.
    transposed = (*go)[1] != (*wt)[0] && (*in)[1] == (*wt)[0];
  }
  const double n = static_cast<double>((*go)[0]);
  const double weight_elements = numel(*wt);
  double per_pass = 0;
  if (!transposed) {
    per_pass = 2.0 * n * numel(*go, 2) * weight_elements;
    work.gemm = GemmDims{(*go)[0] * static_cast<std::int64_t>(numel(*go, 2)), (*wt)[0],
                         static_cast<std::int64_t>(numel(*wt, 1)), 1, true,
                         in ? (*in)[1] : (stated ? (*wt)[1] * stated->geometry.groups : 0), std::nullopt};
  } else if (in) {
    per_pass = 2.0 * n * numel(*in, 2) * weight_elements;
  } else {
    work.note = std::string(op) + ": transposed convolution without its input shape";
    return work;
  }
  // output_mask: grad input, grad weight (and grad bias, a reduction); the _input/_weight ops do one.
  std::vector<bool> mask{!weight_only, !input_only, false};
  if (!input_only && !weight_only) {
    if (const auto mask_recorded = outputMask(c); mask_recorded && mask_recorded->size() >= 2) {
      mask = *mask_recorded;
      mask.resize(3, false);
    } else {
      work.note = "output_mask not recorded: grad input and grad weight both counted";
    }
  }
  const int passes = (mask[0] ? 1 : 0) + (mask[1] ? 1 : 0);
  work.flops = per_pass * passes;
  work.basis = WorkBasis::kShapes;
  ByteCount bytes = c.inputBytes();
  const int element_bytes = c.elementBytes(grad_first ? 0 : 1);
  if (input_only || weight_only) bytes.add(numel(sized), element_bytes);
  else {
    if (mask[0] && in) bytes.add(numel(*in), element_bytes);
    if (mask[1]) bytes.add(weight_elements, element_bytes);
    if (mask[2]) bytes.add(static_cast<double>((*go)[1]), element_bytes);
  }
  if ((input_only || weight_only) && sized.empty()) {
    work.note = std::string(op) + ": the gradient's size is not recorded: bytes unknown";
    return work;
  }
  finishBytes(work, bytes);
  return work;
}

bool isConvolutionBackwardOp(std::string_view op) {
  const ConvSignature* sig = convSignature(op);
  return sig && !sig->forward;
}

}  // namespace op_work

std::optional<ConvGeometry> convGeometry(std::string_view op, const trace::RangeArguments& arguments,
                                         std::size_t spatial_dims) {
  const auto stated = op_work::recordedGeometry(opBaseName(op), arguments, spatial_dims, {});
  if (!stated) return std::nullopt;
  return stated->geometry;
}

bool isForwardConvolutionOp(std::string_view op_name) {
  const op_work::ConvSignature* sig = op_work::convSignature(opBaseName(op_name));
  return sig && sig->forward;
}

}  // namespace ampscope::analyzer
