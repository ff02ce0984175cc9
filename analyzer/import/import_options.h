#pragma once
// What every importer accepts besides the file: a progress callback.

#include <cstdint>
#include <functional>

namespace ampscope::analyzer::import {

// Called now and then with (work done, total work), in the importer's own units.
using ProgressCallback = std::function<void(std::uint64_t done, std::uint64_t total)>;

}  // namespace ampscope::analyzer::import
