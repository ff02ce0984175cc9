#pragma once
// `ampscope export --perfetto`: a run's events, with ampscope's findings as their args, flows and
// counter tracks, written as a Chrome JSON trace that ui.perfetto.dev and chrome://tracing open
// (docs/perfetto.md). One process per rank; every event is written as it is produced
// (trace_event_writer.h), so the export holds the analysis once and never a document of it.
// Every figure comes from the analysis (RunAnalysis): verdicts from its kernel table, layers and
// ops from its per-kernel table (kernel_attribution.h), rates from its per-op model, counters from its launch queue, step split,
// AMP numerics, memory timeline and sampled hardware metrics; this file only places them on tracks.

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "analyzer/run_analysis.h"
#include "reports/trace_event_writer.h"

namespace ampscope::reports {

// Where one rank goes in the exported trace.
struct PerfettoProcess {
  std::int32_t pid = 0;              // the rank
  std::string name;                  // process_name: "rank 0 (worker0.json)"
  std::int64_t clock_shift_ns = 0;   // added to the trace's times to put them on the job's clock
};

// What was written, for the command's message and the tests.
struct PerfettoCounts {
  std::uint64_t processes = 0;
  std::uint64_t kernels = 0;
  std::uint64_t memory_ops = 0;
  std::uint64_t ranges = 0;
  std::uint64_t launches = 0;
  std::uint64_t steps = 0;
  std::uint64_t flows = 0;            // launch -> GPU work pairs ("s" + "f")
  std::uint64_t counter_samples = 0;  // "C" events
  std::uint64_t events = 0;           // everything, metadata included
};

// The earliest time of any event the export writes for run, on its trace's clock; nullopt when it
// has none. The export's time origin is the minimum of this over its ranks (after their shifts):
// Perfetto drops events before 0.
std::optional<std::int64_t> earliestExportedNs(const analyzer::RunAnalysis& run);

class PerfettoExporter {
 public:
  // origin_ns: the time (on the job's clock) written as 0; no exported event may precede it.
  PerfettoExporter(std::ostream& out, std::int64_t origin_ns);
  // Writes every event of one rank. Call once per rank, with distinct pids.
  void addRank(const analyzer::RunAnalysis& run, const PerfettoProcess& process);
  // Closes the document.
  void finish();
  const PerfettoCounts& counts() const { return counts_; }

 private:
  TraceEventWriter writer_;
  std::int64_t origin_ns_;
  std::uint64_t next_flow_id_ = 1;
  PerfettoCounts counts_;
};

}  // namespace ampscope::reports
