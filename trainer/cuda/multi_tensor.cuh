#pragma once
// The machinery of the multi-tensor ops (for .cu files only): an op over many tensors runs as the
// launches planMultiTensor (trainer/numerics/multi_tensor.h) cuts it into, each launch carrying its
// tensor list (pointers, dtypes, element counts) and its chunk table in one kernel argument, one
// block per chunk of kMultiTensorChunk elements. A step's end thus launches a few kernels however
// many parameter tensors the model has, and never copies a list to the device first.

#include <cuda_runtime.h>

#include <cstdint>
#include <span>
#include <vector>

#include "trainer/cuda/cuda_check.h"
#include "trainer/cuda/device_view.h"
#include "trainer/cuda/kernels.h"
#include "trainer/numerics/multi_tensor.h"

namespace ampscope::trainer::cuda {

// One launch's tensors and chunks, passed by value as the kernel's argument (kernel arguments are
// limited to 4 KB on the oldest architectures we build for; see the static_assert below).
template <int kDepth>
struct MultiTensorList {
  void* data[kDepth][kMultiTensorMaxTensors];
  std::int64_t count[kMultiTensorMaxTensors];
  // Where the tensor's chunk 0 lies among all the op's chunks, and the tensor's place among the
  // op's non-empty tensors: what a reduction over the whole op needs to order its partial sums.
  std::int32_t first_slot[kMultiTensorMaxTensors];
  std::int32_t ordinal[kMultiTensorMaxTensors];
  std::uint8_t dtype[kDepth][kMultiTensorMaxTensors];  // DType, in a byte to keep the argument small
  // Block b works on chunk chunk[b] of listed tensor tensor[b].
  std::int32_t chunk[kMultiTensorMaxChunks];
  std::uint8_t tensor[kMultiTensorMaxChunks];
};

// The largest list (AdamW's five operands) plus room for an op's settings and state pointers.
static_assert(sizeof(MultiTensorList<5>) + 256 <= 4096, "a multi-tensor launch's argument must stay under 4 KB");
static_assert(kMultiTensorMaxTensors <= 255, "listed tensors are indexed by a byte");

template <int kDepth>
__device__ __forceinline__ WriteView operandOf(const MultiTensorList<kDepth>& list, int operand, int listed) {
  return {list.data[operand][listed], static_cast<DType>(list.dtype[operand][listed])};
}

// What a block of a multi-tensor launch is given: its tensor (in the list), chunk and elements.
struct ChunkRange {
  int listed = 0;
  std::int32_t chunk = 0;
  std::int64_t begin = 0;  // first element of the chunk in its tensor
  std::int64_t end = 0;    // one past its last
};

// Op is a copyable struct with `__device__ void operator()(const MultiTensorList<kDepth>&,
// const ChunkRange&) const`, run by every thread of the block.
template <int kDepth, typename Op>
__global__ void __launch_bounds__(kThreadsPerBlock) multiTensorKernel(MultiTensorList<kDepth> list, Op op) {
  ChunkRange range;
  range.listed = list.tensor[blockIdx.x];
  range.chunk = list.chunk[blockIdx.x];
  range.begin = static_cast<std::int64_t>(range.chunk) * kMultiTensorChunk;
  const std::int64_t end = range.begin + kMultiTensorChunk;
  range.end = end < list.count[range.listed] ? end : list.count[range.listed];
  op(list, range);
}

// Launches op over every tensor by the plan: exactly planMultiTensor(counts).size() launches, the
// figure the counting decorator (trainer/backend/backend_decorator.cpp) assumes. Tensors of no
// elements are in no launch.
template <int kDepth, typename Op>
void launchMultiTensor(std::span<const TensorGroup<kDepth>> tensors, const Op& op, cudaStream_t stream) {
  std::vector<std::int64_t> counts;
  counts.reserve(tensors.size());
  for (const TensorGroup<kDepth>& t : tensors) counts.push_back(t.count);
  // Op-wide chunk slots and non-empty ordinals, in tensor order.
  std::vector<std::int32_t> first_slot(tensors.size(), 0);
  std::vector<std::int32_t> ordinal(tensors.size(), 0);
  std::int64_t slot = 0;
  std::int32_t non_empty = 0;
  for (std::size_t t = 0; t < tensors.size(); ++t) {
    first_slot[t] = static_cast<std::int32_t>(slot);
    ordinal[t] = non_empty;
    const std::int64_t chunks = (counts[t] + kMultiTensorChunk - 1) / kMultiTensorChunk;
    slot += chunks;
    non_empty += chunks > 0 ? 1 : 0;
  }

  for (const MultiTensorLaunch& launch : planMultiTensor(counts)) {
    MultiTensorList<kDepth> list{};
    for (std::size_t i = 0; i < launch.tensors.size(); ++i) {
      const auto t = static_cast<std::size_t>(launch.tensors[i]);
      const TensorGroup<kDepth>& group = tensors[t];
      for (int d = 0; d < kDepth; ++d) {
        list.data[d][i] = group.operands[static_cast<std::size_t>(d)].data;
        list.dtype[d][i] = static_cast<std::uint8_t>(group.operands[static_cast<std::size_t>(d)].dtype);
      }
      list.count[i] = group.count;
      list.first_slot[i] = first_slot[t];
      list.ordinal[i] = ordinal[t];
    }
    for (std::size_t b = 0; b < launch.chunks.size(); ++b) {
      list.tensor[b] = static_cast<std::uint8_t>(launch.chunks[b].tensor);
      list.chunk[b] = launch.chunks[b].chunk;
    }
    multiTensorKernel<kDepth, Op>
        <<<static_cast<unsigned int>(launch.chunks.size()), kThreadsPerBlock, 0, stream>>>(list, op);
    AMPSCOPE_CUDA_CHECK(cudaGetLastError());
  }
}

}  // namespace ampscope::trainer::cuda
