#pragma once
// The exit codes of every `ampscope` command, in one place (docs/errors.md lists them).

namespace ampscope::cli {

// The command did what it was asked.
inline constexpr int kExitOk = 0;
// It could not finish: a failure while running (a training step the backend could not do, a
// profile or report that could not be written). The one line on stderr says what and where.
inline constexpr int kExitFailure = 1;
// It refused to start: bad input (a file it cannot read or parse, an option out of range) or a
// missing prerequisite (no CUDA device for --device cuda, a build without the GUI).
inline constexpr int kExitBadInput = 2;
// `record`: the program could not be started (the shell's code for "command not found").
inline constexpr int kExitCannotRun = 127;
// `record`: the program was killed by signal N; the command exits with kExitSignalBase + N, as a
// shell does. Any other code from `record` is the program's own.
inline constexpr int kExitSignalBase = 128;

}  // namespace ampscope::cli
