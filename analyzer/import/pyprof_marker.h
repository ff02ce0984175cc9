#pragma once
// NVIDIA PyProf's NVTX marker texts, as found in nvprof profiles of PyTorch programs:
//   {'mod': 'torch.nn.functional', 'op': 'linear', 'args': [{'name': '', 'type': 'tensor',
//    'shape': (35, 20, 200), 'dtype': 'float32'}, ...]}        an operator call (Python dict)
//   {'traceMarker': ['train.py:314', ...]}                      the Python call stack
//   linear, seq = 120                                           autograd's sequence marker
// Anything else is plain text.

#include <cstdint>
#include <string>
#include <string_view>

namespace ampscope::analyzer::import {

struct PyProfMarker {
  enum class Kind { kOperator, kSequence, kTraceMarker, kText };
  Kind kind = Kind::kText;
  std::string module;       // 'mod'
  std::string op;           // 'op', or the name before ", seq = "
  std::string shapes_json;  // tensor argument shapes, e.g. [[35,20],[33278,200]]
  std::string dtypes_json;  // their dtypes, e.g. ["int64","float32"]
  std::int64_t sequence_number = -1;
  std::string innermost_frame;  // last entry of a traceMarker stack
};

PyProfMarker parsePyProfMarker(std::string_view text);

}  // namespace ampscope::analyzer::import
