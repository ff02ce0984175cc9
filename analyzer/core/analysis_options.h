#pragma once
// What the user tells the analysis that the trace may not (the GPU), which part of the recording
// to read, and how many threads it may use.

#include <optional>
#include <string>

#include "analyzer/core/read_window.h"

namespace ampscope::analyzer {

struct AnalysisOptions {
  // --gpu NAME (a device table row, docs/devices.md). It names the recorded device when the trace
  // says neither its GPU's name nor its compute capability, and the device of the what-if
  // projection when it differs from the recorded one (a CPU run, a trace from another GPU).
  // Empty: a CPU run is projected on kDefaultWhatIfGpu (what_if_device.h).
  std::string gpu;
  // --threads N: the threads one trace's import and analysis may use; 0: every hardware thread.
  // The result is the same whatever the number.
  unsigned threads = 0;
  // --window: read only this part of the recording (read_window.h); none: all of it.
  std::optional<ReadWindow> window{};
};

}  // namespace ampscope::analyzer
