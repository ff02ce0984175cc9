#pragma once
// What the tests of a step's end share: a step state and parameter lists held on both backends,
// and the comparison of what each backend's step log says.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/trainer/cuda/cuda_backend_fixture.h"
#include "trainer/numerics/step_state.h"

namespace ampscope::trainer::cuda_test {

// One step state on each backend, started from the same scaler.
struct StatePair {
  StepStateMemory cpu;
  StepStateMemory gpu;
};

// GradScaler's dynamic rule starting at `scale`, with a log of `slots` entries.
inline ScalerState dynamicScaler(float scale, std::int32_t slots = 1, float learning_rate = 1e-2f) {
  ScalerState s;
  s.mode = LossScaling::kDynamic;
  s.scale = scale;
  s.slots = slots;
  s.learning_rate = learning_rate;
  return s;
}

// A parameter and what an optimizer update touches of it, on both backends. state2 is AdamW's;
// copy is the low-precision weights of an FP32 master (has_copy).
struct ParameterPair {
  TensorPair param;
  TensorPair grad;
  TensorPair state1;
  TensorPair state2;
  bool has_copy = false;
  TensorPair copy;
};

inline std::vector<Tensor*> cpuTensors(std::vector<TensorPair>& pairs) {
  std::vector<Tensor*> tensors;
  for (TensorPair& p : pairs) tensors.push_back(&p.cpu);
  return tensors;
}

inline std::vector<Tensor*> gpuTensors(std::vector<TensorPair>& pairs) {
  std::vector<Tensor*> tensors;
  for (TensorPair& p : pairs) tensors.push_back(&p.gpu);
  return tensors;
}

inline std::vector<const Tensor*> readOnly(const std::vector<Tensor*>& tensors) {
  return {tensors.begin(), tensors.end()};
}

inline std::vector<ParameterTensors> parametersOn(std::vector<ParameterPair>& pairs, bool gpu) {
  std::vector<ParameterTensors> parameters;
  for (ParameterPair& p : pairs) {
    const auto side = [gpu](TensorPair& t) { return gpu ? &t.gpu : &t.cpu; };
    parameters.push_back({side(p.param), side(p.grad), side(p.state1), side(p.state2),
                          p.has_copy ? side(p.copy) : nullptr});
  }
  return parameters;
}

// The scalers must agree exactly: both backends run the same math::finishStep on the same flags.
inline void expectSameScaler(const ScalerState& actual, const ScalerState& expected, const std::string& what) {
  EXPECT_EQ(actual.scale, expected.scale) << what;
  EXPECT_EQ(actual.growth_tracker, expected.growth_tracker) << what;
  EXPECT_EQ(actual.found_inf, expected.found_inf) << what;
  EXPECT_EQ(actual.skipped_steps, expected.skipped_steps) << what;
  EXPECT_EQ(actual.applied_steps, expected.applied_steps) << what;
  EXPECT_EQ(actual.slot, expected.slot) << what;
  EXPECT_EQ(actual.slots, expected.slots) << what;
  EXPECT_EQ(actual.clip_factor, expected.clip_factor) << what;
}

// Entries agree exactly but for the gradient norm, summed in FP64 in another order on the GPU
// (per chunk, then per tensor): a relative difference of a few roundings of the sum.
inline void expectSameEntries(const StepLogRead& actual, const StepLogRead& expected, const std::string& what) {
  ASSERT_EQ(actual.entries.size(), expected.entries.size()) << what;
  ASSERT_EQ(actual.row_losses.size(), expected.row_losses.size()) << what;
  for (std::size_t i = 0; i < expected.entries.size(); ++i) {
    const StepLogEntry& a = actual.entries[i];
    const StepLogEntry& e = expected.entries[i];
    const std::string entry = what + " entry " + std::to_string(i);
    EXPECT_NEAR(a.gradient_norm_squared, e.gradient_norm_squared, 1e-9 * e.gradient_norm_squared) << entry;
    EXPECT_EQ(a.loss_scale, e.loss_scale) << entry;
    EXPECT_EQ(a.skipped, e.skipped) << entry;
    EXPECT_EQ(a.correct, e.correct) << entry;
    EXPECT_EQ(a.rows, e.rows) << entry;
    // expf/logf of the two math libraries differ by an ulp or two.
    expectClose(actual.row_losses[i], expected.row_losses[i], 1e-5, 1e-6, entry + " row losses");
  }
}

class CudaStepTest : public CudaBackendTest {
 protected:
  StatePair states(const ScalerState& initial, std::int32_t max_rows = 1) {
    const StepStateLayout layout{initial.slots, max_rows};
    return {cpu_->allocateStepState(layout, initial), gpu_->allocateStepState(layout, initial)};
  }

  // Both logs from slot `first`, compared; returns the CPU's.
  StepLogRead expectSameLog(StatePair& state, std::int32_t first, std::int32_t count, const std::string& what) {
    const StepLogRead expected = cpu_->readStepLog(state.cpu, first, count);
    const StepLogRead actual = gpu_->readStepLog(state.gpu, first, count);
    expectSameScaler(actual.scaler, expected.scaler, what);
    expectSameEntries(actual, expected, what);
    return expected;
  }

  void finishStep(StatePair& state) {
    cpu_->finishStep(state.cpu);
    gpu_->finishStep(state.gpu);
  }
};

}  // namespace ampscope::trainer::cuda_test
