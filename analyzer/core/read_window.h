#pragma once
// --window: the part of a recording to read, so that a user can look at a few steps of an export
// of gigabytes without holding all of it: seconds on the trace's clock ("2.5:4"), or training
// steps by the numbers their step ranges carry ("step:3-5": ProfilerStep#3 to ProfilerStep#5, the
// trainer's "step 3" to "step 5"). docs/formats/nsight_systems.md says how each format applies it.

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "trace/result.h"

namespace ampscope::analyzer {

struct SecondsWindow {
  double from_s = 0;  // seconds from the start of the recording, included
  double to_s = 0;    // excluded
};

struct StepWindow {
  std::int64_t first = 0;  // step numbers, both included
  std::int64_t last = 0;
};

using ReadWindow = std::variant<SecondsWindow, StepWindow>;

// "START:END" in seconds (decimals allowed, END > START >= 0) or "step:N-M" (0 <= N <= M); the
// error says what was expected.
trace::Result<ReadWindow> parseReadWindow(std::string_view text);

// As the user writes it: "2.5:4", "step:3-5".
std::string readWindowText(const ReadWindow& window);

}  // namespace ampscope::analyzer
