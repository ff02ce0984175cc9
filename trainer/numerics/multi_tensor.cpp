#include "trainer/numerics/multi_tensor.h"

namespace ampscope::trainer {

std::vector<MultiTensorLaunch> planMultiTensor(std::span<const std::int64_t> element_counts) {
  std::vector<MultiTensorLaunch> launches;
  MultiTensorLaunch current;
  const auto flush = [&] {
    if (!current.chunks.empty()) launches.push_back(std::move(current));
    current = {};
  };
  for (std::size_t t = 0; t < element_counts.size(); ++t) {
    const std::int64_t chunks = (element_counts[t] + kMultiTensorChunk - 1) / kMultiTensorChunk;
    for (std::int64_t c = 0; c < chunks; ++c) {
      if (current.chunks.size() == kMultiTensorMaxChunks) flush();
      if (current.tensors.empty() || current.tensors.back() != static_cast<std::int32_t>(t)) {
        if (current.tensors.size() == kMultiTensorMaxTensors) flush();
        current.tensors.push_back(static_cast<std::int32_t>(t));
      }
      current.chunks.push_back({static_cast<std::int32_t>(current.tensors.size() - 1), static_cast<std::int32_t>(c)});
    }
  }
  flush();
  return launches;
}

}  // namespace ampscope::trainer
