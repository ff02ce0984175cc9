#pragma once
// `ampscope diff A B [--json]`: two runs of one model, the measured speedup beside A's
// projections, overall and per operator.

#include <iosfwd>
#include <string>

namespace ampscope::cli {

struct DiffOptions {
  std::string baseline_path;  // A
  std::string candidate_path; // B
  bool json = false;
  std::string gpu;  // --gpu NAME, for both runs
};

int runDiff(const DiffOptions& options, std::ostream& out, std::ostream& err);

}  // namespace ampscope::cli
