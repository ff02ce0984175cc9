#pragma once
// The per-op model's figures summed for a row of a table that groups kernels (a layer and pass,
// a kernel name): layer_performance.h fills them.

#include <cstdint>
#include <optional>

#include "analyzer/model/op_time_model.h"

namespace ampscope::analyzer {

// The per-op model's figures for one row of a table that groups kernels.
struct RowPerformance {
  double flops = 0;                   // all calls, of its ops whose FLOPs are known and physical
  double bytes = 0;
  double work_known_share = 0;        // of its time, the ops whose FLOPs or bytes are known
  std::optional<double> achieved_tflops;  // its FLOPs over the time of the ops that did them
  double peak_tflops = 0;             // in its precision on the recorded device; 0 unknown
  RooflineBound bound = RooflineBound::kUnknown;
  std::optional<std::int64_t> predicted_amp_ns;  // all calls, on the recorded device

  bool operator==(const RowPerformance&) const = default;
};

}  // namespace ampscope::analyzer
