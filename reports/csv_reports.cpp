#include "reports/csv_reports.h"

#include "reports/csv_writer.h"
#include "reports/report_file.h"
#include "reports/report_rows.h"

namespace ampscope::reports {

std::string recommendationsCsv(const std::vector<analyzer::Recommendation>& recommendations) {
  CsvWriter csv({"rule", "severity", "target", "evidence", "action", "estimated_gain_ns",
                 "estimated_gain_pct"});
  for (const analyzer::Recommendation& r : recommendations) {
    csv.add(r.rule).add(analyzer::severityName(r.severity)).add(r.target).add(r.evidence).add(r.action);
    csv.add(r.estimated_gain_ns).add(r.estimated_gain_pct).endRow();
  }
  return csv.text();
}

std::string layersCsv(const analyzer::TraceSummary& summary) {
  CsvWriter csv({"layer", "op", "phase", "calls", "gpu_time_ns", "tensor_core_time_ns", "eligible",
                 "precision", "shapes", "violations"});
  for (const LayerCells& cells : layerCells(summary)) {
    csv.add(cells.layer).add(cells.op).add(cells.phase).add(cells.row->calls).add(cells.row->time_ns);
    // A CPU run has no Tensor Core time to give: empty (not known), not 0.
    if (summary.recorded_on_cpu) {
      csv.add(std::string_view());
    } else {
      csv.add(cells.row->tensor_core_time_ns);
    }
    csv.add(cells.eligible).add(cells.precision).add(cells.shapes);
    csv.add(cells.violations).endRow();
  }
  return csv.text();
}

std::string kernelsCsv(const analyzer::TraceSummary& summary) {
  CsvWriter csv({"name", "calls", "total_ns", "tensor_cores", "precision", "rule", "confidence",
                 "alignment"});
  for (const analyzer::KernelRow& row : summary.kernels) {
    csv.add(row.name).add(row.calls).add(row.time_ns);
    // A host op has no Tensor Core verdict: empty (not known), not "false".
    if (row.verdict.host) {
      csv.add(std::string_view());
    } else {
      csv.addBool(row.verdict.tensor_core);
    }
    csv.add(analyzer::precisionName(row.verdict.precision)).add(row.verdict.rule_id);
    csv.add(analyzer::confidenceName(row.verdict.confidence));
    // 0 means the name states no alignment: leave the cell empty rather than claim "0".
    if (row.verdict.alignment > 0) {
      csv.add(static_cast<std::int64_t>(row.verdict.alignment));
    } else {
      csv.add(std::string_view());
    }
    csv.endRow();
  }
  return csv.text();
}

std::string iterationsCsv(const analyzer::TraceSummary& summary) {
  CsvWriter csv({"number", "start_ns", "duration_ns", "warmup", "data_exposed_ns"});
  const std::vector<analyzer::Iteration>& steps = summary.iterations.iterations;
  const std::vector<std::int64_t>& exposed = summary.data_pipeline.exposed_ns;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    csv.add(steps[i].number).add(steps[i].start_ns).add(steps[i].durationNs()).addBool(steps[i].warmup);
    // Exposure is measured only where iterations were found with a data pipeline to measure.
    if (i < exposed.size()) {
      csv.add(exposed[i]);
    } else {
      csv.add(std::string_view());
    }
    csv.endRow();
  }
  return csv.text();
}

trace::Status writeRecommendationsCsv(const std::vector<analyzer::Recommendation>& recommendations,
                                      const std::filesystem::path& dir) {
  return writeReportFile(dir, "recommendations.csv", recommendationsCsv(recommendations));
}
trace::Status writeLayersCsv(const analyzer::TraceSummary& summary, const std::filesystem::path& dir) {
  return writeReportFile(dir, "layers.csv", layersCsv(summary));
}
trace::Status writeKernelsCsv(const analyzer::TraceSummary& summary, const std::filesystem::path& dir) {
  return writeReportFile(dir, "kernels.csv", kernelsCsv(summary));
}
trace::Status writeIterationsCsv(const analyzer::TraceSummary& summary, const std::filesystem::path& dir) {
  return writeReportFile(dir, "iterations.csv", iterationsCsv(summary));
}

}  // namespace ampscope::reports
