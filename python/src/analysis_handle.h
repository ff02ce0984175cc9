#pragma once
// What the Python package's extension does, in plain C++: the CLI's own analysis (cli/) held as
// one object, and its views (the --json document, the CSV tables, the report) cut from it on
// request. The bindings (module.cpp) only convert types; nothing is analyzed twice.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/core/analysis_options.h"
#include "cli/job_input.h"
#include "cli/merge_command.h"

namespace ampscope::python {

// Input the analysis refused (a missing file, a corrupt trace, an unknown GPU): what() is the
// message the CLI prints after "ampscope: ". Raised in Python as ampscope.TraceError.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The tables of an analysis, each the CSV of the same name that `report` writes (docs/reports.md).
enum class Table {
  kLayers, kOperators, kKernels, kRecommendations, kIterations, kRanks, kCollectives, kMemory, kMemoryPeak, kCounters
};
std::optional<Table> tableNamed(std::string_view name);
// "layers, operators, ..." for errors.
std::string tableNames();

class Analysis {
 public:
  // `ampscope analyze PATHS [--gpu GPU] [--rank N] [--threads N]`.
  static Analysis analyze(const std::vector<std::string>& paths, const std::string& gpu,
                          std::optional<std::int32_t> rank, unsigned threads);
  // `ampscope merge`: the job from rank results (each an `analyze --json` or merge document).
  static Analysis merge(const std::vector<cli::ResultDocument>& documents);

  bool isJob() const { return analysis_.job.has_value(); }
  // `analyze --json`.
  std::string json(std::size_t top) const;
  // The table's CSV text; a job has ranks, collectives, recommendations (with their ranks) and
  // every rank's layers, operators and kernels after a leading rank column; a rank's iterations
  // come from rank(N).
  std::string tableCsv(Table table) const;
  // `report --out DIR`; returns the names of the files written.
  std::string writeReport(const std::string& out_dir, std::size_t top) const;
  // Of a job: rank N's complete analysis (its trace read again).
  Analysis rank(std::int32_t rank) const;
  // The compact result of one run that merge reads back (the map step's output).
  std::string rankResultJson() const;

 private:
  explicit Analysis(cli::CliAnalysis analysis, analyzer::AnalysisOptions options)
      : analysis_(std::move(analysis)), options_(std::move(options)) {}

  cli::CliAnalysis analysis_;
  analyzer::AnalysisOptions options_;
};

// `ampscope diff A B --json [--gpu GPU]`.
std::string diffJson(const std::string& baseline, const std::string& candidate, const std::string& gpu);

// `ampscope analyze|report|diff|merge|export ARGS...` with the CLI's own parser and messages; argv[0] is
// the program's name. Writes to the process's stdout and stderr; returns the exit code.
int runCommandLine(const std::vector<std::string>& argv);

}  // namespace ampscope::python
