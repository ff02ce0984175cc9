#pragma once
// For traces a test builds by hand: what every importer does after reading a file (normalise the
// ranges' text), then the correlation, as analyzer::analyzeTrace runs it.

#include "analyzer/correlate/correlator.h"
#include "analyzer/normalise/range_normaliser.h"
#include "trace/trace_model.h"

namespace ampscope::test {

inline analyzer::CorrelationCounts correlateAsImported(trace::Trace& trace) {
  analyzer::import::normaliseRanges(trace);
  return analyzer::correlate(trace);
}

}  // namespace ampscope::test
