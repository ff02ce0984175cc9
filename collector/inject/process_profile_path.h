#pragma once
// Where each recorded process writes its profile. `ampscope record -o run.sqlite -- CMD` records
// CMD's own process into run.sqlite and every other process of its tree that reaches NVTX or CUDA
// (a training script started by a shell script, torchrun's ranks, spawned workers) into
// run.PID.sqlite beside it, so no process overwrites another's profile.

#include <optional>
#include <string>
#include <string_view>

namespace ampscope::collector {

// run.sqlite -> run.4242.sqlite; a name without an extension gets ".4242" appended.
std::string processProfilePath(std::string_view output, long long pid);

// The pid in `candidate` when it is a file name processProfilePath(output, pid) would give (the
// name alone, compared within output's folder).
std::optional<long long> processOfProfilePath(std::string_view candidate_name, std::string_view output);

}  // namespace ampscope::collector
