#pragma once
// The text `ampscope analyze` prints for a job of several ranks: the job line, the per-rank table
// (steady step split into compute, exposed communication, data and idle; the wait at collectives;
// stragglers marked), the slowest rank and why, the job's collectives, notes and recommendations.

#include <cstddef>
#include <string>

#include "analyzer/job/job_analysis.h"

namespace ampscope::cli {

// top: how many collective families to list (the analysis holds them all).
std::string jobToText(const analyzer::JobAnalysis& job, std::size_t top);

}  // namespace ampscope::cli
