#pragma once
// --device auto|cpu|cuda: the backend a run uses, and what to tell the user about the choice.

#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "trainer/backend/backend.h"

namespace ampscope::trainer {

struct SelectedBackend {
  std::unique_ptr<Backend> backend;
  std::string note;  // "using the CPU: no GPU: ..."; empty when nothing needs saying
};

// "cuda" fails with the reason when there is no usable GPU or the build has no CUDA backend;
// "auto" falls back to the CPU and says why.
Result<SelectedBackend> selectBackend(std::string_view device);

}  // namespace ampscope::trainer
