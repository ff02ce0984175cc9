// Range text as the range normaliser reads it: PyTorch emit_nvtx text, PyProf's dict markers and
// call stacks, ampscope's trainer text, Kineto module hierarchies and Python frames. The bytes are
// one text, given to each parser directly and as the name of a range of every kind; normalising
// twice must change nothing (range_normaliser.h promises it).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "analyzer/normalise/pyprof_marker.h"
#include "analyzer/normalise/range_normaliser.h"
#include "analyzer/normalise/torch_nvtx_text.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace import = ampscope::analyzer::import;
  namespace trace = ampscope::trace;
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  (void)import::parseTorchNvtxText(text);
  (void)import::parsePyProfMarker(text);
  (void)import::layerFromFunctionStack(text);
  (void)import::layerFromModuleHierarchy(text);

  trace::Trace t;
  const trace::StringId name = t.strings.intern(text);
  const trace::StringId trainer_domain = t.strings.intern("ampscope");
  for (trace::RangeKind kind : {trace::RangeKind::kAnnotation, trace::RangeKind::kOperator,
                                trace::RangeKind::kPython, trace::RangeKind::kGpuAnnotation}) {
    trace::Range& range = t.ranges.emplace_back();
    range.kind = kind;
    range.name = name;
    if (kind == trace::RangeKind::kOperator) range.module_path = name;  // Kineto's "Module Hierarchy"
  }
  trace::Range& trainer = t.ranges.emplace_back();  // the trainer's text is read in its NVTX domain
  trainer.kind = trace::RangeKind::kAnnotation;
  trainer.name = name;
  trainer.domain = trainer_domain;

  import::normaliseRanges(t);
  ampscope::fuzz::checkTrace(t);
  const auto once = t.ranges;
  import::normaliseRanges(t);
  if (t.ranges != once) ampscope::fuzz::ScratchFile::fail("normalising twice changed a range");
  return 0;
}
