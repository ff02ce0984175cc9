#pragma once
// `ampscope diff A B [--json] [--top N] [--gpu NAME]`: two runs of one model; the change B made,
// the measured speedup beside what A's analysis predicted for it with the prediction's error,
// overall and per op call shape (docs/diff.md).

#include <cstddef>
#include <iosfwd>
#include <string>

namespace ampscope::cli {

struct DiffOptions {
  std::string baseline_path;  // A
  std::string candidate_path; // B
  bool json = false;
  std::string gpu;  // --gpu NAME, for both runs
  std::size_t top = 15;  // rows of the text's op and layer tables; JSON has them all
};

int runDiff(const DiffOptions& options, std::ostream& out, std::ostream& err);

}  // namespace ampscope::cli
