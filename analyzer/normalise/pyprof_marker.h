#pragma once
// NVIDIA PyProf's NVTX marker texts, as found in nvprof profiles of PyTorch programs:
//   {'mod': 'torch.nn.functional', 'op': 'linear', 'args': [{'name': '', 'type': 'tensor',
//    'shape': (35, 20, 200), 'dtype': 'float32'}, ...]}        an operator call (Python dict)
//   {'traceMarker': ['train.py:314', ...], 'funcStack': '/Net::forward/Linear::forward'}
//                                                               the Python call stack
//   {'mod': 'Linear', 'strRepr': 'in_features=200, ...'}        an nn.Module's extra_repr()
// PyProf pushes them nested: call stack, then module (for modules), then operator. Autograd's
// "linear, seq = 120" markers are PyTorch's emit_nvtx text (torch_nvtx_text.h). Anything else
// is plain text.

#include <cstdint>
#include <string>
#include <string_view>

namespace ampscope::analyzer::import {

struct PyProfMarker {
  enum class Kind { kOperator, kTraceMarker, kModule, kText };
  Kind kind = Kind::kText;
  std::string module;       // 'mod'
  std::string op;           // 'op'
  std::string shapes_json;  // tensor argument shapes, e.g. [[35,20],[33278,200]]
  std::string dtypes_json;  // their dtypes, e.g. ["int64","float32"]
  // The positional arguments' values in the form of Kineto's "Concrete Inputs"
  // (trace::Range::arguments): "" for tensors and None, scalars as written, True/False, tuples
  // as "[2, 2]"; conv2d(x, w, b, (2, 2), (1, 1), (1, 1), 1) gives
  // ["","","","[2, 2]","[1, 1]","[1, 1]","1"]. PyProf spreads a list of tensors over one entry
  // per tensor, and so does this list.
  std::string arguments_json;
  std::string innermost_frame;  // last entry of a traceMarker stack
  std::string func_stack;       // 'funcStack': "/Net::forward/Linear::_call_impl/Linear::forward"
};

PyProfMarker parsePyProfMarker(std::string_view text);

}  // namespace ampscope::analyzer::import
