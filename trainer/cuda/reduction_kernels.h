#pragma once
// Launchers of the reductions (reduction_kernels.cu): the bias gradient (FP32 sums per block)
// and the gradient histogram (counts in device memory the caller copies back).

#include <cuda_runtime_api.h>

#include <cstdint>

#include "trainer/backend/backend.h"
#include "trainer/cuda/device_view.h"
#include "trainer/numerics/step_state.h"

namespace ampscope::trainer::cuda {

// dbias[c] = sum of dy[o, c, i] over dy viewed as [outer, channels, inner]; one block per channel.
void launchBiasGradient(ReadView dy, WriteView dbias, std::int64_t outer, std::int64_t channels, std::int64_t inner,
                        cudaStream_t stream);

// Adds the histogram of gradient to counters laid out as kHistogramCounters values: the bins,
// then zeros, non-finite values and values that underflow FP16 at the scale in state.scaler (read
// on the device). The caller zeroes the counters first.
inline constexpr int kHistogramZerosAt = kHistogramBins;
inline constexpr int kHistogramNonFiniteAt = kHistogramBins + 1;
inline constexpr int kHistogramUnderflowAt = kHistogramBins + 2;
inline constexpr int kHistogramCounters = kHistogramBins + 3;
void launchGradientHistogram(ReadView gradient, std::int64_t count, StepStateView state, unsigned long long* counters,
                             cudaStream_t stream);

}  // namespace ampscope::trainer::cuda
