#pragma once
// `ampscope record [-o FILE] [--kinds LIST] [--metrics tensor[:per-kernel]] -- COMMAND ARGS...`: runs a program with ampscope's
// collector injected (NVTX and CUDA injection variables), passes its exit status through, and
// says what the profile holds, including why GPU activity is missing where it is.

#include <iosfwd>
#include <string>
#include <vector>

namespace ampscope::cli {

struct RecordOptions {
  std::string output = "record.sqlite";
  std::string kinds;  // empty: the collector's defaults
  std::string metrics;  // --metrics: "", none, tensor or tensor:per-kernel (collector/hardware_metrics.h)
  std::vector<std::string> command;
  std::string inject_library;  // empty: found beside the ampscope executable
};

// Returns the program's exit status (128 + N when signal N killed it), or 2 when it could not be
// started at all.
int runRecord(const RecordOptions& options, std::ostream& out, std::ostream& err);

}  // namespace ampscope::cli
