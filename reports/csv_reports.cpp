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

namespace {

std::vector<std::string> withPerformanceColumns(std::vector<std::string> header) {
  header.insert(header.end(), kPerformanceColumns.begin(), kPerformanceColumns.end());
  return header;
}

void addCells(CsvWriter& csv, const std::vector<std::string>& cells) {
  for (const std::string& cell : cells) csv.add(cell);
}

}  // namespace

std::string layersCsv(const analyzer::TraceSummary& summary) {
  std::vector<std::string> header = withPerformanceColumns({"layer", "op", "phase", "calls", "gpu_time_ns",
                                                            "tensor_core_time_ns", "eligible", "precision", "shapes",
                                                            "violations"});
  header.insert(header.end(), {"what_if_fp32_ns", "what_if_amp_ns", "what_if_padding_cost_ns"});
  CsvWriter csv(std::move(header));
  for (const LayerCells& cells : layerCells(summary)) {
    const analyzer::LayerRow& row = *cells.row;
    csv.add(cells.layer).add(cells.op).add(cells.phase).add(row.calls).add(row.time_ns);
    // A CPU run has no Tensor Core time to give: empty (not known), not 0.
    if (summary.recorded_on_cpu) {
      csv.add(std::string_view());
    } else {
      csv.add(row.tensor_core_time_ns);
    }
    csv.add(cells.eligible).add(cells.precision).add(cells.shapes);
    csv.add(cells.violations);
    addCells(csv, performanceCells(row.performance));
    // Model estimates on the what-if device, per step; empty where the row has none (no what-if
    // device, or none of its ops' work is known), so a padding cost of 0 is a real 0.
    csv.add(countCell(row.what_if_fp32_ns)).add(countCell(row.what_if_amp_ns));
    csv.add(row.what_if_amp_ns ? countCell(std::optional<double>(row.what_if_padding_cost_ns)) : std::string());
    csv.endRow();
  }
  return csv.text();
}

std::string kernelsCsv(const analyzer::TraceSummary& summary) {
  CsvWriter csv(withPerformanceColumns({"name", "calls", "total_ns", "tensor_cores", "precision", "rule",
                                        "confidence", "alignment"}));
  for (const analyzer::KernelRow& row : summary.kernels) {
    csv.add(row.name).add(row.calls).add(row.time_ns);
    // A host op has no Tensor Core verdict, and an unknown one is not "false": both empty.
    if (row.verdict.host || row.verdict.tensor_core == analyzer::TensorCoreUse::kUnknown) {
      csv.add(std::string_view());
    } else {
      csv.addBool(row.verdict.tensor_core == analyzer::TensorCoreUse::kYes);
    }
    csv.add(analyzer::precisionName(row.verdict.precision)).add(row.verdict.rule_id);
    csv.add(analyzer::confidenceName(row.verdict.confidence));
    // 0 means the name states no alignment: leave the cell empty rather than claim "0".
    if (row.verdict.alignment > 0) {
      csv.add(static_cast<std::int64_t>(row.verdict.alignment));
    } else {
      csv.add(std::string_view());
    }
    addCells(csv, performanceCells(row.performance));
    csv.endRow();
  }
  return csv.text();
}

std::string opsCsv(const analyzer::TraceSummary& summary) {
  CsvWriter csv({"op", "shapes", "arguments", "layer", "phase", "class", "calls", "kernels", "gpu_time_ns",
                 "precision", "flops_per_call", "bytes_per_call", "work_basis", "work_note", "gemm_m", "gemm_n",
                 "gemm_k", "gemm_batch", "achieved_tflops", "achieved_gbs", "peak_tflops", "intensity", "bound",
                 "rate_note", "amp", "predicted_amp_ns", "amp_speedup", "tf32_speedup", "amp_note"});
  for (const analyzer::OpRow& row : summary.op_performance.rows) {
    const analyzer::OpWork& w = row.work;
    csv.add(row.op).add(row.shapes).add(row.arguments).add(row.layer).add(trace::phaseName(row.pass));
    csv.add(analyzer::opClassName(row.op_class)).add(row.calls).add(row.kernels).add(row.time_ns);
    csv.add(analyzer::precisionName(row.precision));
    csv.add(countCell(w.flops)).add(countCell(w.bytes)).add(analyzer::workBasisName(w.basis)).add(w.note);
    if (w.gemm) {
      csv.add(w.gemm->m).add(w.gemm->n).add(w.gemm->k).add(w.gemm->batch);
    } else {
      for (int i = 0; i < 4; ++i) csv.add(std::string_view());
    }
    csv.add(rateCell(row.achieved_tflops)).add(rateCell(row.achieved_gbs));
    csv.add(row.peak_tflops > 0 ? rateCell(row.peak_tflops) : std::string());
    csv.add(rateCell(row.intensity)).add(boundCell(row.bound)).add(row.rate_note);
    csv.add(analyzer::ampChangeName(row.amp)).add(countCell(row.predicted_amp_ns));
    // Without a prediction the speedups are the model's defaults (1), not findings: empty.
    csv.add(row.predicted_amp_ns ? rateCell(row.amp_speedup) : std::string());
    csv.add(row.predicted_amp_ns ? rateCell(row.tf32_speedup) : std::string());
    csv.add(row.amp_note);
    csv.endRow();
  }
  return csv.text();
}

std::string iterationsCsv(const analyzer::TraceSummary& summary) {
  CsvWriter csv({"number", "start_ns", "duration_ns", "host_start_ns", "host_duration_ns", "warmup", "data_exposed_ns"});
  const std::vector<analyzer::Iteration>& steps = summary.iterations.iterations;
  const std::vector<std::int64_t>& exposed = summary.data_pipeline.exposed_ns;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    csv.add(steps[i].number).add(steps[i].start_ns).add(steps[i].durationNs());
    csv.add(steps[i].host_start_ns).add(steps[i].host_end_ns - steps[i].host_start_ns).addBool(steps[i].warmup);
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

std::string collectivesCsv(const std::vector<analyzer::CollectiveRow>& rows) {
  CsvWriter csv({"name", "kind", "element", "group_size", "calls", "time_ns", "calls_with_bytes", "bytes", "algbw_gbps",
                 "busbw_gbps"});
  for (const analyzer::CollectiveRow& row : rows) {
    csv.add(row.name).add(analyzer::collectiveKindName(row.kind)).add(analyzer::precisionName(row.element));
    csv.add(row.group_size > 0 ? std::to_string(row.group_size) : std::string());  // empty: not recorded
    csv.add(row.calls).add(row.time_ns).add(row.calls_with_bytes);
    // Empty where no call recorded its message (or the rank count a bus bandwidth needs).
    csv.add(row.calls_with_bytes > 0 ? std::to_string(row.bytes) : std::string());
    csv.add(row.algbw_gbps ? rateCell(*row.algbw_gbps) : std::string());
    csv.add(row.busbw_gbps ? rateCell(*row.busbw_gbps) : std::string());
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
trace::Status writeOpsCsv(const analyzer::TraceSummary& summary, const std::filesystem::path& dir) {
  return writeReportFile(dir, "ops.csv", opsCsv(summary));
}
trace::Status writeIterationsCsv(const analyzer::TraceSummary& summary, const std::filesystem::path& dir) {
  return writeReportFile(dir, "iterations.csv", iterationsCsv(summary));
}
trace::Status writeCollectivesCsv(const analyzer::TraceSummary& summary, const std::filesystem::path& dir) {
  return writeReportFile(dir, "collectives.csv", collectivesCsv(summary.communication.collectives));
}

}  // namespace ampscope::reports
