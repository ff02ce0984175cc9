#pragma once
// The words every view writes for the hardware counters' figures (analyzer/counters/): the measured
// tensor pipe share beside a verdict, the time a measurement covers, a disagreement between a
// kernel's name and its counters, a sampled series' name. Formatting only: every figure is the
// analysis's (CounterAnalysis, KernelRow/LayerRow::measured_tensor_active); docs/hardware_counters.md
// says where they come from.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "analyzer/counters/counter_analysis.h"

namespace ampscope::reports {

// The column every table puts beside the verdict, in running text and as a heading.
inline constexpr const char* kMeasuredActiveTitle = "tensor pipe active (measured)";
inline constexpr const char* kMeasuredActiveHeading = "Tensor pipe active (measured)";

// "62.3%"; "" where nothing was measured: a blank cell, never 0%.
std::string measuredActiveCell(const std::optional<double>& share);

// "on Tensor Cores", "not on Tensor Cores", "unknown", "a host op": a verdict in a sentence.
std::string_view tensorCoreWords(analyzer::TensorCoreUse use);

// The measured share and the time it covers: "tensor pipe active 62.3% over 1.20 ms of 1.50 ms
// kernel time (80.0% covered): 1.10 ms on Tensor Cores, 100.0 us idle"; where no kernel time was
// measured, "unknown: " and why, with the time that leaves unknown ("no tensor-pipe metric was
// recorded (0 ns of 1.50 ms kernel time covered)").
std::string measuredCoverageText(const analyzer::MeasuredTensorCores& measured);

// The FP operations CUDA cores executed, by precision, those recorded non-zero: "FP32 30.16 GFLOP,
// FP16 9.73 MFLOP"; "none" when every one is 0.
std::string cudaCoreOpsText(const analyzer::CudaCoreOps& ops);

// "ampere_sgemm_128x64_tn: the name says not on Tensor Cores (sgemm, high); the counters say on
// Tensor Cores, tensor pipe 85.0% active (sm__pipe_...); 1.00 ms". `name_width` shortens the
// kernel's name (0: whole).
std::string disagreementText(const analyzer::VerdictDisagreement& disagreement, std::size_t name_width = 0);
// The name's side alone: "not on Tensor Cores (sgemm, high confidence)".
std::string verdictByNameText(const analyzer::TensorCoreVerdict& verdict);

// "per-kernel ranges" / "device-wide samples" / "no tensor pipe share" (counters recorded, none of
// them the tensor pipe's).
std::string_view measurementSourceWords(analyzer::MeasurementSource source);

// A sampled series' name on a timeline: "GPU 0 · Tensor Active [Throughput %]", with " (share)"
// where its points are the 0..1 share rather than the recorded value.
std::string seriesTrackName(const analyzer::MetricSeries& series);

}  // namespace ampscope::reports
