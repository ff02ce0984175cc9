#pragma once
// One place that reads what a range's text says, for every trace format, once, at import: the
// operator's name, its autograd sequence number and op id, its phase, input shapes and dtypes,
// argument values, module path and layer (trace::Range's normalised fields); then the dtypes and
// argument values read, once per distinct string, into trace::Trace::range_values
// (range_values_reader.h). After it, nothing in ampscope parses a range's name, dtypes or
// arguments; `name` stays what the file said.
//
// The texts it understands (each a trace::RangeTextForm):
//   - ampscope's trainer: "fc1 linear forward in=[64,784] params=[...] out=[...] dtype=float16"
//     (NVTX domain "ampscope", or that shape of text where the trace records no domain);
//   - PyTorch emit_nvtx: "aten::mm, op_id = 318133", "aten::addmm, seq = 12", with sizes and
//     input_op_ids when shapes were recorded (torch_nvtx_text.h);
//   - PyProf's dict markers (pyprof_marker.h): operator calls with argument shapes, dtypes and values,
//     call stacks whose funcStack gives the module path and layer, module markers;
//   - Kineto operators (their name is the op) with "Module Hierarchy", and nn.Module frames
//     ("nn.Module: Linear_0").
// Texts of a known form that cannot be read are counted in import_stats.not_understood and kept
// as annotations. Running it again on its own output changes nothing.

#include <string>
#include <string_view>

#include "trace/trace_model.h"

namespace ampscope::analyzer::import {

// `threads`: how many parts of the ranges are read side by side (the result is the same for any).
void normaliseRanges(trace::Trace& trace, unsigned threads = 1);

// "/Net::forward/Linear::_call_impl[4]/Linear::forward/linear" -> "Net/Linear[4]": the module
// instances on the stack (a frame of a class's forward, or of nn.Module's _call_impl entering one),
// outermost first, each with the call suffix PyProf/DLProf gave it ("[4]", "(2)": another call site
// in the same parent, so another instance). Empty when no module is on the stack. Two instances of
// one class are two layers, as DLProf's own report lists them (CONV2D_1, CONV2D_2).
std::string layerFromFunctionStack(std::string_view func_stack);

// "TOP(ResNet)::forward.SELF(ResNet)::_forward_impl.layer1(Sequential)::forward.0(Bottleneck)::forward"
// -> "layer1.0": the instance names below the top, as named_modules() spells them; the top's
// type when the path has nothing below it.
std::string layerFromModuleHierarchy(std::string_view hierarchy);

}  // namespace ampscope::analyzer::import
