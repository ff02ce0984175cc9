#pragma once
// A Backend that passes every op on to another and fails one of them on purpose: the plan's call
// of the plan's op throws BackendError, as a failing CUDA, cuBLAS or cuDNN call would. It lets the
// error path (TrainingRun's message naming the step and the layer op, `ampscope train`'s one line
// and exit code) be tested on the CPU, where nothing fails by itself; the CLI wraps its backend in
// one only when the test-only variable AMPSCOPE_TRAIN_FAULT is set (docs/errors.md).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "trainer/backend/backend_decorator.h"

namespace ampscope::trainer {

struct FaultPlan {
  BackendOp op = BackendOp::kGemm;
  std::int64_t call = 1;  // which call of that op fails, from 1, counted over the whole run
};

// "OP" (its first call) or "OP:N", OP a Backend method's name ("gemm", "allocate", "sgdStep");
// an error names what is wrong and lists the ops.
Result<FaultPlan> parseFaultPlan(std::string_view text);

class FaultInjectingBackend final : public BackendDecorator {
 public:
  FaultInjectingBackend(std::unique_ptr<Backend> inner, FaultPlan plan)
      : BackendDecorator(std::move(inner)), plan_(plan) {}

 private:
  // Counts a call of the plan's op and throws when it is the planned one.
  void arrive(BackendOp op, std::int64_t launches) override;

  FaultPlan plan_;
  std::int64_t calls_ = 0;  // calls of the plan's op so far
};

}  // namespace ampscope::trainer
