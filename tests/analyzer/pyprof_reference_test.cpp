// PyProf's own per-kernel conclusions for the shared nvprof trace (lm.csv) as a reference: the
// same kernels in the same order and durations, every kernel PyProf attributed to an op
// attributed by ampscope too, and the same forward/backward split.

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "../test_support.h"
#include "analyzer/correlate/correlator.h"
#include "analyzer/import/trace_importer.h"

namespace ampscope::analyzer {
namespace {

// lm.csv quotes every field and has no embedded quotes or newlines.
std::vector<std::map<std::string, std::string>> readPyProfCsv(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::map<std::string, std::string>> rows;
  std::vector<std::string> header;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::size_t at = 0;
    while (at < line.size()) {
      const std::size_t open = line.find('"', at);
      const std::size_t close = line.find('"', open + 1);
      if (open == std::string::npos || close == std::string::npos) break;
      fields.push_back(line.substr(open + 1, close - open - 1));
      at = close + 1;
    }
    if (header.empty()) {
      header = fields;
      continue;
    }
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i) row[header[i]] = fields[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

bool insideAccumulateGrad(const trace::Trace& trace, trace::Index range) {
  for (; range != trace::kNone; range = trace.ranges[static_cast<std::size_t>(range)].parent) {
    if (trace.str(trace.ranges[static_cast<std::size_t>(range)].name) == "torch::autograd::AccumulateGrad") return true;
  }
  return false;
}

TEST(PyProfReferenceTest, OurKernelsAttributionAndPhasesMatchPyProfsConclusions) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(trace_path, "nvprof-v100-transformer-lm/net.sql");
  AMPSCOPE_REQUIRE_SHARED_TRACE(csv_path, "nvprof-v100-transformer-lm/lm.csv");
  const auto reference = readPyProfCsv(csv_path);
  ASSERT_EQ(reference.size(), 284u);
  auto imported = import::importTrace(trace_path);
  ASSERT_TRUE(imported.ok());
  trace::Trace& trace = *imported;
  correlate(trace);
  ASSERT_EQ(trace.kernels.size(), reference.size());

  std::size_t attributed_by_pyprof = 0;
  std::size_t attributed_by_both = 0;
  std::size_t direction_agrees = 0;
  std::size_t accumulate_grad_differences = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const auto& row = reference[i];
    const trace::Kernel& kernel = trace.kernels[i];
    // Same kernel at the same position: PyProf's short name inside ours, same duration.
    EXPECT_NE(trace.str(kernel.name).find(row.at("Kernel")), std::string_view::npos) << i;
    EXPECT_EQ(std::to_string(kernel.end_ns - kernel.start_ns), row.at("Sil(ns)")) << i;
    if (row.at("Op").empty()) continue;
    ++attributed_by_pyprof;
    if (kernel.op_range == trace::kNone) continue;
    ++attributed_by_both;
    const trace::Phase phase = trace.ranges[static_cast<std::size_t>(kernel.op_range)].phase;
    const bool backward = phase == trace::Phase::kBackward;
    if (backward == (row.at("Direction") == "bprop")) {
      ++direction_agrees;
    } else if (insideAccumulateGrad(trace, kernel.op_range)) {
      ++accumulate_grad_differences;
    }
  }
  EXPECT_EQ(attributed_by_pyprof, 284u);
  EXPECT_EQ(attributed_by_both, attributed_by_pyprof);
  // PyProf marks 77 kernels bprop; ampscope agrees on every kernel but the gradient
  // accumulation (add_ under torch::autograd::AccumulateGrad on the autograd thread), which runs
  // in the backward pass but carries no "...Backward" marker, so PyProf calls it fprop.
  EXPECT_EQ(accumulate_grad_differences, 28u);
  EXPECT_EQ(direction_agrees + accumulate_grad_differences, reference.size());
}

}  // namespace
}  // namespace ampscope::analyzer
