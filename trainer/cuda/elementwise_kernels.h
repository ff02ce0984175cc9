#pragma once
// Launchers of the element-wise kernels (elementwise_kernels.cu). Each queues its kernel on
// `stream` and checks the launch; none waits.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "trainer/backend/backend.h"
#include "trainer/cuda/device_view.h"

namespace ampscope::trainer::cuda {

void launchConvert(ReadView src, WriteView dst, std::int64_t count, cudaStream_t stream);
void launchFill(WriteView dst, std::int64_t count, float value, cudaStream_t stream);
void launchScale(WriteView x, std::int64_t count, float factor, cudaStream_t stream);
// y[o, c, i] += bias[c] for y viewed as [outer, channels, inner].
void launchAddBias(WriteView y, ReadView bias, std::int64_t count, std::int64_t channels, std::int64_t inner,
                   cudaStream_t stream);
void launchActivationForward(Activation kind, ReadView x, WriteView y, std::int64_t count, cudaStream_t stream);
void launchActivationBackward(Activation kind, ReadView x, ReadView dy, WriteView dx, std::int64_t count,
                              cudaStream_t stream);

// Whether this build holds code the current device can run: cudaSuccess, or the error (for
// example cudaErrorNoKernelImageForDevice) that every launch would fail with.
cudaError_t probeKernelImage();

}  // namespace ampscope::trainer::cuda
