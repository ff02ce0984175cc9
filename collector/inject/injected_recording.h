#pragma once
// The recording of a program that `ampscope record` runs: started by whichever entry point the
// program reaches first (NVTX's or CUDA's), configured by the environment `record` sets, stopped
// at exit. The process `record` started writes the profile it was given; any other process of
// its tree that reaches NVTX or CUDA writes its own beside it (process_profile_path.h). A child
// forked without exec inherits its parent's recording and stops capturing: the parent's writer
// thread did not come with it.

#include "collector/profile_recorder.h"

namespace ampscope::collector {

// Environment variables `ampscope record` sets for the program.
inline constexpr const char* kOutputVariable = "AMPSCOPE_RECORD_OUTPUT";   // profile path
inline constexpr const char* kPidVariable = "AMPSCOPE_RECORD_PID";         // the process record started
inline constexpr const char* kKindsVariable = "AMPSCOPE_RECORD_KINDS";     // what to record
inline constexpr const char* kCommandVariable = "AMPSCOPE_RECORD_COMMAND"; // the command line
inline constexpr const char* kMetricsVariable = "AMPSCOPE_RECORD_METRICS"; // --metrics (hardware_metrics.h)

// The recorder of this process, started on first call; nullptr outside `ampscope record` or when
// the profile could not be created (the reason is written beside the profile, in PATH.error, for
// `record` to show).
ProfileRecorder* injectedRecording();

}  // namespace ampscope::collector
