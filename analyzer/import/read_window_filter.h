#pragma once
// --window applied to an imported trace (analyzer/core/read_window.h): the span it names on the
// trace's clock, and the trace cut to what overlaps that span. The Nsight Systems importer applies
// the window in its queries instead (rows outside it are never decoded) and cuts here only what
// its small tables add; every other format is read whole and cut here.

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/core/read_window.h"
#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer::import {

// Seconds count from the start of the recording: the session's start where the trace counts from
// it (an Nsight Systems export: epoch_offset_ns known, its times are from that zero), else the
// trace's first record. Steps span from the start of the first step range numbered in the window
// to the end of the last (ProfilerStep#N, the trainer's "step N": normalised ranges of phase step).
// Fails, naming the file, where the trace has no such steps or nothing in the window.
trace::Result<trace::ReadSpan> windowSpan(const trace::Trace& trace, const ReadWindow& window, const std::string& path);

// From the first start to the last end of the step ranges numbered in the window; fails, naming
// the file and the numbers the steps have, where none is.
struct StepRange {
  std::int64_t number = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
};
trace::Result<trace::ReadSpan> spanOfSteps(const std::vector<StepRange>& steps, const StepWindow& window,
                                           const std::string& path);

// Seconds from `zero_ns` on the trace's clock.
trace::ReadSpan spanOfSeconds(const SecondsWindow& window, std::int64_t zero_ns);

// Keeps the records that overlap the span (a record that starts before its end and ends after
// its start; an instant inside it), counting what it leaves out in import_stats.skipped, and
// records the span in trace.read_window.
void keepWindow(trace::Trace& trace, const trace::ReadSpan& span);

// keepWindow for a whole trace: fails, naming the file and the span the trace covers, where
// nothing of a trace that had records is left.
trace::Status keepWindowOfTrace(trace::Trace& trace, const trace::ReadSpan& span, const std::string& path);

}  // namespace ampscope::analyzer::import
