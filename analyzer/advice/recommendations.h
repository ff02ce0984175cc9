#pragma once
// What to change, by how much it should help: each recommendation carries a stable rule id, the
// evidence that triggered it (numbers from this trace), a concrete action, and the estimated
// gain per step. Sorted by gain, largest first.

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/summary/trace_summary.h"

namespace ampscope::analyzer {

enum class Severity { kInfo, kLow, kMedium, kHigh };
const char* severityName(Severity severity);
// The severity of a gain of gain_pct percent of the step: high from 10%, medium from 3%, low from
// 0.5%, info below.
Severity severityOfGain(double gain_pct);

struct Recommendation {
  std::string rule;      // stable id, e.g. "enable-amp", "pad-dimensions", "hide-input-pipeline"
  Severity severity = Severity::kInfo;
  std::string target;    // the layer, op or kernel it is about; "model" for the whole step
  std::string evidence;  // the numbers that triggered it
  std::string action;    // what to change, concretely
  std::int64_t estimated_gain_ns = 0;  // per step
  double estimated_gain_pct = 0.0;     // of the steady step
  // The op call shapes it is about, heaviest first, where it covers several (pad-dimensions: every
  // op with the size as a GEMM dimension, "layer op [shapes] as N"); empty otherwise.
  std::vector<std::string> ops;
  // The layers it is about, heaviest first, as the normalised ranges name them; empty when it
  // names none (views select the first one).
  std::vector<std::string> layers;
  // In a job's findings: the ranks it applies to, ascending (job_findings.h); empty for one run.
  std::vector<std::int32_t> ranks;

  bool operator==(const Recommendation&) const = default;
};

std::vector<Recommendation> recommend(const TraceSummary& summary);

// A finding with no gain to claim (a CPU run's padding advice, an estimate the trace cannot
// give) is a note, not an action: views list it apart from the recommendations.
inline bool isNote(const Recommendation& recommendation) { return recommendation.estimated_gain_ns <= 0; }

}  // namespace ampscope::analyzer
