#include "analyzer/core/gemm_shapes.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace ampscope::analyzer {

namespace {

// The op's own name: "aten::addmm" -> "addmm", "torch.nn.functional.linear" -> "linear".
std::string_view baseName(std::string_view op) {
  if (const auto colons = op.rfind("::"); colons != std::string_view::npos) op = op.substr(colons + 2);
  if (const auto dot = op.rfind('.'); dot != std::string_view::npos) op = op.substr(dot + 1);
  return op;
}

std::int64_t product(const std::vector<std::int64_t>& dims, std::size_t from, std::size_t to) {
  std::int64_t p = 1;
  for (std::size_t i = from; i < to && i < dims.size(); ++i) p *= dims[i];
  return p;
}

bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// True when a matrix operand's last two axes are laid out column-major: its next-to-last axis
// has stride 1 and its last axis does not.
bool columnMajor(const std::vector<std::int64_t>& strides) {
  return strides[strides.size() - 2] == 1 && strides.back() != 1;
}

std::optional<GemmDims> matrixProduct(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  if (a.size() < 2 || b.empty()) return std::nullopt;
  GemmDims d;
  d.k = a.back();
  d.m = a[a.size() - 2];
  d.batch = product(a, 0, a.size() - 2);
  d.n = b.size() >= 2 ? b.back() : 1;
  return d;
}

}  // namespace

std::optional<Shapes> parseShapes(std::string_view json) {
  Shapes shapes;
  std::size_t i = 0;
  const auto skipSpace = [&] { while (i < json.size() && std::isspace(static_cast<unsigned char>(json[i]))) ++i; };
  skipSpace();
  if (i >= json.size() || json[i] != '[') return std::nullopt;
  ++i;
  for (;;) {
    skipSpace();
    if (i >= json.size()) return std::nullopt;
    if (json[i] == ']') return shapes;
    if (json[i] == ',') { ++i; continue; }
    std::vector<std::int64_t>& shape = shapes.emplace_back();
    if (json[i] != '[') {
      // A scalar or string argument: no shape. Skip to the next top-level comma.
      bool in_string = false;
      for (; i < json.size() && (in_string || (json[i] != ',' && json[i] != ']')); ++i) {
        if (json[i] == '"' && (i == 0 || json[i - 1] != '\\')) in_string = !in_string;
      }
      continue;
    }
    ++i;
    for (;;) {
      skipSpace();
      if (i >= json.size()) return std::nullopt;
      if (json[i] == ']') { ++i; break; }
      if (json[i] == ',') { ++i; continue; }
      std::int64_t value = 0;
      const auto [end, ec] = std::from_chars(json.data() + i, json.data() + json.size(), value);
      if (ec != std::errc()) return std::nullopt;  // nested lists (TensorList) are not shapes
      shape.push_back(value);
      i = static_cast<std::size_t>(end - json.data());
    }
  }
}

bool isTensorCoreEligibleOp(std::string_view op_name) {
  const std::string_view op = baseName(op_name);
  static constexpr std::array<std::string_view, 14> kExact = {
      "mm", "addmm", "bmm", "baddbmm", "matmul", "linear", "addbmm", "einsum", "_scaled_mm",
      "scaled_dot_product_attention", "_scaled_dot_product_flash_attention",
      "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention", "multi_head_attention_forward"};
  for (std::string_view name : kExact) {
    if (op == name) return true;
  }
  // conv1d/2d/3d, convolution, _convolution, cudnn_convolution, conv_transpose2d, and the
  // autograd backward nodes of all of them (MmBackward0, AddmmBackward0, ConvolutionBackward0).
  return startsWith(op, "conv") || startsWith(op, "_conv") || startsWith(op, "cudnn_conv") ||
         startsWith(op, "MmBackward") || startsWith(op, "AddmmBackward") || startsWith(op, "BmmBackward") ||
         startsWith(op, "ConvolutionBackward") || startsWith(op, "CudnnConvolutionBackward");
}

std::optional<LeadingDims> leadingDims(const std::vector<std::int64_t>* a_strides,
                                       const std::vector<std::int64_t>* b_strides, bool b_as_transpose) {
  if (!a_strides || !b_strides || a_strides->size() < 2 || b_strides->size() < 2) return std::nullopt;
  LeadingDims leading;
  leading.n = true;  // the result's rows
  // A (M x K): rows of K elements, or, column-major, columns of M.
  if (columnMajor(*a_strides)) leading.m = true;
  else leading.k = true;
  // B (K x N): rows of N, or, column-major, columns of K. Given as its transpose (N x K), a
  // row-major transpose is a column-major B.
  if (columnMajor(*b_strides) != b_as_transpose) leading.k = true;
  else leading.n = true;
  return leading;
}

std::optional<LeadingDims> leadingDimsOfInputs(const Shapes& shapes, const Shapes* strides, std::size_t a,
                                               std::size_t b, bool b_as_transpose) {
  const auto recorded = [&](std::size_t i) -> const std::vector<std::int64_t>* {
    if (!strides || i >= strides->size() || i >= shapes.size() || (*strides)[i].size() != shapes[i].size()) return nullptr;
    return &(*strides)[i];
  };
  return leadingDims(recorded(a), recorded(b), b_as_transpose);
}

std::optional<GemmDims> gemmDims(std::string_view op_name, const Shapes& shapes, const Shapes* strides) {
  const std::string_view op = baseName(op_name);
  const auto arg = [&](std::size_t i) -> const std::vector<std::int64_t>* {
    return i < shapes.size() && !shapes[i].empty() ? &shapes[i] : nullptr;
  };
  const auto withLeading = [&](std::optional<GemmDims> d, std::size_t a, std::size_t b, bool b_as_transpose) {
    if (d) d->leading = leadingDimsOfInputs(shapes, strides, a, b, b_as_transpose);
    return d;
  };
  if (op == "mm" || op == "bmm" || op == "matmul") {
    if (!arg(0) || !arg(1)) return std::nullopt;
    auto d = matrixProduct(*arg(0), *arg(1));
    // matmul of a batch of matrices by one matrix folds the batch into M, as linear does.
    if (d && op == "matmul" && arg(1)->size() == 2) {
      d->m *= d->batch;
      d->batch = 1;
    }
    return withLeading(d, 0, 1, false);
  }
  if (op == "addmm" || op == "baddbmm" || op == "addbmm") {
    if (!arg(1) || !arg(2)) return std::nullopt;
    return withLeading(matrixProduct(*arg(1), *arg(2)), 1, 2, false);
  }
  if (op == "linear") {
    // input [..., K], weight [N, K]
    if (!arg(0) || !arg(1) || arg(1)->size() != 2) return std::nullopt;
    GemmDims d;
    d.k = arg(0)->back();
    d.m = product(*arg(0), 0, arg(0)->size() - 1);
    d.n = (*arg(1))[0];
    return withLeading(d, 0, 1, true);
  }
  if (startsWith(op, "conv") || startsWith(op, "_conv") || startsWith(op, "cudnn_conv")) {
    // input [N, C, spatial...], weight [K, C/groups, filter...]: implicit GEMM of
    // M = N x output positions, N = K output channels, K = C/groups x filter size. The output
    // positions depend on the stride and padding, which the shapes do not hold: M is 0 (unknown)
    // here, and op_work.h computes it from the arguments or the trace around the call.
    if (!arg(0) || !arg(1) || arg(0)->size() < 3 || arg(1)->size() != arg(0)->size()) return std::nullopt;
    const std::vector<std::int64_t>& input = *arg(0);
    const std::vector<std::int64_t>& weight = *arg(1);
    GemmDims d;
    d.convolution = true;
    d.m = 0;
    d.n = weight[0];
    d.k = product(weight, 1, weight.size());
    d.input_channels = input[1];
    return d;
  }
  return std::nullopt;
}

int requiredMultiple(MathPrecision precision) {
  switch (precision) {
    case MathPrecision::kTf32: return 4;
    case MathPrecision::kInt8:
    case MathPrecision::kFp8: return 16;
    case MathPrecision::kFp4: return 32;
    case MathPrecision::kFp64: return 2;
    default: return 8;
  }
}

std::vector<DimensionFinding> misalignedDimensions(const GemmDims& dims, int multiple) {
  std::vector<DimensionFinding> out;
  const auto check = [&](const char* name, std::int64_t value) {
    if (value <= 0 || value % multiple == 0) return;
    out.push_back({name, value, (value + multiple - 1) / multiple * multiple});
  };
  if (dims.convolution) {
    // For convolutions the channel counts decide the Tensor Core kernels' alignment.
    check("input channels", dims.input_channels);
    check("output channels", dims.n);
  } else {
    // Where the layout is known only the leading dimensions count; else any of the three may.
    const LeadingDims leading = dims.leading.value_or(LeadingDims{true, true, true});
    if (leading.m) check("M", dims.m);
    if (leading.n) check("N", dims.n);
    if (leading.k) check("K", dims.k);
  }
  return out;
}

double gemmFlops(const GemmDims& dims) {
  return 2.0 * static_cast<double>(std::max<std::int64_t>(1, dims.batch)) * static_cast<double>(dims.m) *
         static_cast<double>(dims.n) * static_cast<double>(dims.k);
}

GemmDims paddedDims(GemmDims dims, const std::vector<DimensionFinding>& misaligned) {
  for (const DimensionFinding& f : misaligned) {
    if (f.dimension == "M") dims.m = f.padded;
    else if (f.dimension == "N" || f.dimension == "output channels") dims.n = f.padded;
    else if (f.dimension == "K") dims.k = f.padded;
    else if (f.dimension == "input channels" && dims.input_channels > 0) {
      dims.k = dims.k / dims.input_channels * f.padded;
      dims.input_channels = f.padded;
    }
  }
  return dims;
}

}  // namespace ampscope::analyzer
