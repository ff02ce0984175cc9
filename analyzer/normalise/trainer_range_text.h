#pragma once
// The text of the trainer's layer op ranges (docs/trainer_ranges.md), read into the fields the
// analyzer works with:
//   fc1 linear forward in=[64,784] params=[[100,784],[100]] out=[64,100] dtype=float16 gemm=64,100,784
// The same text arrives through ampscope profiles (NVTX domain "ampscope") and Nsight Systems
// exports of a trainer run; the range normaliser (import/range_normaliser.h) reads it for all.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "analyzer/core/gemm_shapes.h"
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
  // The call's positional argument values as an aten::conv2d call records them (Kineto's
  // "Concrete Inputs", trace::Range::arguments): input, weight and bias are tensors (""), then
  // stride, padding, dilation and groups: "[\"\",\"\",\"\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"1\"]".
  // Empty for ops that record no conv= field: their arguments are all tensors.
  std::string argumentsJson() const;
};

// The error says which field is missing or malformed and what was expected.
trace::Result<TrainerRangeText> parseTrainerRangeText(std::string_view text);

// True for the texts of the trainer's other ranges ("step 3", "data", "forward", "batch 12", ...),
// which carry no layer op.
bool isTrainerPhaseRangeText(std::string_view text);

// Should a range with this NVTX domain and text be read as a layer op range? Every range of the
// trainer's domain that is not one of its phase ranges; in traces that record no domain (old
// Nsight exports), texts whose third word is a pass and whose fourth is the input shape.
bool isTrainerLayerOpText(std::string_view domain, std::string_view text);

}  // namespace ampscope::analyzer
