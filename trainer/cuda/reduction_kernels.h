#pragma once
// Launchers of the reductions and gradient checks (reduction_kernels.cu). Sums accumulate in
// FP32 per thread; results land in device memory the caller copies back.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "trainer/backend/backend.h"
#include "trainer/cuda/device_view.h"

namespace ampscope::trainer::cuda {

// dbias[c] = sum of dy[o, c, i] over dy viewed as [outer, channels, inner]; one block per channel.
void launchBiasGradient(ReadView dy, WriteView dbias, std::int64_t outer, std::int64_t channels, std::int64_t inner,
                        cudaStream_t stream);

// g *= inv_scale in place; sets *found_non_finite to 1 when a value was Inf or NaN before scaling
// (the caller zeroes the flag once for all gradients of a step).
void launchUnscaleAndCheck(WriteView gradient, std::int64_t count, float inv_scale, int* found_non_finite,
                           cudaStream_t stream);

// sum of x^2 into *result: per-block FP32 partials, then one block adds them in FP64. partials
// must hold kSquaredNormPartials floats.
inline constexpr int kSquaredNormPartials = 1024;
void launchSquaredNorm(ReadView x, std::int64_t count, float* partials, double* result, cudaStream_t stream);

// Adds the histogram of gradient to counters laid out as kHistogramCounters values: the bins,
// then zeros, non-finite values and values that underflow FP16 at `scale`. The caller zeroes the
// counters first.
inline constexpr int kHistogramZerosAt = kHistogramBins;
inline constexpr int kHistogramNonFiniteAt = kHistogramBins + 1;
inline constexpr int kHistogramUnderflowAt = kHistogramBins + 2;
inline constexpr int kHistogramCounters = kHistogramBins + 3;
void launchGradientHistogram(ReadView gradient, std::int64_t count, float scale, unsigned long long* counters,
                             cudaStream_t stream);

}  // namespace ampscope::trainer::cuda
