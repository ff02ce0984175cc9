#pragma once
// A hook that a long run of stages (an import, an analysis) calls as each ends, with the stage's
// name: benchmarks time the stages with it (bench/import_bench.cpp --stages) without a build of
// their own. Stages that run side by side call it from their own threads, at once: a callback
// must be safe to call from several threads. Empty: nothing is called.

#include <functional>
#include <string_view>

namespace ampscope {

using StageCallback = std::function<void(std::string_view stage)>;

inline void stageDone(const StageCallback& callback, std::string_view stage) {
  if (callback) callback(stage);
}

}  // namespace ampscope
