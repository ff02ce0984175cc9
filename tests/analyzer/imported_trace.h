#pragma once
// For traces a test builds by hand: what every importer does after reading a file (normalise the
// ranges' text), then the correlation, as analyzer::analyzeTrace runs it.

#include "analyzer/correlator.h"
#include "analyzer/import/range_normaliser.h"
#include "trace/trace_model.h"

namespace ampscope::test {

inline analyzer::CorrelationCounts correlateAsImported(trace::Trace& trace) {
  analyzer::import::normaliseRanges(trace);
  return analyzer::correlate(trace);
}

}  // namespace ampscope::test
