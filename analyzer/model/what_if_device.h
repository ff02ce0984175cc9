#pragma once
// What the run's ops would take on a GPU it did not run on: a CPU run of the trainer (whose ops
// carry their shapes), or a trace from another GPU, projected with --gpu NAME. Each op whose work
// is known gets a predicted time on that device in FP32, TF32 (where the device has it) and AMP
// (FP16/BF16), and AMP with its dimensions padded to the multiple of 8; the step sums the ops (the
// layer table apportions them to layers). These are model estimates (op_time_model.h), never measurements, and
// cover GPU work only: the host's time, data loading and launch gaps are not in them.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/core/device_table.h"
#include "analyzer/core/gemm_shapes.h"
#include "analyzer/correlate/iterations.h"
#include "analyzer/model/op_performance.h"

namespace ampscope::analyzer {

struct WhatIfOp {
  std::size_t row = 0;  // into OpPerformance::rows
  // Per step (every call of the op in one step), in ns; nullopt where the work is unknown.
  std::optional<double> fp32_ns;
  std::optional<double> tf32_ns;
  std::optional<double> amp_ns;
  std::optional<double> amp_padded_ns;  // AMP with the misaligned dimensions padded (matrix ops off the multiple)
  double amp_tile_waste = 0;            // share of the AMP kernel's tile work that is padding
  std::vector<DimensionFinding> misaligned;  // for FP16/BF16 (multiple of 8)
};

struct WhatIfProjection {
  DeviceChoice device;  // nullptr spec: no what-if (none asked for, or the name is unknown)
  bool default_device = false;  // chosen because a CPU run named none
  std::vector<WhatIfOp> ops;      // ops with known work, in OpPerformance order
  std::vector<std::int32_t> op_of_row;  // per OpPerformance row: its entry in ops, -1 for none
  double step_fp32_ns = 0;  // per step: the sums over ops
  double step_tf32_ns = 0;
  double step_amp_ns = 0;
  double known_share = 0;   // of the recorded op time whose work is known
  std::string note;         // what the estimates are and what they leave out

  // FP32 over AMP (or TF32) per step on the device; nullopt without estimates.
  std::optional<double> ampSpeedup() const {
    return step_amp_ns > 0 ? std::optional<double>(step_fp32_ns / step_amp_ns) : std::nullopt;
  }
  std::optional<double> tf32Speedup() const {
    return step_tf32_ns > 0 ? std::optional<double>(step_fp32_ns / step_tf32_ns) : std::nullopt;
  }
};

// The device a CPU run is projected on when --gpu names none.
inline constexpr const char* kDefaultWhatIfGpu = "H100 SXM";

// `target`: the device to project on; `steps`: how many steps the ops' calls cover (>= 1).
WhatIfProjection projectOnDevice(const OpPerformance& ops, const DeviceChoice& target, double steps, bool default_device);

}  // namespace ampscope::analyzer
