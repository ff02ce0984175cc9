#pragma once
// The recording of a program that `ampscope record` runs: started by whichever entry point the
// program reaches first (NVTX's or CUDA's), configured by the environment `record` sets, stopped
// at exit. Only the process `record` started is recorded: its subprocesses inherit the injection
// variables but record nothing, so they cannot overwrite its profile.

#include "collector/profile_recorder.h"

namespace ampscope::collector {

// Environment variables `ampscope record` sets for the program.
inline constexpr const char* kOutputVariable = "AMPSCOPE_RECORD_OUTPUT";   // profile path
inline constexpr const char* kPidVariable = "AMPSCOPE_RECORD_PID";         // the process to record
inline constexpr const char* kKindsVariable = "AMPSCOPE_RECORD_KINDS";     // what to record
inline constexpr const char* kCommandVariable = "AMPSCOPE_RECORD_COMMAND"; // the command line

// The recorder of this process, started on first call; nullptr when this process is not the one
// to record or the profile could not be created (the reason is written beside the profile, in
// PATH.error, for `record` to show).
ProfileRecorder* injectedRecording();

}  // namespace ampscope::collector
