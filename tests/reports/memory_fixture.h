#pragma once
// A memory analysis built in code, as analyzer/memory/ would fill it, for the views' tests: GPU 0
// (measured totals, addresses) peaking at 3 GiB allocated and 3.5 GiB reserved in step 1, 2 ms after
// the step began, beside a host device; an AMP projection that lets batch 32 grow from 40 to 72 in
// 80 GiB.

#include <cstdint>

#include "analyzer/summary/trace_summary.h"

namespace ampscope::test {

inline constexpr std::int64_t kGiB = 1024LL * 1024 * 1024;
inline constexpr std::int64_t kMemoryStartNs = 1'000'000'000;

inline analyzer::MemoryAnalysis memoryFixture() {
  using analyzer::MemoryCategory;
  analyzer::DeviceMemory gpu;
  gpu.kind = trace::DeviceKind::kGpu;
  gpu.device = 0;
  gpu.name = "NVIDIA H100 80GB HBM3";
  gpu.capacity_bytes = 80ULL * kGiB;
  gpu.events = 4;
  gpu.timeline = {{kMemoryStartNs, 1 * kGiB, 2 * kGiB},
                  {kMemoryStartNs + 1'000'000, 2 * kGiB, 3 * kGiB},
                  {kMemoryStartNs + 3'000'000, 3 * kGiB, 3 * kGiB + kGiB / 2},
                  {kMemoryStartNs + 4'000'000, kGiB + kGiB / 2, 3 * kGiB + kGiB / 2}};
  gpu.peak_allocated_bytes = 3 * kGiB;
  gpu.peak_reserved_bytes = 3 * kGiB + kGiB / 2;
  gpu.peak_at_ns = kMemoryStartNs + 3'000'000;
  gpu.peak_step = 1;
  gpu.peak_by_category = {{MemoryCategory::kActivations, 2 * kGiB},
                          {MemoryCategory::kPersistent, kGiB},
                          {MemoryCategory::kAllocatorSlack, kGiB / 2}};
  gpu.peak_by_layer = {{"blocks.0.attn", trace::Phase::kForward, 3 * kGiB / 2, 12},
                       {"blocks.0.mlp", trace::Phase::kForward, kGiB, 8},
                       {"", trace::Phase::kUnknown, kGiB / 2, 1}};
  gpu.steps = {{0, 2 * kGiB, kMemoryStartNs + 1'000'000, kGiB}, {1, 3 * kGiB, kMemoryStartNs + 3'000'000, 2 * kGiB}};
  gpu.saved_for_backward_by_layer = {{"blocks.0.attn", trace::Phase::kForward, kGiB, 6}};
  analyzer::DeviceMemory host;
  host.kind = trace::DeviceKind::kCpu;
  host.device = 0;
  host.totals = analyzer::MemoryTotals::kReconstructed;
  host.matching = analyzer::BlockMatching::kBySize;
  host.events = 2;
  host.timeline = {{kMemoryStartNs + 500'000, 4096, -1}, {kMemoryStartNs + 600'000, 0, -1}};
  host.peak_allocated_bytes = 4096;
  host.peak_at_ns = kMemoryStartNs + 500'000;
  analyzer::MemoryAnalysis memory;
  memory.devices = {gpu, host};
  memory.primary = 0;
  analyzer::AmpMemoryProjection& amp = memory.amp;
  amp.applies = true;
  amp.note = "FP32 weights kept";
  amp.device = 0;
  amp.measured_peak_allocated_bytes = 3 * kGiB;
  amp.projected_peak_allocated_bytes = 2 * kGiB;
  amp.cast_copy_bytes = kGiB / 4;
  amp.measured_by_category = {{MemoryCategory::kActivations, 2 * kGiB}, {MemoryCategory::kPersistent, kGiB}};
  amp.projected_by_category = {{MemoryCategory::kActivations, kGiB}, {MemoryCategory::kPersistent, kGiB}};
  amp.batch = 32;
  amp.fit_capacity_bytes = 80ULL * kGiB;
  amp.fit_device = "NVIDIA H100 80GB HBM3";
  amp.batch_that_fits = 40;
  amp.amp_batch_that_fits = 72;
  return memory;
}

// A summary holding the fixture, with the two steps it falls in (step 1 from 1 ms).
inline analyzer::TraceSummary summaryWithMemory() {
  analyzer::TraceSummary s;
  s.iterations.iterations = {{0, kMemoryStartNs, kMemoryStartNs + 1'000'000, false, kMemoryStartNs, kMemoryStartNs + 1'000'000},
                             {1, kMemoryStartNs + 1'000'000, kMemoryStartNs + 5'000'000, false, kMemoryStartNs + 1'000'000,
                              kMemoryStartNs + 5'000'000}};
  s.iterations.steady_mean_ns = 2'500'000;
  s.memory = memoryFixture();
  return s;
}

}  // namespace ampscope::test
