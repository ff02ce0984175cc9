#pragma once
// A backend op that could not be done: a CUDA, cuBLAS or cuDNN call that failed, device or host
// memory that ran out, a tensor the backend cannot take. Backends throw it instead of returning a
// status from every op, so the hot path between ops stays free of checks; TrainingRun::run catches
// it at the trainer's entry point and returns an Error that adds the training step and the layer
// op under way (docs/errors.md). Nothing thrown below the Backend interface reaches the caller of
// the trainer.

#include <stdexcept>
#include <string>
#include <utility>

namespace ampscope::trainer {

class BackendError : public std::runtime_error {
 public:
  // source: who failed, in the user's words ("CUDA", "cuBLAS", "cuDNN", "CPU backend");
  // message: what it said, its own error string first. what() is "source: message".
  BackendError(std::string source, const std::string& message)
      : std::runtime_error(source + ": " + message), source_(std::move(source)) {}

  const std::string& source() const { return source_; }

 private:
  std::string source_;
};

}  // namespace ampscope::trainer
