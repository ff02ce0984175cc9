#pragma once
// Which phase of a training step a range's name announces, and which layer a Python frame names.
// Names come from PyTorch (ProfilerStep#N, enumerate(DataLoader)#..., Optimizer.step#...,
// autograd::engine::evaluate_function: XBackward0), PyProf (XBackward, seq = N) and ampscope's
// own trainer (NVTX ranges "step N", "data", "forward", "backward", "optimizer", "loss_scale").

#include <cstdint>
#include <string_view>

#include "trace/trace_model.h"

namespace ampscope::analyzer {

// kUnknown when the name says nothing about the phase.
trace::Phase phaseFromName(std::string_view name);

// The number a step marker carries ("ProfilerStep#12" -> 12, "step 7" -> 7); -1 for other names.
std::int64_t stepNumberFromName(std::string_view name);

// "nn.Module: Conv2d_0" -> "Conv2d_0"; empty for other names.
std::string_view moduleFromPythonFrame(std::string_view name);

}  // namespace ampscope::analyzer
