#pragma once
// How a multi-tensor op (one unscale over every gradient, one optimizer update over every
// parameter, in the style of apex's multi_tensor_apply) is cut into launches: each launch takes
// up to kMultiTensorMaxTensors tensors and kMultiTensorMaxChunks chunks of kMultiTensorChunk
// elements, one block per chunk; a tensor too big for what is left of a launch goes on in the
// next. The CUDA backend launches by this plan and the launch counts (train --json) come from it,
// so a step's launches stop growing with its number of parameter tensors.

#include <cstdint>
#include <span>
#include <vector>

namespace ampscope::trainer {

inline constexpr int kMultiTensorMaxTensors = 24;   // a launch's tensor list travels as a kernel argument
inline constexpr int kMultiTensorMaxChunks = 320;   // blocks of one launch
inline constexpr std::int64_t kMultiTensorChunk = 65536;

// One chunk of one tensor of a launch's list.
struct MultiTensorChunk {
  std::int32_t tensor = 0;   // index into the launch's tensors
  std::int32_t chunk = 0;    // chunk of that tensor, from 0
};

struct MultiTensorLaunch {
  std::vector<std::int32_t> tensors;      // indices into the op's tensors
  std::vector<MultiTensorChunk> chunks;   // one block each
};

// Tensors of no elements take no chunk and appear in no launch.
std::vector<MultiTensorLaunch> planMultiTensor(std::span<const std::int64_t> element_counts);

inline std::int64_t multiTensorLaunches(std::span<const std::int64_t> element_counts) {
  return static_cast<std::int64_t>(planMultiTensor(element_counts).size());
}

}  // namespace ampscope::trainer
