#include "analyzer/import/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <unordered_map>

namespace ampscope::analyzer::import {

std::optional<std::string> demangle(std::string_view name) {
  if (!name.starts_with("_Z")) return std::nullopt;
  const std::string symbol(name);
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status),
                                                   &std::free);
  if (status != 0 || !text) return std::nullopt;
  return std::string(text.get());
}

void demangleKernelNames(trace::Trace& trace) {
  std::unordered_map<trace::StringId, trace::StringId> readable;  // mangled -> demangled (itself: not mangled)
  for (trace::Kernel& kernel : trace.kernels) {
    auto [at, fresh] = readable.try_emplace(kernel.name, kernel.name);
    if (fresh) {
      if (const auto text = demangle(trace.str(kernel.name))) {
        at->second = trace.strings.intern(*text);
        trace.mangled_names.emplace_back(at->second, kernel.name);
      }
    }
    kernel.name = at->second;
  }
}

}  // namespace ampscope::analyzer::import
