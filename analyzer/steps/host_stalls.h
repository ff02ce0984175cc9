#pragma once
// Signs that the host or the batch holds the GPU back: host threads blocked in synchronising CUDA
// calls (cudaMemcpy, cudaDeviceSynchronize, cudaStreamSynchronize, ...) and matrix kernels too
// small to fill the GPU. (The loss scaler's health is amp_numerics.h's.)

#include <cstdint>
#include <string_view>
#include <vector>

#include "analyzer/correlate/iterations.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

struct HostStalls {
  // Means over steady iterations.
  std::int64_t sync_ns_per_iteration = 0;      // host time inside synchronising API calls
  double sync_calls_per_iteration = 0.0;
  // Matrix kernels (launched by Tensor-Core-eligible ops): mean thread blocks per kernel against
  // the device's SM count; below one wave the GPU is partly idle whatever the precision.
  double matrix_blocks_per_sm = 0.0;
  std::uint64_t matrix_kernels = 0;
};

// Runtime calls that block the calling thread until the GPU catches up.
bool isSynchronizingCall(std::string_view name);

// Per launch call (aligned with Trace::launches): 1 when the call waits for the GPU: a
// synchronising call by name, or an asynchronous copy to or from pageable host memory, which CUDA
// performs synchronously (a pageable host-to-device copy first synchronises its stream; a
// device-to-pageable copy returns once it is done). Expects a correlated trace.
std::vector<std::uint8_t> hostBlockingCalls(const trace::Trace& trace);

HostStalls measureHostStalls(const trace::Trace& trace, const IterationSummary& iterations);

}  // namespace ampscope::analyzer
