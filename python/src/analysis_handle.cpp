#include "python/src/analysis_handle.h"

#include <array>
#include <iostream>
#include <sstream>
#include <utility>

#include <CLI/CLI.hpp>

#include "cli/analysis_commands.h"
#include "cli/analyze_command.h"
#include "cli/command_line_errors.h"
#include "cli/diff_command.h"
#include "reports/csv_reports.h"
#include "reports/job_json.h"
#include "reports/job_report.h"
#include "reports/report_json.h"
#include "reports/report_writer.h"

namespace ampscope::python {

namespace {

constexpr std::array<std::pair<std::string_view, Table>, 10> kTables{{
    {"layers", Table::kLayers},
    {"operators", Table::kOperators},
    {"kernels", Table::kKernels},
    {"recommendations", Table::kRecommendations},
    {"iterations", Table::kIterations},
    {"ranks", Table::kRanks},
    {"collectives", Table::kCollectives},
    {"memory", Table::kMemory},
    {"memory_peak", Table::kMemoryPeak},
    {"counters", Table::kCounters},
}};

// The CLI writes "ampscope: MESSAGE\n" to its error stream; Python gets MESSAGE.
std::string messageOf(const std::ostringstream& err) {
  std::string text = err.str();
  constexpr std::string_view kPrefix = "ampscope: ";
  if (text.starts_with(kPrefix)) text.erase(0, kPrefix.size());
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text.empty() ? "the analysis failed without a message" : text;
}

void checkGpu(const std::string& gpu) {
  if (gpu.empty()) return;
  if (std::string problem = cli::checkGpuName(gpu); !problem.empty()) throw InputError("--gpu: " + problem);
}

}  // namespace

std::optional<Table> tableNamed(std::string_view name) {
  for (const auto& [table_name, table] : kTables) {
    if (table_name == name) return table;
  }
  return std::nullopt;
}

std::string tableNames() {
  std::string names;
  for (const auto& [table_name, table] : kTables) names += (names.empty() ? "" : ", ") + std::string(table_name);
  return names;
}

Analysis Analysis::analyze(const std::vector<std::string>& paths, const std::string& gpu,
                           std::optional<std::int32_t> rank, unsigned threads) {
  if (paths.empty()) throw InputError("no trace given");
  checkGpu(gpu);
  const cli::InputOptions input{.save_profile = {}, .analysis = {gpu, threads}, .rank = rank};
  std::ostringstream err;
  int exit_code = 0;
  auto analysis = cli::analyzeInputsForCli(paths, input, err, exit_code);
  if (!analysis) throw InputError(messageOf(err));
  return Analysis(std::move(*analysis), input.analysis);
}

Analysis Analysis::merge(const std::vector<cli::ResultDocument>& documents) {
  if (documents.empty()) throw InputError("no rank results given");
  auto job = cli::mergeResultDocuments(documents);
  if (!job) throw InputError(job.error().message);
  cli::CliAnalysis analysis;
  analysis.job = std::move(job).value();
  return Analysis(std::move(analysis), {});
}

std::string Analysis::json(std::size_t top) const { return cli::analysisJson(analysis_, top); }

std::string Analysis::tableCsv(Table table) const {
  if (isJob()) {
    const analyzer::JobAnalysis& job = *analysis_.job;
    switch (table) {
      case Table::kRanks: return reports::ranksCsv(job);
      case Table::kCollectives: return reports::collectivesCsv(job.collectives);
      case Table::kRecommendations: return reports::jobRecommendationsCsv(job.recommendations);
      // Every rank's rows, after a leading rank column (the job report's CSVs).
      case Table::kLayers: return reports::layersCsv(job.rank_results);
      case Table::kOperators: return reports::opsCsv(job.rank_results);
      case Table::kKernels: return reports::kernelsCsv(job.rank_results);
      case Table::kIterations:
        throw std::invalid_argument("a job of " + std::to_string(job.ranks.size()) +
                                    " ranks has no iterations table of its own: its steps are in summary[\"steps\"], "
                                    "a rank's iterations in run.rank(N)");
      case Table::kMemory:
      case Table::kMemoryPeak:
        throw std::invalid_argument("a job of " + std::to_string(job.ranks.size()) +
                                    " ranks has no memory table of its own: a rank's memory is in run.rank(N)");
      case Table::kCounters:
        throw std::invalid_argument("a job of " + std::to_string(job.ranks.size()) +
                                    " ranks has no counters table of its own: a rank's counters are in run.rank(N)");
    }
  }
  const analyzer::RunAnalysis& run = *analysis_.run;
  switch (table) {
    case Table::kLayers: return reports::layersCsv(run.summary);
    case Table::kOperators: return reports::opsCsv(run.summary);
    case Table::kKernels: return reports::kernelsCsv(run.summary);
    case Table::kRecommendations: return reports::recommendationsCsv(run.recommendations);
    case Table::kIterations: return reports::iterationsCsv(run.summary);
    case Table::kCollectives: return reports::collectivesCsv(run.summary.communication.collectives);
    case Table::kMemory: return reports::memoryCsv(run.summary.memory);
    case Table::kMemoryPeak: return reports::memoryPeakCsv(run.summary.memory);
    case Table::kCounters: return reports::countersCsv(run.summary.counters);
    case Table::kRanks: {
      // One run is a job of one rank.
      auto job = analyzer::analyzeJob({analysis_.rank_result});
      if (!job) throw InputError(job.error().message);
      return reports::ranksCsv(*job);
    }
  }
  return {};
}

std::string Analysis::writeReport(const std::string& out_dir, std::size_t top) const {
  if (isJob()) {
    if (trace::Status written = reports::writeJobReport(*analysis_.job, out_dir, top); !written) {
      throw std::runtime_error(written.error().message);
    }
    return reports::kJobReportFiles;
  }
  const analyzer::RunAnalysis& run = *analysis_.run;
  if (trace::Status written = reports::writeReport(run.summary, run.recommendations, out_dir, top); !written) {
    throw std::runtime_error(written.error().message);
  }
  return reports::kReportFiles;
}

Analysis Analysis::rank(std::int32_t rank) const {
  std::ostringstream err;
  int exit_code = 0;
  if (!isJob()) {
    // As `analyze TRACE --rank N` of one run: it is that rank, or an error naming its own.
    return analyze({analysis_.run->path}, options_.gpu, rank, 1);
  }
  auto one = cli::rankOfJobForCli(*analysis_.job, rank, options_, err, exit_code);
  if (!one) throw InputError(messageOf(err));
  return Analysis(std::move(*one), options_);
}

std::string Analysis::rankResultJson() const {
  if (isJob()) throw std::invalid_argument("a job's rank results are in its summary's rank_results");
  return reports::formatJsonDocument(reports::rankResultToJson(analysis_.rank_result));
}

std::string diffJson(const std::string& baseline, const std::string& candidate, const std::string& gpu) {
  checkGpu(gpu);
  const cli::DiffOptions options{.baseline_path = baseline, .candidate_path = candidate, .json = true, .gpu = gpu};
  std::ostringstream out;
  std::ostringstream err;
  if (cli::runDiff(options, out, err) != 0) throw InputError(messageOf(err));
  return out.str();
}

int runCommandLine(const std::vector<std::string>& argv) {
  CLI::App app{cli::kAppDescription};
  cli::configureApp(app);
  cli::AnalysisCommands commands;
  cli::addAnalysisCommands(app, commands);
  std::vector<const char*> pointers;
  for (const std::string& word : argv) pointers.push_back(word.c_str());
  const int argc = static_cast<int>(pointers.size());
  if (const auto done = cli::parseCommandLine(app, argc, pointers.data(), std::cout, std::cerr)) return *done;
  const int code = cli::runAnalysisCommand(commands, std::cout, std::cerr).value_or(1);
  std::cout.flush();
  return code;
}

}  // namespace ampscope::python
