#pragma once
// What every golden case shares: where the cases live, a file compared with its checked-in copy
// (or written there when updating), and a report made as `ampscope report` makes it, every file
// of which (but report.html) is compared with the case's expected files.
//
// To accept a deliberate change, regenerate the inputs and the expected files, then read the diff:
//   AMPSCOPE_UPDATE_GOLDEN=1 build/tests/golden/golden_tests && git diff tests/golden

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../test_support.h"
#include "cli/exit_codes.h"
#include "cli/report_command.h"

namespace ampscope::golden {

inline const std::filesystem::path kGoldenDir = AMPSCOPE_GOLDEN_DIR;

// The thread counts each report is made with: the analysis promises the same result whatever the
// number (AnalysisOptions::threads), so every file must be the same at each.
inline constexpr unsigned kThreadCounts[] = {1, 3};

inline bool updating() {
  const char* value = std::getenv("AMPSCOPE_UPDATE_GOLDEN");
  return value != nullptr && std::string(value) == "1";
}

// actual compared with the checked-in file, or written there when updating.
inline void expectGolden(const std::string& actual, const std::filesystem::path& expected_path) {
  if (updating()) {
    std::filesystem::create_directories(expected_path.parent_path());
    std::ofstream(expected_path, std::ios::binary) << actual;
    return;
  }
  const std::string expected = test::readFile(expected_path.string());
  ASSERT_FALSE(expected.empty()) << expected_path << " is missing; regenerate with AMPSCOPE_UPDATE_GOLDEN=1";
  EXPECT_EQ(actual, expected) << expected_path << " differs; if the change is meant, regenerate it with "
                              << "AMPSCOPE_UPDATE_GOLDEN=1 and review the diff";
}

// The files a report folder holds, by name, but report.html: a page of the same figures as
// report.json with its charts drawn around them (tests/reports checks its structure).
inline std::map<std::string, std::string> comparedReportFiles(const std::filesystem::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name != "report.html") files[name] = test::readFile(entry.path().string());
  }
  return files;
}

// Whether a file of a case's folder is an expected report file (not one of the case's inputs).
inline bool isExpectedReportFile(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  return path.extension() == ".csv" || name == "report.json" || name == "report.md";
}

// Sets the working directory for one scope: a job's report names its ranks by the paths given,
// which are relative to the case's folder so that no file names the checkout's place.
class WorkingDirectory {
 public:
  explicit WorkingDirectory(const std::filesystem::path& dir) : previous_(std::filesystem::current_path()) {
    std::filesystem::current_path(dir);
  }
  ~WorkingDirectory() { std::filesystem::current_path(previous_); }
  WorkingDirectory(const WorkingDirectory&) = delete;
  WorkingDirectory& operator=(const WorkingDirectory&) = delete;

 private:
  std::filesystem::path previous_;
};

// Runs `ampscope report INPUTS --out DIR --threads N` (cli::runReport) from case_dir, once per
// thread count, and compares every report file with its expected copy in case_dir. Inputs are
// paths relative to case_dir.
inline void expectReportMatchesGolden(const std::filesystem::path& case_dir, const std::vector<std::string>& inputs,
                                      const test::ScratchDir& scratch) {
  std::map<std::string, std::string> first;
  for (const unsigned threads : kThreadCounts) {
    const std::string out_dir = scratch.file("report-threads-" + std::to_string(threads));
    std::ostringstream out;
    std::ostringstream err;
    cli::ReportOptions options;
    options.trace_paths = inputs;
    options.out_dir = out_dir;
    options.threads = threads;
    {
      const WorkingDirectory in_case(case_dir);
      ASSERT_EQ(cli::runReport(options, out, err), cli::kExitOk) << err.str();
    }
    const std::map<std::string, std::string> files = comparedReportFiles(out_dir);
    if (first.empty()) {
      first = files;
      continue;
    }
    for (const auto& [name, text] : files) {
      EXPECT_EQ(text, first[name]) << name << " differs between --threads " << kThreadCounts[0] << " and " << threads;
    }
  }
  ASSERT_FALSE(first.empty());
  for (const auto& [name, text] : first) expectGolden(text, case_dir / name);
  if (updating()) return;
  // An expected file the report no longer writes is stale: say so rather than keep it unchecked.
  for (const auto& entry : std::filesystem::directory_iterator(case_dir)) {
    if (isExpectedReportFile(entry.path()) && !first.contains(entry.path().filename().string())) {
      ADD_FAILURE() << entry.path() << " is expected but the report no longer writes it";
    }
  }
}

}  // namespace ampscope::golden
