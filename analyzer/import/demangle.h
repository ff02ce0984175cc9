#pragma once
// Kernel names as people read them: some recorders (nvprof, CUPTI without demangling, Nsight
// exports without a demangled column) give the Itanium C++ ABI's mangled symbol
// ("_ZN2at6native18elementwise_kernel..."). Importers demangle once; the trace keeps the mangled
// name beside it (trace::Trace::mangled_names) for JSON's mangled_name.

#include <optional>
#include <string>
#include <string_view>

#include "trace/trace_model.h"

namespace ampscope::analyzer::import {

// The demangled name, or nullopt where name is no mangled C++ symbol (or cannot be demangled).
std::optional<std::string> demangle(std::string_view name);

// Replaces every mangled kernel name of the trace with its demangled form, recording the pair in
// trace.mangled_names. Call after import, before analysis.
void demangleKernelNames(trace::Trace& trace);

}  // namespace ampscope::analyzer::import
