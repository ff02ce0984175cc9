#pragma once
// What a roofline of the per-op model shows, chosen once so that every view (report.html, the
// GUI's Roofline tab) draws the same chart: the op call shapes it places, the memory roof, and
// the flat roofs. A roof is drawn for each precision a placed op ran in, and for the precisions
// the projections would move the placed matrix math to: FP16/BF16 Tensor Cores (AMP) where no
// placed op runs in half precision yet, TF32 Tensor Cores (allow_tf32) where FP32 matrix math
// ran on the CUDA cores of a GPU that has them. Precisions that share a peak share a roof.
// docs/performance_model.md, "The roofline".

#include <cstdint>
#include <vector>

#include "analyzer/core/tensor_core_verdict.h"
#include "analyzer/model/op_performance.h"

namespace ampscope::analyzer {

// Why a roof is drawn.
enum class RoofSource : std::uint8_t {
  kRan,   // a placed op ran at this peak
  kAmp,   // where AMP would take the eligible math (no placed op runs in FP16/BF16)
  kTf32,  // where allow_tf32 would take FP32 matrix math now on CUDA cores
};

struct RooflineRoof {
  double tflops = 0;                      // the device's dense peak
  std::vector<MathPrecision> precisions;  // that run at this peak, in MathPrecision order
  RoofSource source = RoofSource::kRan;   // kRan where any of them ran
};

struct Roofline {
  double memory_gbs = 0;                // the slope: the device's DRAM bandwidth
  std::vector<RooflineRoof> roofs;      // lowest peak first
  std::vector<MathPrecision> ran_in;    // the placed ops' precisions, in MathPrecision order
};

// An op call shape has a place on the roofline: its achieved rate and its arithmetic intensity
// are known and positive.
bool onRoofline(const OpRow& row);

// The roofline of a run's ops on the device they were measured against. No roofs and no placed
// precisions without a device or on a CPU run (host ops have no GPU rate), nor where no op is placed.
Roofline rooflineOf(const OpPerformance& ops, bool recorded_on_cpu);

}  // namespace ampscope::analyzer
