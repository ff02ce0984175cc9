#pragma once
// What to change where attention is computed in pieces (analyzer/model/unfused_attention.h): call
// torch.nn.functional.scaled_dot_product_attention, one finding per attention shape, with the
// pieces' measured time, the fused kernel's estimate and what the estimate assumes.
// recommendations.cpp turns them into recommendations.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/summary/trace_summary.h"

namespace ampscope::analyzer {

struct AttentionAdvice {
  std::string target;
  std::string evidence;
  std::string action;
  std::int64_t gain_ns = 0;  // per step (per window without steps); 0 where not estimated
  std::vector<std::string> ops;     // the pieces, in order
  std::vector<std::string> layers;  // heaviest first
};

// `per`: how the gains are counted ("per step", or the window a trace without steps measures).
// Shapes whose estimate gives no gain get no advice; shapes that could not be estimated get advice
// with no gain (a note).
std::vector<AttentionAdvice> adviseFusedAttention(const TraceSummary& summary, std::string_view per);

}  // namespace ampscope::analyzer
