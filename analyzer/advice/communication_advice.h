#pragma once
// What to change when collectives show in the step (analyzer/steps/collectives.h): overlap them with
// compute, and reduce FP32 gradients in BF16. Each piece of advice carries its evidence and a gain
// with the assumption it rests on; recommendations.cpp turns them into recommendations.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/summary/trace_summary.h"

namespace ampscope::analyzer {

struct CommunicationAdvice {
  std::string_view rule;  // rule_ids.h
  std::string target;
  std::string evidence;
  std::string action;
  std::int64_t gain_ns = 0;  // per step (per window without steps)
};

// `step_ns`: the steady step (or the window) the gains are measured against.
std::vector<CommunicationAdvice> adviseCommunication(const TraceSummary& summary, std::int64_t step_ns);

}  // namespace ampscope::analyzer
