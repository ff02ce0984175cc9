#include "analyzer/model/op_time_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

namespace ampscope::analyzer {

namespace {

// An output tile a GEMM kernel computes per thread block, and how much of the SM's peak a block
// of that size sustains (smaller tiles reuse each operand load less).
struct Tile {
  std::int64_t m;
  std::int64_t n;
  double efficiency;
};

// Tensor Core kernels of cuBLAS/CUTLASS (sm70 to sm100) pick among tiles like these; SIMT SGEMM
// kernels among smaller ones (names such as "tilesize128x128x8", "64x256", "_128x64_").
constexpr std::array<Tile, 7> kTensorCoreTiles = {{
    {256, 128, 1.0}, {128, 256, 1.0}, {128, 128, 0.93}, {128, 64, 0.85}, {64, 128, 0.85}, {64, 64, 0.70}, {64, 32, 0.50}}};
// The 16-wide SIMT tiles stand for cuBLAS's GEMV-like kernels for skinny products (gemv2T,
// gemmSN), which stream the large operand once.
constexpr std::array<Tile, 7> kSimtTiles = {{{128, 128, 1.0}, {128, 64, 0.97}, {64, 128, 0.97}, {64, 64, 0.90},
                                             {32, 32, 0.60}, {16, 256, 0.80}, {256, 16, 0.80}}};
constexpr std::array<std::int64_t, 5> kSplitK = {1, 2, 4, 8, 16};

bool onTensorCores(MathPrecision precision) {
  return precision != MathPrecision::kFp32Simt && precision != MathPrecision::kFp32 &&
         precision != MathPrecision::kFp64 && precision != MathPrecision::kUnknown;
}

// The depth of K the pipeline of a block needs to fill and drain, in elements: the shorter the
// K a block walks, the more of its time goes to prologue and epilogue.
double kEfficiency(double k, bool tensor_cores) {
  const double fill = tensor_cores ? 64.0 : 16.0;
  return k / (k + fill);
}

// Operands off the precision's alignment make cuBLAS choose align1/align2 kernels, which load
// with narrower vectors. From Hopper on, the kernels that reach the Tensor Core peak load their
// tiles through TMA, which needs rows aligned to 16 bytes: misaligned operands fall back to the
// previous generation's mma.sync kernels, at about half the share of the peak those reach on an
// Ampere GPU (docs/performance_model.md: measured on an H100).
double alignmentEfficiency(const DeviceSpec& device, const GemmDims& dims, MathPrecision precision) {
  const int multiple = requiredMultiple(precision);
  const double without_tma = device.compute_major >= 9 ? 0.5 : 1.0;
  const auto factor = [&](std::int64_t value) {
    if (value <= 0) return 1.0;
    const std::int64_t alignment = std::gcd(value, static_cast<std::int64_t>(multiple));
    if (alignment >= multiple) return 1.0;
    if (alignment * 2 >= multiple) return 0.8 * without_tma;
    if (alignment * 4 >= multiple) return 0.6 * without_tma;
    return 0.4 * without_tma;
  };
  if (dims.convolution) return std::min(factor(dims.input_channels), factor(dims.n));
  // Only leading dimensions set the loads' alignment. Which ones they are depends on the
  // operands' layouts: where the trace records no strides (a backward GEMM transposes what its
  // forward did not), any of the three may force the narrow kernels, as NVIDIA's guide asks all of
  // them to be multiples.
  const LeadingDims leading = dims.leading.value_or(LeadingDims{true, true, true});
  return std::min({leading.m ? factor(dims.m) : 1.0, leading.n ? factor(dims.n) : 1.0, leading.k ? factor(dims.k) : 1.0});
}

double divUp(double a, double b) { return std::ceil(a / b); }

}  // namespace

const char* roofBoundName(RooflineBound bound) {
  switch (bound) {
    case RooflineBound::kCompute: return "compute";
    case RooflineBound::kMemory: return "memory";
    case RooflineBound::kLatency: return "latency";
    case RooflineBound::kUnknown: break;
  }
  return "unknown";
}

const TimeModelConstants& timeModelConstants() {
  static const TimeModelConstants constants;
  return constants;
}

std::optional<TimeEstimate> estimateMatrixTime(const DeviceSpec& device, MathPrecision precision,
                                               const GemmDims& dims, double flops, double bytes, int kernels) {
  const double peak = peakTflops(device, precision) * 1e12;
  if (peak <= 0 || device.sm_count <= 0 || dims.m <= 0 || dims.n <= 0 || dims.k <= 0) return std::nullopt;
  const TimeModelConstants& c = timeModelConstants();
  const bool tensor_cores = onTensorCores(precision);
  const double unit_efficiency = tensor_cores ? c.tensor_core_efficiency : c.simt_efficiency;
  const double alignment = tensor_cores ? alignmentEfficiency(device, dims, precision) : 1.0;
  const double per_sm = peak / device.sm_count;
  const double sms = device.sm_count;
  const double batch = static_cast<double>(std::max<std::int64_t>(1, dims.batch));
  const double bandwidth = device.memory_gbs * 1e9 * c.bandwidth_efficiency;
  const double useful = 2.0 * batch * static_cast<double>(dims.m) * static_cast<double>(dims.n) * static_cast<double>(dims.k);

  double best_ns = std::numeric_limits<double>::infinity();
  double best_waste = 0;
  const auto consider = [&](const Tile& tile) {
    // Blocks smaller than 128x128 share an SM: up to four resident at once.
    const double resident = std::clamp(128.0 * 128.0 / static_cast<double>(tile.m * tile.n), 1.0, 4.0);
    const double tiles = divUp(static_cast<double>(dims.m), static_cast<double>(tile.m)) *
                         divUp(static_cast<double>(dims.n), static_cast<double>(tile.n)) * batch;
    for (std::int64_t split : kSplitK) {
      const double depth = divUp(static_cast<double>(dims.k), static_cast<double>(split));
      if (split > 1 && depth < 128) break;
      const double blocks = tiles * static_cast<double>(split);
      // Blocks share an SM only when there are more of them than SMs.
      const double sharing = std::clamp(divUp(blocks, sms), 1.0, resident);
      const double waves = divUp(blocks, sms * sharing);
      const double block_ns = 2.0 * static_cast<double>(tile.m * tile.n) * depth /
                              (per_sm * unit_efficiency * tile.efficiency * kEfficiency(depth, tensor_cores) * alignment) * 1e9;
      // The blocks sharing an SM take turns at its math but wait for their loads side by side: a
      // wave lasts their math together, or one block's steps over K, whichever is longer. The
      // narrow loads of an align1/2/4 kernel take as many more instructions per step as they are
      // narrower, so its steps slow as its math does.
      const double k_tile = static_cast<double>(tensor_cores ? c.tensor_core_k_tile : c.simt_k_tile);
      double ns = waves * std::max(sharing * block_ns, divUp(depth, k_tile) * c.k_step_ns / alignment);
      // Split-K writes FP32 partial tiles and reduces them; they stay in L2, taken at three times
      // the DRAM bandwidth (where the device's is known). The reduction is a pass of its own after
      // the partial tiles: a second kernel (cuBLAS's splitKreduce_kernel, then among the call's
      // kernels) or, in one kernel, the last block of each tile waiting for the others' partials,
      // a fill and drain more.
      if (split > 1) {
        if (bandwidth > 0) {
          ns += 4.0 * 2.0 * static_cast<double>(split) * static_cast<double>(dims.m) * static_cast<double>(dims.n) *
                batch / (3.0 * bandwidth) * 1e9;
        }
        if (kernels == 1) ns += c.kernel_ramp_ns;
      }
      if (ns < best_ns) {
        best_ns = ns;
        const double computed = waves * sms * sharing * 2.0 * static_cast<double>(tile.m * tile.n) * depth;
        best_waste = computed > 0 ? std::max(0.0, 1.0 - useful / computed) : 0.0;
      }
    }
  };
  if (tensor_cores) {
    for (const Tile& tile : kTensorCoreTiles) consider(tile);
  } else {
    for (const Tile& tile : kSimtTiles) consider(tile);
  }
  // The tile model prices the GEMM's own FLOPs; work recorded beyond them (attention's softmax,
  // bias) runs at the same rate.
  const double scale = useful > 0 && flops > useful ? flops / useful : 1.0;
  TimeEstimate out;
  out.compute_ns = best_ns * scale;
  // Unknown bandwidth (a derived device whose trace records none): no memory roof, compute alone.
  out.memory_ns = bytes > 0 && bandwidth > 0 ? bytes / bandwidth * 1e9 : 0.0;
  out.tile_waste = best_waste;
  const double work_ns = std::max(out.compute_ns, out.memory_ns) + kernels * c.kernel_ramp_ns;
  const double floor_ns = kernels * c.kernel_floor_ns;
  out.ns = std::max(work_ns, floor_ns);
  out.efficiency = out.compute_ns > 0 ? flops / (out.compute_ns * 1e-9) / peak : 0.0;
  out.bound = floor_ns >= work_ns ? RooflineBound::kLatency
              : out.compute_ns >= out.memory_ns ? RooflineBound::kCompute : RooflineBound::kMemory;
  return out;
}

TimeEstimate estimateMemoryTime(const DeviceSpec& device, double bytes, int kernels) {
  const TimeModelConstants& c = timeModelConstants();
  TimeEstimate out;
  const double bandwidth = device.memory_gbs * 1e9 * c.bandwidth_efficiency;
  out.memory_ns = bandwidth > 0 ? bytes / bandwidth * 1e9 : 0.0;
  const double work_ns = out.memory_ns + kernels * c.kernel_ramp_ns;
  const double floor_ns = kernels * c.kernel_floor_ns;
  out.ns = std::max(work_ns, floor_ns);
  out.bound = floor_ns >= work_ns ? RooflineBound::kLatency : RooflineBound::kMemory;
  return out;
}

RooflineBound roofBound(const DeviceSpec& device, MathPrecision precision, double flops_per_byte) {
  const double peak = peakTflops(device, precision) * 1e12;
  const double bandwidth = device.memory_gbs * 1e9;
  if (peak <= 0 || bandwidth <= 0 || !(flops_per_byte > 0)) return RooflineBound::kUnknown;
  return flops_per_byte >= peak / bandwidth ? RooflineBound::kCompute : RooflineBound::kMemory;
}

}  // namespace ampscope::analyzer
