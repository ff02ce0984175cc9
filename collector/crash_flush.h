#pragma once
// Keeps a profile readable when the recorded program dies: on a fatal signal (SIGSEGV, SIGBUS,
// SIGFPE, SIGILL, SIGABRT) or a request to terminate (SIGTERM, SIGINT, SIGHUP, SIGQUIT), the
// handler has the recorder's writer commit what it holds (up to two seconds), then restores the
// program's own handler and re-raises, so the program dies exactly as it would have.

namespace ampscope::collector {

class ProfileRecorder;

void installCrashFlush(ProfileRecorder& recorder);
// Puts back the handlers installCrashFlush replaced.
void removeCrashFlush();

}  // namespace ampscope::collector
