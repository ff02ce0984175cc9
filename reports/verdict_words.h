#pragma once
// The words every view writes for a kernel's Tensor Core verdict (analyzer::TensorCoreUse: yes,
// no, unknown, host), so that the text summary, report.md, report.html, the CSVs, report.json,
// the Perfetto export and the GUI say the same of the same kernel. A precision is written by
// analyzer::precisionName everywhere, "unknown" included: no view leaves an unknown precision blank
// (docs/reports.md, "Encoding").

#include <optional>
#include <string>
#include <string_view>

#include "analyzer/core/tensor_core_verdict.h"

namespace ampscope::reports {

// "yes", "no", "unknown", "host" (a host op of a CPU run: no Tensor Core question to answer).
std::string_view tensorCoreCell(analyzer::TensorCoreUse use);
// True or false where the verdict says; nullopt for an unknown verdict and for a host op (a JSON
// null, an empty CSV cell).
std::optional<bool> tensorCoreFlag(analyzer::TensorCoreUse use);
// The text summary's short column beside a kernel: "TC FP16" on Tensor Cores, "TC?" unknown,
// "host", "" (not on Tensor Cores: the column stays quiet for the common case).
std::string tensorCoreBrief(const analyzer::TensorCoreVerdict& verdict);

}  // namespace ampscope::reports
