#pragma once
// The text of the trainer's layer op ranges (docs/trainer_ranges.md), read into the fields the
// analyzer works with:
//   fc1 linear forward in=[64,784] params=[[100,784],[100]] out=[64,100] dtype=float16 gemm=64,100,784
// The same text arrives through ampscope profiles (NVTX domain "ampscope") and Nsight Systems
// exports of a trainer run, so it is read once, after import and before correlation, rather than
// by each importer.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "analyzer/gemm_shapes.h"
#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {

// The NVTX domain the trainer marks its work in.
inline constexpr std::string_view kTrainerDomain = "ampscope";

struct TrainerRangeText {
  std::string layer;  // "fc1"
  std::string op;     // "linear"
  trace::Phase phase = trace::Phase::kUnknown;  // kForward or kBackward
  std::vector<std::int64_t> input;  // in=
  Shapes params;                    // params=, weight first
  std::vector<std::int64_t> output; // out=
  std::string dtype;                // "float16"
  std::optional<std::array<std::int64_t, 3>> gemm;  // M, N, K of the forward GEMM
  std::optional<std::array<std::int64_t, 9>> conv;  // N, C, H, W, K, R, S, stride, padding

  // The input and parameter shapes as the analyzer keeps them (Range::shapes), in the order an
  // aten::linear or aten::conv2d call records them: "[[64,784],[100,784],[100]]".
  std::string shapesJson() const;
  // One dtype per entry of shapesJson(): "[\"float16\",\"float16\",\"float16\"]".
  std::string dtypesJson() const;
};

// The error says which field is missing or malformed and what was expected.
trace::Result<TrainerRangeText> parseTrainerRangeText(std::string_view text);

// True for the texts of the trainer's other ranges ("step 3", "data", "forward", "batch 12", ...),
// which carry no layer op.
bool isTrainerPhaseRangeText(std::string_view text);

// Reads every trainer layer op range of trace (domain "ampscope", or, where the trace does not
// record domains, a text of the layer op form) into its fields: layer, op, phase, shapes and
// dtypes, and makes it an operator range so that the correlator attributes its kernels to it.
// Texts that cannot be read stay plain annotations and are counted in
// import_stats.not_understood. Running it again gives the same trace.
void readTrainerRanges(trace::Trace& trace);

// A range readTrainerRanges has read: an operator whose name starts with "LAYER OP ".
bool isTrainerLayerOpRange(const trace::Trace& trace, const trace::Range& range);

// "fc1 linear forward" for a range read by readTrainerRanges (the full text also carries shapes,
// which make every call shape its own operator), else the range's name.
std::string_view operatorLabel(const trace::Trace& trace, const trace::Range& range);

// The op kind shape checks group by: "linear" for a trainer layer op range (its forward and
// backward calls share a GEMM), else the range's name.
std::string_view shapeCheckLabel(const trace::Trace& trace, const trace::Range& range);

}  // namespace ampscope::analyzer
