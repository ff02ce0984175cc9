#pragma once
// `ampscope gui [ARGS...]`: starts the desktop app (ampscope-gui, built beside ampscope when Qt 6
// is found) with the same arguments.

#include <iosfwd>
#include <string>
#include <vector>

namespace ampscope::cli {

// Replaces this process with ampscope-gui; returns only when it cannot be started.
int runGui(const std::vector<std::string>& args, std::ostream& err);

}  // namespace ampscope::cli
