#pragma once
// The NVTX text PyTorch writes for each operator under torch.autograd.profiler.emit_nvtx (what
// Nsight Systems and nvprof users have). The op's name comes first; PyTorch appends, in this
// order and each only when it has it:
//   ", seq = N"            the autograd sequence number (forward ops and their backward nodes)
//   ", op_id = N"          the record-function id (PyTorch 2.x)
//   ", sizes = [[a, b], ...]"  the input shapes, when record_shapes was on
//   ", input_op_ids = [(id, output), ...]"  the op ids that produced the inputs
// e.g. "aten::mm, op_id = 318133", "aten::addmm, seq = 12", "MmBackward0, seq = 5, op_id = 90",
// "aten::linear, seq = 3, op_id = 11, sizes = [[64, 784], [100, 784], [100]]".

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ampscope::analyzer::import {

struct TorchNvtxText {
  // "aten::mm", "autograd::engine::evaluate_function: MmBackward0": the start of the text parsed,
  // valid while it is.
  std::string_view op;
  std::int64_t sequence_number = -1;  // -1 when absent
  std::int64_t op_id = -1;            // -1 when absent
  std::string shapes_json;            // "[[64,784],[100,784],[100]]"; empty when absent
};

// nullopt when the text carries none of the fields above (or a field is malformed): it is then
// not PyTorch's operator text, or not one ampscope can vouch for.
std::optional<TorchNvtxText> parseTorchNvtxText(std::string_view text);

}  // namespace ampscope::analyzer::import
