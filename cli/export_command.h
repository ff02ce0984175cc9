#pragma once
// `ampscope export TRACE... --perfetto OUT.json [--gpu NAME] [--rank N] [--threads N]`: the run's
// (or job's) events with ampscope's findings, as a Chrome JSON trace for ui.perfetto.dev and
// chrome://tracing (docs/perfetto.md).

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>
#include "analyzer/core/read_window.h"

namespace ampscope::cli {

struct ExportOptions {
  std::vector<std::string> trace_paths;  // files or folders (several: one job, a rank each)
  std::string perfetto;                  // the JSON trace to write
  std::string gpu;                       // --gpu NAME, as analyze
  std::optional<std::int32_t> rank;      // --rank N: only this rank of a job
  std::optional<analyzer::ReadWindow> window;  // --window START:END or step:N-M
  unsigned threads = 0;                  // --threads N: a job's files read at once (0: every hardware thread)
};

// Writes OUT through OUT.tmp, renamed at the end, so a failed export leaves no file behind. Exit
// codes: kExitBadInput for input it cannot read, kExitFailure when OUT cannot be written.
int runExport(const ExportOptions& options, std::ostream& out, std::ostream& err);

}  // namespace ampscope::cli
