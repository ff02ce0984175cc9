#include "reports/csv_reports.h"

#include <algorithm>
#include <optional>
#include <set>

#include "reports/csv_writer.h"
#include "reports/report_file.h"
#include "reports/report_rows.h"
#include "reports/verdict_words.h"

namespace ampscope::reports {

namespace {

// The columns of recommendations.csv, and for a job a last one: the ranks each applies to.
std::string recommendationRowsCsv(const std::vector<analyzer::Recommendation>& recommendations, bool with_ranks) {
  std::vector<std::string> header = {"rule", "severity", "target", "evidence", "action", "estimated_gain_ns",
                                     "estimated_gain_pct"};
  if (with_ranks) header.emplace_back("ranks");
  CsvWriter csv(std::move(header));
  for (const analyzer::Recommendation& r : recommendations) {
    csv.add(r.rule).add(analyzer::severityName(r.severity)).add(r.target).add(r.evidence).add(r.action);
    csv.add(r.estimated_gain_ns).add(r.estimated_gain_pct);
    if (with_ranks) {
      std::string ranks;
      for (std::int32_t rank : r.ranks) ranks += (ranks.empty() ? "" : ";") + std::to_string(rank);
      csv.add(ranks);
    }
    csv.endRow();
  }
  return csv.text();
}

}  // namespace

std::string recommendationsCsv(const std::vector<analyzer::Recommendation>& recommendations) {
  return recommendationRowsCsv(recommendations, false);
}

std::string jobRecommendationsCsv(const std::vector<analyzer::Recommendation>& recommendations) {
  return recommendationRowsCsv(recommendations, true);
}

namespace {

std::vector<std::string> withPerformanceColumns(std::vector<std::string> header) {
  header.insert(header.end(), kPerformanceColumns.begin(), kPerformanceColumns.end());
  return header;
}

void addCells(CsvWriter& csv, const std::vector<std::string>& cells) {
  for (const std::string& cell : cells) csv.add(cell);
}

// The tensor pipe's measured share of a kernel or layer row and the time it covers
// (KernelRow/LayerRow::measured_tensor_active), the last columns of kernels.csv and layers.csv:
// both empty where the row was not measured.
const std::vector<std::string> kMeasuredColumns = {"measured_tensor_active", "measured_tensor_ns"};

// Empty where nothing was measured: unknown, not 0.
template <typename Line>
void addMeasuredCells(CsvWriter& csv, const Line& line) {
  if (!line.measured_tensor_active) {
    csv.add(std::string_view()).add(std::string_view());
    return;
  }
  csv.add(rateCell(line.measured_tensor_active)).add(line.measured_tensor_ns);
}

std::vector<std::string> withMeasuredColumns(std::vector<std::string> header) {
  header.insert(header.end(), kMeasuredColumns.begin(), kMeasuredColumns.end());
  return header;
}

std::vector<std::string> layersHeader() {
  std::vector<std::string> header = withPerformanceColumns({"layer", "op", "phase", "calls", "gpu_time_ns",
                                                            "tensor_core_time_ns", "eligible", "precision", "shapes",
                                                            "violations"});
  header.insert(header.end(), {"what_if_fp32_ns", "what_if_amp_ns", "what_if_padding_cost_ns"});
  return withMeasuredColumns(std::move(header));
}

void addLayerCells(CsvWriter& csv, const analyzer::LayerLine& line, const analyzer::RankTables& tables) {
  const LayerCells cells = layerCellsOf(line, tables.layers_are_operators);
  csv.add(cells.layer).add(cells.op).add(cells.phase).add(line.calls).add(line.time_ns);
  // A CPU run has no Tensor Core time to give: empty (not known), not 0.
  if (tables.recorded_on_cpu) {
    csv.add(std::string_view());
  } else {
    csv.add(line.tensor_core_time_ns);
  }
  csv.addBool(line.eligible).add(cells.precision).add(cells.shapes);
  csv.add(cells.violations);
  addCells(csv, performanceCells(line.performance));
  // Model estimates on the what-if device, per step; empty where the row has none (no what-if
  // device, or none of its ops' work is known), so a padding cost of 0 is a real 0.
  csv.add(countCell(line.what_if_fp32_ns)).add(countCell(line.what_if_amp_ns));
  csv.add(line.what_if_amp_ns ? countCell(std::optional<double>(line.what_if_padding_cost_ns)) : std::string());
  addMeasuredCells(csv, line);
}

std::vector<std::string> kernelsHeader() {
  std::vector<std::string> header = withPerformanceColumns({"name", "calls", "gpu_time_ns", "tensor_cores", "precision",
                                                            "rule", "confidence", "alignment"});
  header.emplace_back("verdict");
  return withMeasuredColumns(std::move(header));
}

void addKernelCells(CsvWriter& csv, const analyzer::KernelLine& row) {
  csv.add(row.name).add(row.calls).add(row.time_ns);
  // An unknown verdict is not "false", and a host op has no Tensor Core to use: both empty, and
  // the verdict column tells them apart.
  const std::optional<bool> on_tensor_cores = tensorCoreFlag(row.tensor_core);
  if (on_tensor_cores) {
    csv.addBool(*on_tensor_cores);
  } else {
    csv.add(std::string_view());
  }
  csv.add(analyzer::precisionName(row.precision)).add(row.rule);
  csv.add(analyzer::confidenceName(row.confidence));
  // 0 means the name states no alignment: leave the cell empty rather than claim "0".
  if (row.alignment > 0) {
    csv.add(static_cast<std::int64_t>(row.alignment));
  } else {
    csv.add(std::string_view());
  }
  addCells(csv, performanceCells(row.performance));
  csv.add(analyzer::tensorCoreUseName(row.tensor_core));
  addMeasuredCells(csv, row);
}

std::vector<std::string> opsHeader() {
  return {"op", "shapes", "arguments", "layer", "phase", "class", "calls", "kernels", "gpu_time_ns",
          "precision", "flops_per_call", "bytes_per_call", "work_basis", "work_note", "gemm_m", "gemm_n",
          "gemm_k", "gemm_batch", "achieved_tflops", "achieved_gbs", "peak_tflops", "intensity", "bound",
          "rate_note", "amp", "predicted_amp_ns", "amp_speedup", "tf32_speedup", "amp_note"};
}

void addOpCells(CsvWriter& csv, const analyzer::OpLine& row) {
  csv.add(row.op).add(row.shapes).add(row.arguments).add(row.layer).add(trace::phaseName(row.pass));
  csv.add(analyzer::opClassName(row.op_class)).add(row.calls).add(row.kernels).add(row.time_ns);
  csv.add(analyzer::precisionName(row.precision));
  csv.add(countCell(row.flops_per_call)).add(countCell(row.bytes_per_call));
  csv.add(analyzer::workBasisName(row.work_basis)).add(row.work_note);
  if (row.gemm) {
    csv.add(row.gemm->m).add(row.gemm->n).add(row.gemm->k).add(row.gemm->batch);
  } else {
    for (int i = 0; i < 4; ++i) csv.add(std::string_view());
  }
  csv.add(rateCell(row.achieved_tflops)).add(rateCell(row.achieved_gbs));
  csv.add(row.peak_tflops > 0 ? rateCell(row.peak_tflops) : std::string());
  csv.add(rateCell(row.intensity)).add(analyzer::roofBoundName(row.bound)).add(row.rate_note);
  csv.add(analyzer::ampChangeName(row.amp)).add(countCell(row.predicted_amp_ns));
  // Without a prediction the speedups are the model's defaults (1), not findings: empty.
  csv.add(row.predicted_amp_ns ? rateCell(row.amp_speedup) : std::string());
  csv.add(row.predicted_amp_ns ? rateCell(row.tf32_speedup) : std::string());
  csv.add(row.amp_note);
}

std::vector<std::string> withRankColumn(std::vector<std::string> header) {
  header.insert(header.begin(), "rank");
  return header;
}

// One table of one rank, or of every rank with the rank first: the same cells either way.
template <typename Rows, typename AddCells>
std::string tableCsv(std::vector<std::string> header, const Rows& rows, AddCells add_cells) {
  CsvWriter csv(std::move(header));
  for (const auto& row : rows) {
    add_cells(csv, row);
    csv.endRow();
  }
  return csv.text();
}

template <typename RowsOf, typename AddCells>
std::string rankedTableCsv(std::vector<std::string> header, const std::vector<analyzer::RankResult>& ranks,
                           RowsOf rows_of, AddCells add_cells) {
  CsvWriter csv(withRankColumn(std::move(header)));
  for (const analyzer::RankResult& rank : ranks) {
    for (const auto& row : rows_of(rank.tables)) {
      csv.add(static_cast<std::int64_t>(rank.rank));
      add_cells(csv, row, rank.tables);
      csv.endRow();
    }
  }
  return csv.text();
}

}  // namespace

std::string layersCsv(const analyzer::TraceSummary& summary) {
  analyzer::RankTables tables{.recorded_on_cpu = summary.recorded_on_cpu,
                              .layers_are_operators = summary.layer_table.groups_operators,
                              .kernels = {},
                              .layers = analyzer::layerLines(summary),
                              .ops = {}};
  return tableCsv(layersHeader(), tables.layers,
                  [&](CsvWriter& csv, const analyzer::LayerLine& line) { addLayerCells(csv, line, tables); });
}

std::string kernelsCsv(const analyzer::TraceSummary& summary) {
  return tableCsv(kernelsHeader(), analyzer::kernelLines(summary), addKernelCells);
}

std::string opsCsv(const analyzer::TraceSummary& summary) {
  return tableCsv(opsHeader(), analyzer::opLines(summary), addOpCells);
}

std::string layersCsv(const std::vector<analyzer::RankResult>& ranks) {
  return rankedTableCsv(
      layersHeader(), ranks, [](const analyzer::RankTables& t) -> const auto& { return t.layers; },
      [](CsvWriter& csv, const analyzer::LayerLine& line, const analyzer::RankTables& tables) {
        addLayerCells(csv, line, tables);
      });
}

std::string kernelsCsv(const std::vector<analyzer::RankResult>& ranks) {
  return rankedTableCsv(
      kernelsHeader(), ranks, [](const analyzer::RankTables& t) -> const auto& { return t.kernels; },
      [](CsvWriter& csv, const analyzer::KernelLine& row, const analyzer::RankTables&) { addKernelCells(csv, row); });
}

std::string opsCsv(const std::vector<analyzer::RankResult>& ranks) {
  return rankedTableCsv(
      opsHeader(), ranks, [](const analyzer::RankTables& t) -> const auto& { return t.ops; },
      [](CsvWriter& csv, const analyzer::OpLine& row, const analyzer::RankTables&) { addOpCells(csv, row); });
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

std::string memoryCsv(const analyzer::MemoryAnalysis& memory) {
  CsvWriter csv({"device_kind", "device", "time_ns", "allocated_bytes", "reserved_bytes"});
  for (const analyzer::DeviceMemory& d : memory.devices) {
    for (const analyzer::MemorySample& sample : d.timeline) {
      csv.add(trace::deviceKindName(d.kind)).add(static_cast<std::uint64_t>(d.device)).add(sample.time_ns);
      csv.add(sample.allocated_bytes);
      // Not recorded is an empty field; 0 reserved is a figure.
      if (sample.reserved_bytes >= 0) {
        csv.add(sample.reserved_bytes);
      } else {
        csv.add(std::string_view());
      }
      csv.endRow();
    }
  }
  return csv.text();
}

std::string memoryPeakCsv(const analyzer::MemoryAnalysis& memory) {
  CsvWriter csv({"device_kind", "device", "breakdown", "category", "layer", "pass", "bytes", "blocks"});
  const auto addLayers = [&](const analyzer::DeviceMemory& d, std::string_view breakdown,
                             const std::vector<analyzer::LayerBytes>& layers) {
    for (const analyzer::LayerBytes& layer : layers) {
      csv.add(trace::deviceKindName(d.kind)).add(static_cast<std::uint64_t>(d.device)).add(breakdown);
      csv.add(std::string_view()).add(layer.layer).add(trace::phaseName(layer.pass)).add(layer.bytes).add(layer.blocks);
      csv.endRow();
    }
  };
  for (const analyzer::DeviceMemory& d : memory.devices) {
    for (const analyzer::CategoryBytes& c : d.peak_by_category) {
      csv.add(trace::deviceKindName(d.kind)).add(static_cast<std::uint64_t>(d.device)).add("category");
      csv.add(analyzer::memoryCategoryName(c.category)).add(std::string_view()).add(std::string_view());
      csv.add(c.bytes).add(std::string_view());
      csv.endRow();
    }
    addLayers(d, "layer", d.peak_by_layer);
    addLayers(d, "saved_for_backward", d.saved_for_backward_by_layer);
  }
  return csv.text();
}

std::string countersCsv(const analyzer::CounterAnalysis& counters) {
  // The metrics recorded, by name, one column each after the fixed ones: which metrics a trace
  // has depends on its tool and its settings.
  std::set<std::string> metrics;
  for (const analyzer::KernelCounterRow& row : counters.kernels) {
    for (const analyzer::MetricTotal& total : row.totals) metrics.insert(total.metric);
  }
  std::vector<std::string> header = {"kernel", "ranges", "matched", "gpu_time_ns", "tensor_active", "measured_ns",
                                     "source", "basis", "cuda_core_fp16_ops", "cuda_core_fp32_ops",
                                     "cuda_core_fp64_ops"};
  header.insert(header.end(), metrics.begin(), metrics.end());
  CsvWriter csv(std::move(header));
  for (const analyzer::KernelCounterRow& row : counters.kernels) {
    csv.add(row.kernel).add(row.ranges).add(row.matched).add(row.time_ns);
    csv.add(rateCell(row.tensor_active)).add(row.measured_ns);
    csv.add(analyzer::measurementSourceName(row.source)).add(row.basis);
    if (row.cuda_core_ops) {
      csv.add(row.cuda_core_ops->fp16).add(row.cuda_core_ops->fp32).add(row.cuda_core_ops->fp64);
    } else {
      for (int i = 0; i < 3; ++i) csv.add(std::string_view());
    }
    // Empty where this kernel's ranges did not record the metric: not recorded is not 0.
    for (const std::string& metric : metrics) {
      const auto total = std::find_if(row.totals.begin(), row.totals.end(),
                                      [&](const analyzer::MetricTotal& t) { return t.metric == metric; });
      if (total == row.totals.end()) {
        csv.add(std::string_view());
      } else {
        csv.add(total->total);
      }
    }
    csv.endRow();
  }
  return csv.text();
}

std::string collectivesCsv(const std::vector<analyzer::CollectiveRow>& rows) {
  CsvWriter csv({"name", "kind", "element", "group_size", "calls", "gpu_time_ns", "calls_with_bytes", "bytes", "algbw_gbps",
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
trace::Status writeMemoryCsvs(const analyzer::TraceSummary& summary, const std::filesystem::path& dir) {
  if (trace::Status written = writeReportFile(dir, "memory.csv", memoryCsv(summary.memory)); !written.ok()) return written;
  return writeReportFile(dir, "memory_peak.csv", memoryPeakCsv(summary.memory));
}
trace::Status writeCountersCsv(const analyzer::TraceSummary& summary, const std::filesystem::path& dir) {
  return writeReportFile(dir, "counters.csv", countersCsv(summary.counters));
}
trace::Status writeCollectivesCsv(const analyzer::TraceSummary& summary, const std::filesystem::path& dir) {
  return writeReportFile(dir, "collectives.csv", collectivesCsv(summary.communication.collectives));
}

}  // namespace ampscope::reports
