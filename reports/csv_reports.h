#pragma once
// The CSV files of a report. Each writes DIR/<name>.csv with the header documented in
// docs/reports.md (a stable column order: scripts may index by position) and returns an error
// that names the file.

#include <filesystem>
#include <vector>

#include "analyzer/advice/recommendations.h"
#include "analyzer/job/rank_result.h"
#include "analyzer/summary/trace_summary.h"
#include "trace/result.h"

namespace ampscope::reports {

// Each returns the CSV text; the write* functions below put it in DIR.
std::string recommendationsCsv(const std::vector<analyzer::Recommendation>& recommendations);
// A job's: the same columns, then `ranks`, the ranks each applies to ("0;1;2", ascending).
std::string jobRecommendationsCsv(const std::vector<analyzer::Recommendation>& recommendations);
std::string layersCsv(const analyzer::TraceSummary& summary);
std::string kernelsCsv(const analyzer::TraceSummary& summary);
std::string opsCsv(const analyzer::TraceSummary& summary);  // the per-op model's table (summary.op_performance)
std::string iterationsCsv(const analyzer::TraceSummary& summary);
// memory.csv: one row per device per timeline sample; memory_peak.csv: per device, what is live at
// its peak by category and by layer, and what the peak's step saved for backward by layer.
std::string memoryCsv(const analyzer::MemoryAnalysis& memory);
std::string memoryPeakCsv(const analyzer::MemoryAnalysis& memory);
std::string collectivesCsv(const std::vector<analyzer::CollectiveRow>& rows);  // a rank's or a job's collectives
// counters.csv: per kernel name its hardware counters (analyzer/counters/): the measured tensor pipe
// share, CUDA-core FP operations, then one column per metric recorded (its total), by name.
std::string countersCsv(const analyzer::CounterAnalysis& counters);
// A job's tables: every rank's rows (RankResult::tables), in rank order, each row as that rank's
// own CSV writes it, after a leading `rank` column.
std::string layersCsv(const std::vector<analyzer::RankResult>& ranks);
std::string kernelsCsv(const std::vector<analyzer::RankResult>& ranks);
std::string opsCsv(const std::vector<analyzer::RankResult>& ranks);

trace::Status writeRecommendationsCsv(const std::vector<analyzer::Recommendation>& recommendations,
                                      const std::filesystem::path& dir);
trace::Status writeLayersCsv(const analyzer::TraceSummary& summary, const std::filesystem::path& dir);
trace::Status writeKernelsCsv(const analyzer::TraceSummary& summary, const std::filesystem::path& dir);
trace::Status writeOpsCsv(const analyzer::TraceSummary& summary, const std::filesystem::path& dir);
trace::Status writeIterationsCsv(const analyzer::TraceSummary& summary, const std::filesystem::path& dir);
trace::Status writeMemoryCsvs(const analyzer::TraceSummary& summary, const std::filesystem::path& dir);
trace::Status writeCollectivesCsv(const analyzer::TraceSummary& summary, const std::filesystem::path& dir);
trace::Status writeCountersCsv(const analyzer::TraceSummary& summary, const std::filesystem::path& dir);

}  // namespace ampscope::reports
