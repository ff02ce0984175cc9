#pragma once
// One process's share of a file that holds several (an Nsight Systems export of a multi-process
// job: one process per GPU, each a rank of the job).

#include <cstdint>

#include "trace/trace_model.h"

namespace ampscope::trace {

struct ProcessTrace {
  std::int64_t pid = kUnknownPid;
  std::uint32_t first_device = 0;  // the lowest device id it ran kernels on
  Trace trace;
  // False where `trace` is a whole file, read as it is (which may still hold several processes).
  bool one_of_several = true;
};

// The reason a process's trace counts the records of the file's other processes under, in
// import_stats.skipped.
inline constexpr const char* kOtherProcessesSkipped = "events of the file's other processes (other ranks)";

}  // namespace ampscope::trace
