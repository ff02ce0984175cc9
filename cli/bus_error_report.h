#pragma once
// Trace files are read through memory mappings. Where another program shrinks a file while
// ampscope reads it, reading the lost pages raises SIGBUS, which would end ampscope without a
// word: this handler says which file, at which byte offset, and exits with the bad-input code.
// A SIGBUS anywhere else keeps its default action (a core dump where enabled).

namespace ampscope::cli {

void reportShrunkTraceFilesOnBusError();

}  // namespace ampscope::cli
