// The optimizer updates and the step's end of the CUDA backend against the CPU reference: several
// parameters of mixed dtypes in one multi-tensor op (FP32 masters with low-precision copies, 16-bit
// parameters, an empty one), steps masked on the device, the loss scale's history, and a step of
// many tensors that the launch plan has to cut between launches.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "tests/trainer/cuda/cuda_step_fixture.h"
#include "trainer/numerics/multi_tensor.h"

namespace ampscope::trainer::cuda_test {
namespace {

struct ParameterSpec {
  std::int64_t count;
  DType param;
  DType state;
  bool has_copy;  // an FP32 master with FP16 weights for the forward
};

// A master with its copy, 16-bit parameters with 16-bit or FP32 state, one spanning two chunks,
// and an empty one.
const std::vector<ParameterSpec> kMixedParameters = {
    {4099, DType::kFp32, DType::kFp32, true},  {1000, DType::kBf16, DType::kBf16, false},
    {70000, DType::kFp16, DType::kFp32, false}, {0, DType::kFp32, DType::kFp32, false},
    {300, DType::kFp32, DType::kFp32, true},
};

class CudaOptimizerStepTest : public CudaStepTest {
 protected:
  std::vector<ParameterPair> makeParameters(const std::vector<ParameterSpec>& specs, std::uint32_t seed) {
    std::vector<ParameterPair> parameters;
    for (const ParameterSpec& spec : specs) {
      ParameterPair& p = parameters.emplace_back();
      p.param = random({spec.count}, spec.param, seed++);
      p.grad = zeros({spec.count}, spec.param);
      p.state1 = zeros({spec.count}, spec.state);
      p.state2 = zeros({spec.count}, spec.state);
      p.has_copy = spec.has_copy;
      if (spec.has_copy) p.copy = zeros({spec.count}, DType::kFp16);
    }
    return parameters;
  }

  // New gradients, the same on both backends.
  void setGradients(std::vector<ParameterPair>& parameters, std::uint32_t seed) {
    for (ParameterPair& p : parameters) {
      const std::vector<float> values = randomValues(p.grad.cpu.numel(), -1.0f, 1.0f, seed++);
      cpu_->upload(values, p.grad.cpu);
      gpu_->upload(values, p.grad.gpu);
    }
  }

  // The GPU may fuse a multiply and an add (one rounding instead of two), so a stored value may
  // round the other way now and then; such a one-step difference stays as the values move, so it
  // is bounded by the values' scale (parameters ~1), not by their final size. A copy rounds a
  // parameter that may be that far off once more, to FP16.
  void expectParametersMatch(std::vector<ParameterPair>& parameters, int steps, bool adamw, const std::string& what) {
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      ParameterPair& p = parameters[i];
      const std::string name = what + " parameter " + std::to_string(i) + " (" + dtypeName(p.param.cpu.dtype()) + ")";
      const double param_steps = steps * unitSpacing(p.param.cpu.dtype());
      expectClose(gpuValues(p.param), cpuValues(p.param), param_steps + 1e-6, param_steps + 1e-6, name + " param");
      if (adamw) {
        expectClose(gpuValues(p.state1), cpuValues(p.state1), 1e-5, 1e-7, name + " first moment");
        expectClose(gpuValues(p.state2), cpuValues(p.state2), 1e-5, 1e-9, name + " second moment");
      } else {
        const double state_steps =
            steps * std::max(unitSpacing(p.param.cpu.dtype()), unitSpacing(p.state1.cpu.dtype()));
        expectClose(gpuValues(p.state1), cpuValues(p.state1), state_steps + 1e-6, 4.0 * state_steps + 1e-6,
                    name + " momentum");
      }
      if (p.has_copy) {
        const double copy_bound = unitSpacing(DType::kFp16) + param_steps + 1e-6;
        expectClose(gpuValues(p.copy), cpuValues(p.copy), copy_bound, copy_bound, name + " low-precision copy");
        // The copy is the parameter as stored, rounded to FP16.
        std::vector<float> rounded = gpuValues(p.param);
        Tensor check = gpu_->allocate(p.copy.gpu.shape(), DType::kFp16);
        gpu_->upload(rounded, check);
        expectBitEqual(gpuValues(p.copy), gpu_->download(check), name + " copy of the stored parameter");
      }
    }
  }
};

// Several steps, so the optimizer state carries over.
TEST_F(CudaOptimizerStepTest, SgdStepsOverMixedParametersMatchTheCpu) {
  SgdSettings settings;
  settings.momentum = 0.9f;
  settings.weight_decay = 1e-3f;
  std::vector<ParameterPair> parameters = makeParameters(kMixedParameters, 1050);
  StatePair state = states(dynamicScaler(1.0f, 1, 0.05f));
  for (std::uint32_t step = 0; step < 4; ++step) {
    setGradients(parameters, 1100 + 10 * step);
    cpu_->sgdStep(settings, parametersOn(parameters, false), state.cpu);
    gpu_->sgdStep(settings, parametersOn(parameters, true), state.gpu);
    finishStep(state);
  }
  expectParametersMatch(parameters, 4, false, "sgd");
}

// AdamW counts its steps from the applied steps on the device: four steps, four bias corrections.
TEST_F(CudaOptimizerStepTest, AdamWStepsOverMixedParametersMatchTheCpu) {
  AdamWSettings settings;  // at the state's learning rate, 1e-2
  settings.weight_decay = 0.05f;
  std::vector<ParameterSpec> specs = kMixedParameters;
  for (ParameterSpec& spec : specs) spec.state = DType::kFp32;  // the moments are FP32
  std::vector<ParameterPair> parameters = makeParameters(specs, 1060);
  StatePair state = states(dynamicScaler(1.0f));
  for (std::uint32_t step = 0; step < 4; ++step) {
    setGradients(parameters, 1200 + 10 * step);
    cpu_->adamWStep(settings, parametersOn(parameters, false), state.cpu);
    gpu_->adamWStep(settings, parametersOn(parameters, true), state.gpu);
    finishStep(state);
  }
  EXPECT_EQ(expectSameLog(state, 0, 0, "adamw").scaler.applied_steps, 4);
  expectParametersMatch(parameters, 4, true, "adamw");
}

// A step whose gradients overflowed: both updates are masked on the device and leave every value
// as it was; the step's end records the skip and backs the scale off. Without loss scaling the
// same flag masks nothing.
TEST_F(CudaOptimizerStepTest, AMaskedStepChangesNothingAndBacksTheScaleOff) {
  for (LossScaling mode : {LossScaling::kDynamic, LossScaling::kNone}) {
    const bool masked = mode != LossScaling::kNone;
    const std::string what = masked ? "dynamic scaling" : "no scaling";
    ScalerState initial = dynamicScaler(4096.0f, 2);
    initial.mode = mode;
    StatePair state = states(initial);
    std::vector<ParameterPair> parameters = makeParameters(kMixedParameters, 1070);
    setGradients(parameters, 1300);
    // The overflow, found by the unscaling as in a training step.
    std::vector<TensorPair> overflow;
    overflow.push_back(upload({3}, DType::kFp16, {1.0f, std::numeric_limits<float>::infinity(), 2.0f}));
    cpu_->unscaleGradients(cpuTensors(overflow), state.cpu);
    gpu_->unscaleGradients(gpuTensors(overflow), state.gpu);

    std::vector<std::vector<float>> before;
    for (ParameterPair& p : parameters) before.push_back(gpuValues(p.param));
    SgdSettings sgd;
    AdamWSettings adamw;
    cpu_->sgdStep(sgd, parametersOn(parameters, false), state.cpu);
    gpu_->sgdStep(sgd, parametersOn(parameters, true), state.gpu);
    cpu_->adamWStep(adamw, parametersOn(parameters, false), state.cpu);
    gpu_->adamWStep(adamw, parametersOn(parameters, true), state.gpu);
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      ParameterPair& p = parameters[i];
      const std::string name = what + " parameter " + std::to_string(i);
      const std::vector<float> after = gpuValues(p.param);
      if (masked) {
        expectBitEqual(after, before[i], name);
        expectBitEqual(after, cpuValues(p.param), name + " against the cpu");
        expectBitEqual(gpuValues(p.state1), cpuValues(p.state1), name + " state");
        if (p.has_copy) expectBitEqual(gpuValues(p.copy), cpuValues(p.copy), name + " copy");
      } else if (!after.empty()) {
        EXPECT_NE(after, before[i]) << name;
      }
    }
    // Unmasked, SGD's momentum is AdamW's first moment too here: the bounds of two updates.
    if (!masked) expectParametersMatch(parameters, 2, false, what);

    finishStep(state);
    const StepLogRead log = expectSameLog(state, 0, 1, what);
    EXPECT_EQ(log.entries[0].skipped, masked ? 1 : 0) << what;
    EXPECT_EQ(log.scaler.scale, masked ? 2048.0f : 4096.0f) << what;
    EXPECT_EQ(log.scaler.found_inf, 0) << what;
    EXPECT_EQ(log.scaler.slot, 1) << what;
  }
}

// Seven steps of unscale, clip and the step's end, two of them overflowing, with a log of four
// slots: every step's entry, and at the end the last four read across the wrap-around.
TEST_F(CudaOptimizerStepTest, TheLossScaleHistoryMatchesTheCpu) {
  ScalerState initial = dynamicScaler(65536.0f, 4);
  initial.growth_interval = 2;
  StatePair state = states(initial);
  const int steps = 7;
  for (int step = 0; step < steps; ++step) {
    const float scale = cpu_->readStepLog(state.cpu, 0, 0).scaler.scale;
    std::vector<TensorPair> grads;
    for (std::uint32_t t = 0; t < 3; ++t) {
      // Gradients of up to 1/64 times the scale: within FP16's range at every scale reached here.
      const auto seed = 1400 + 10 * static_cast<std::uint32_t>(step) + t;
      std::vector<float> values = randomValues(1000 + 500 * t, -scale / 64.0f, scale / 64.0f, seed);
      if ((step == 2 || step == 5) && t == 1) values[77] = std::numeric_limits<float>::infinity();
      grads.push_back(upload({static_cast<std::int64_t>(values.size())}, t == 0 ? DType::kFp32 : DType::kFp16, values));
    }
    cpu_->unscaleGradients(cpuTensors(grads), state.cpu);
    gpu_->unscaleGradients(gpuTensors(grads), state.gpu);
    // A norm near 0.6 (4500 values in [-1/64, 1/64]): clipped.
    cpu_->clipGradients(cpuTensors(grads), 0.25f, state.cpu);
    gpu_->clipGradients(gpuTensors(grads), 0.25f, state.gpu);
    finishStep(state);
    const StepLogRead log = expectSameLog(state, step % 4, 1, "step " + std::to_string(step));
    EXPECT_EQ(log.entries[0].skipped, step == 2 || step == 5 ? 1 : 0) << step;
  }
  const StepLogRead log = expectSameLog(state, steps % 4, 4, "the last four steps");
  ASSERT_EQ(log.entries.size(), 4u);
  EXPECT_EQ(log.scaler.skipped_steps, 2);
  EXPECT_EQ(log.scaler.applied_steps, 5);
  EXPECT_EQ(log.entries[2].skipped, 1);  // step 5
  EXPECT_EQ(log.entries[2].gradient_norm_squared, 0.0);
}

// 60 small parameters (some empty), one of 3 million values and one of 21 million: the plan takes
// at most 24 tensors and 320 chunks a launch, so lists are cut and the largest tensor goes on
// from one launch into the next. A whole step: FP16 gradients copied into the FP32 masters',
// unscaled, clipped, AdamW, and the step's end, twice.
TEST_F(CudaOptimizerStepTest, AStepOfManyTensorsCutIntoSeveralLaunchesMatchesTheCpu) {
  std::vector<ParameterSpec> specs;
  for (int i = 0; i < 60; ++i) specs.push_back({(i * 977) % 5000, DType::kFp32, DType::kFp32, i % 2 == 0});
  specs.insert(specs.begin() + 30, ParameterSpec{3'000'000, DType::kFp32, DType::kFp32, true});
  specs.push_back({21'000'001, DType::kFp32, DType::kFp32, false});

  std::vector<std::int64_t> counts;
  for (const ParameterSpec& spec : specs) counts.push_back(spec.count);
  const std::vector<MultiTensorLaunch> plan = planMultiTensor(counts);
  ASSERT_GE(plan.size(), 4u);
  bool cut = false;
  for (std::size_t l = 1; l < plan.size(); ++l) cut = cut || plan[l].tensors.front() == plan[l - 1].tensors.back();
  ASSERT_TRUE(cut) << "no tensor goes on from one launch into the next: the test no longer tests that";

  std::vector<ParameterPair> parameters = makeParameters(specs, 1500);
  std::vector<TensorPair> model_grads;
  for (const ParameterSpec& spec : specs) model_grads.push_back(zeros({spec.count}, DType::kFp16));
  std::vector<TensorPair> master_grads;
  for (ParameterPair& p : parameters) master_grads.push_back(p.grad);

  AdamWSettings settings;
  StatePair state = states(dynamicScaler(1024.0f, 2, 1e-3f));
  for (std::uint32_t step = 0; step < 2; ++step) {
    for (std::size_t t = 0; t < model_grads.size(); ++t) {
      const auto seed = 1600 + 100 * step + static_cast<std::uint32_t>(t);
      const std::vector<float> values = randomValues(model_grads[t].cpu.numel(), -1024.0f, 1024.0f, seed);
      cpu_->upload(values, model_grads[t].cpu);
      gpu_->upload(values, model_grads[t].gpu);
    }
    cpu_->copyAll(readOnly(cpuTensors(model_grads)), cpuTensors(master_grads));
    gpu_->copyAll(readOnly(gpuTensors(model_grads)), gpuTensors(master_grads));
    cpu_->unscaleGradients(cpuTensors(master_grads), state.cpu);
    gpu_->unscaleGradients(gpuTensors(master_grads), state.gpu);
    cpu_->clipGradients(cpuTensors(master_grads), 1.0f, state.cpu);
    gpu_->clipGradients(gpuTensors(master_grads), 1.0f, state.gpu);
    cpu_->adamWStep(settings, parametersOn(parameters, false), state.cpu);
    gpu_->adamWStep(settings, parametersOn(parameters, true), state.gpu);
    finishStep(state);
  }
  const StepLogRead log = expectSameLog(state, 0, 2, "many tensors");
  EXPECT_EQ(log.scaler.applied_steps, 2);
  EXPECT_GT(log.entries[1].gradient_norm_squared, 1e6);
  // The clipped gradients as the optimizer read them (one FP32 rounding apart at most).
  for (const TensorPair& g : master_grads) {
    expectClose(gpuValues(g), cpuValues(g), std::ldexp(1.0, -22), 1e-12, "many tensors clipped gradients");
  }
  expectParametersMatch(parameters, 2, true, "many tensors");
}

}  // namespace
}  // namespace ampscope::trainer::cuda_test
