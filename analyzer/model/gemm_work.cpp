// The work of GEMMs: mm, addmm, linear, matmul with broadcasting, bmm, baddbmm, addbmm and the
// integer and scaled mm. Formulas, assumptions and sources: docs/performance_model.md, "Work per
// op", "GEMMs". Argument positions follow the ops' schemas in PyTorch's aten/src/ATen/native/
// native_functions.yaml.

#include "analyzer/model/op_work_call.h"

namespace ampscope::analyzer::op_work {

namespace {

// Bytes of c10::ScalarType by its number, as Concrete Inputs writes a dtype argument ("15").
int scalarTypeBytes(std::int64_t code) {
  switch (code) {
    case 0: case 1: case 11: case 12: case 13: case 23: case 24: case 25: case 26: return 1;
    case 2: case 5: case 15: return 2;
    case 3: case 6: case 8: case 14: return 4;
    case 4: case 7: case 9: return 8;
    case 10: return 16;
    default: return 0;
  }
}

OpWork matrixWork(const Call& c, double batch, std::int64_t m, std::int64_t n, std::int64_t k, double extra_flops,
                  double output_elements, int output_bytes) {
  OpWork work;
  work.matrix = true;
  work.basis = WorkBasis::kShapes;
  work.flops = 2.0 * batch * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) + extra_flops;
  work.gemm = GemmDims{m, n, k, static_cast<std::int64_t>(batch), false, 0, std::nullopt};
  ByteCount bytes = c.inputBytes();
  bytes.add(output_elements, output_bytes);
  finishBytes(work, bytes);
  return work;
}

// The GEMM's leading dimensions, from the strides of its operands a and b where recorded.
OpWork withLayout(OpWork work, const Call& c, std::size_t a, std::size_t b, bool b_as_transpose) {
  if (work.gemm) work.gemm->leading = leadingDimsOfInputs(c.shapes, c.op.strides, a, b, b_as_transpose);
  return work;
}

// torch.matmul's rules: 1-D operands gain a unit dimension that the result drops, batch
// dimensions broadcast, and a batch of matrices times one matrix folds the batch into M (one GEMM).
OpWork matmulWork(const Call& c, const Dims& a, const Dims& b) {
  const std::int64_t m = a.size() >= 2 ? a[a.size() - 2] : 1;
  const std::int64_t k = a.back();
  const std::int64_t kb = b.size() >= 2 ? b[b.size() - 2] : b.back();
  const std::int64_t n = b.size() >= 2 ? b.back() : 1;
  if (k != kb) return unknownMatrixWork("matmul: inner dimensions differ");
  const std::size_t a_batch = a.size() > 2 ? a.size() - 2 : 0;
  const std::size_t b_batch = b.size() > 2 ? b.size() - 2 : 0;
  double batch = 1;
  for (std::size_t i = 0; i < std::max(a_batch, b_batch); ++i) {
    const std::int64_t x = i < a_batch ? a[a_batch - 1 - i] : 1;
    const std::int64_t y = i < b_batch ? b[b_batch - 1 - i] : 1;
    if (x != y && x != 1 && y != 1) return unknownMatrixWork("matmul: batch dimensions do not broadcast");
    batch *= static_cast<double>(std::max(x, y));
  }
  OpWork work = matrixWork(c, batch, m, n, k, 0, batch * static_cast<double>(m * n), c.elementBytes(0));
  if (b_batch == 0 && a_batch > 0) *work.gemm = GemmDims{static_cast<std::int64_t>(batch) * m, n, k, 1, false, 0, std::nullopt};
  return work;
}

}  // namespace

bool isGemmOp(std::string_view op) {
  static constexpr std::string_view kGemms[] = {
      "mm", "_int_mm", "_scaled_mm", "addmm", "_addmm_activation", "bmm", "baddbmm", "addbmm", "linear", "matmul"};
  return isOneOf(op, kGemms);
}

OpWork gemmWork(const Call& c) {
  const std::string_view op = c.name;
  const auto need = [&](std::size_t i, std::size_t rank) { return c.shape(i) && c.shape(i)->size() == rank; };
  const std::string shapes_note = std::string(op) + ": the matrix shapes are not recorded";
  if (op == "mm" || op == "_int_mm" || op == "_scaled_mm") {
    if (!need(0, 2) || !need(1, 2)) return unknownMatrixWork(shapes_note);
    const Dims& a = *c.shape(0);
    const Dims& b = *c.shape(1);
    int out_bytes = c.elementBytes(0);
    if (op == "_int_mm") out_bytes = 4;  // int8 x int8 -> int32
    if (op == "_scaled_mm") {
      // out_dtype (argument 6) where given; the result takes the inputs' dtype otherwise.
      if (const auto code = c.arg(6).integer(); code && scalarTypeBytes(*code) > 0) out_bytes = scalarTypeBytes(*code);
    }
    return withLayout(matrixWork(c, 1, a[0], b[1], a[1], 0, static_cast<double>(a[0] * b[1]), out_bytes), c, 0, 1, false);
  }
  if (op == "addmm" || op == "_addmm_activation") {
    if (!need(1, 2) || !need(2, 2)) return unknownMatrixWork(shapes_note);
    const Dims& a = *c.shape(1);
    const Dims& b = *c.shape(2);
    const double mn = static_cast<double>(a[0] * b[1]);
    return withLayout(matrixWork(c, 1, a[0], b[1], a[1], mn, mn, c.elementBytes(1)), c, 1, 2, false);
  }
  if (op == "bmm" || op == "baddbmm" || op == "addbmm") {
    const std::size_t first = op == "bmm" ? 0 : 1;
    if (!need(first, 3) || !need(first + 1, 3)) return unknownMatrixWork(shapes_note);
    const Dims& a = *c.shape(first);
    const Dims& b = *c.shape(first + 1);
    const double batch = static_cast<double>(a[0]);
    const double mn = static_cast<double>(a[1] * b[2]);
    // baddbmm adds C to each product; addbmm sums the products into one M x N matrix.
    const double extra = op == "bmm" ? 0 : batch * mn;
    return withLayout(matrixWork(c, batch, a[1], b[2], a[2], extra, op == "addbmm" ? mn : batch * mn, c.elementBytes(first)),
                      c, first, first + 1, false);
  }
  if (op == "linear") {
    // input [..., K], weight [N, K], bias [N]
    if (!c.shape(0) || !need(1, 2)) return unknownMatrixWork(shapes_note);
    const Dims& x = *c.shape(0);
    const Dims& w = *c.shape(1);
    const auto m = static_cast<std::int64_t>(numel(Dims(x.begin(), x.end() - 1)));
    const double mn = static_cast<double>(m) * static_cast<double>(w[0]);
    return withLayout(matrixWork(c, 1, m, w[0], w[1], c.shape(2) ? mn : 0, mn, c.elementBytes(0)), c, 0, 1, true);
  }
  // matmul
  if (!c.shape(0) || !c.shape(1)) return unknownMatrixWork(shapes_note);
  return withLayout(matmulWork(c, *c.shape(0), *c.shape(1)), c, 0, 1, false);
}

}  // namespace ampscope::analyzer::op_work
