// The memory analysis on small traces written here: one training step whose forward keeps two
// activations for its backward, frees a temporary, and whose backward makes a parameter gradient;
// in the newer Kineto form (addresses and the allocator's totals) and the 2021 form (sizes only).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "analyzer/advice/memory_comparison.h"
#include "analyzer/correlate/iterations.h"
#include "analyzer/job/rank_result.h"
#include "analyzer/memory/memory_analysis.h"
#include "analyzer/summary/trace_summary.h"
#include "imported_trace.h"
#include "trace/trace_model.h"

namespace ampscope::analyzer {
namespace {

constexpr std::int64_t kUs = 1000;
constexpr std::int64_t kBase = 10000;     // allocated before the recording began (newer form)
constexpr std::int64_t kReserved = 20000;

struct Form {
  bool addresses = true;
  bool totals = true;
};

class MemoryTrace {
 public:
  explicit MemoryTrace(Form form) : form_(form) {
    trace_.format = trace::TraceFormat::kKineto;
    trace::Device gpu;
    gpu.name = trace_.strings.intern("NVIDIA H100 80GB HBM3");
    gpu.total_memory_bytes = 1'000'000;
    trace_.devices.push_back(gpu);
    main_ = trace_.threadIndex(1, 1);
    autograd_ = trace_.threadIndex(1, 2);
  }

  MemoryTrace& range(const std::string& name, std::int64_t start_us, std::int64_t end_us, trace::Index thread,
                     const std::string& layer = {}, const std::string& shapes = {}, const std::string& dtypes = {},
                     bool backward = false) {
    trace::Range r;
    r.start_ns = start_us * kUs;
    r.end_ns = end_us * kUs;
    r.name = trace_.strings.intern(name);
    r.thread = thread;
    r.kind = trace::RangeKind::kOperator;
    if (!layer.empty()) r.layer = trace_.strings.intern(layer);
    if (!shapes.empty()) r.shapes = trace_.strings.intern(shapes);
    if (!dtypes.empty()) r.dtypes = trace_.strings.intern(dtypes);
    if (backward) r.fwd_thread_tid = 1;
    trace_.ranges.push_back(r);
    return *this;
  }

  MemoryTrace& event(std::int64_t time_us, std::int64_t bytes, std::uint64_t address, trace::Index thread) {
    trace::MemoryEvent e;
    e.time_ns = time_us * kUs;
    e.bytes = bytes;
    e.thread = thread;
    e.pid = 1;
    if (form_.addresses) e.address = address;
    running_ += bytes;
    if (form_.totals) {
      e.total_allocated = kBase + running_;
      e.total_reserved = kReserved;
    }
    trace_.memory_events.push_back(e);
    return *this;
  }

  // One step: conv1 and act1 keep their outputs for the backward, a softmax frees its temporary,
  // the backward frees them, makes a 200-byte weight gradient and a 100-byte temporary, and the
  // optimizer makes 50 bytes of state.
  MemoryTrace& trainingStep(const std::string& conv_dtypes = R"(["float","float"])") {
    range("ProfilerStep#1", 0, 1000, main_);
    range("aten::conv2d", 10, 100, main_, "conv1", "[[8,3,32,32],[16,3,3,3]]", conv_dtypes);
    event(20, 1000, 0x10, main_);
    range("aten::relu", 110, 125, main_, "act1");
    event(120, 500, 0x20, main_);
    range("aten::softmax", 126, 150, main_, "head");
    event(130, 300, 0x30, main_);
    event(140, -300, 0x30, main_);
    range("ConvolutionBackward0", 300, 400, autograd_, {}, {}, {}, true);
    event(310, 200, 0x40, autograd_);
    event(320, -1000, 0x10, autograd_);
    event(330, -500, 0x20, autograd_);
    event(340, 100, 0x50, autograd_);
    event(350, -100, 0x50, autograd_);
    range("Optimizer.step#SGD.step", 500, 600, main_);
    event(510, 50, 0x60, main_);
    return *this;
  }

  trace::Trace& trace() { return trace_; }

  MemoryAnalysis analyze(const DeviceSpec* fit = nullptr) {
    trace_.sortByTime();
    test::correlateAsImported(trace_);
    return analyzeMemory(trace_, findIterations(trace_), fit);
  }

 private:
  Form form_;
  trace::Trace trace_;
  trace::Index main_ = trace::kNone;
  trace::Index autograd_ = trace::kNone;
  std::int64_t running_ = 0;
};

std::int64_t categoryBytes(const std::vector<CategoryBytes>& parts, MemoryCategory category) {
  for (const CategoryBytes& part : parts) {
    if (part.category == category) return part.bytes;
  }
  return 0;
}

const LayerBytes* layerRow(const std::vector<LayerBytes>& rows, const std::string& layer) {
  for (const LayerBytes& row : rows) {
    if (row.layer == layer) return &row;
  }
  return nullptr;
}

TEST(MemoryAnalysis, TraceWithoutMemoryEventsHasNoDevices) {
  MemoryTrace run(Form{});
  run.range("ProfilerStep#1", 0, 100, run.trace().threadIndex(1, 1));
  const MemoryAnalysis memory = run.analyze();
  EXPECT_TRUE(memory.devices.empty());
  EXPECT_EQ(memory.primaryDevice(), nullptr);
}

TEST(MemoryAnalysis, RecordedTotalsGiveThePeakAndWhatIsLiveAtIt) {
  MemoryTrace run(Form{.addresses = true, .totals = true});
  const MemoryAnalysis memory = run.trainingStep().analyze();
  ASSERT_NE(memory.primaryDevice(), nullptr);
  const DeviceMemory& gpu = *memory.primaryDevice();
  EXPECT_EQ(gpu.totals, MemoryTotals::kRecorded);
  EXPECT_EQ(gpu.matching, BlockMatching::kByAddress);
  EXPECT_EQ(gpu.events, 10u);
  EXPECT_EQ(gpu.name, "NVIDIA H100 80GB HBM3");
  // conv1 1000 + act1 500 + the temporary 300, over the 10000 made before the recording.
  EXPECT_EQ(gpu.peak_allocated_bytes, kBase + 1800);
  EXPECT_EQ(gpu.peak_at_ns, 130 * kUs);
  EXPECT_EQ(gpu.peak_reserved_bytes, kReserved);
  EXPECT_EQ(categoryBytes(gpu.peak_by_category, MemoryCategory::kActivations), 1500);
  EXPECT_EQ(categoryBytes(gpu.peak_by_category, MemoryCategory::kForwardTemporary), 300);
  EXPECT_EQ(categoryBytes(gpu.peak_by_category, MemoryCategory::kBeforeRecording), kBase);
  EXPECT_EQ(categoryBytes(gpu.peak_by_category, MemoryCategory::kAllocatorSlack), kReserved - kBase - 1800);
  ASSERT_NE(layerRow(gpu.peak_by_layer, "conv1"), nullptr);
  EXPECT_EQ(layerRow(gpu.peak_by_layer, "conv1")->bytes, 1000);
  EXPECT_EQ(layerRow(gpu.peak_by_layer, "conv1")->pass, trace::Phase::kForward);
  EXPECT_EQ(layerRow(gpu.peak_by_layer, "act1")->bytes, 500);
  EXPECT_EQ(gpu.peak_by_layer.front().layer, "conv1");  // largest first
  EXPECT_EQ(gpu.timeline.size(), 10u);
  EXPECT_EQ(gpu.peak_step, 1);
  ASSERT_EQ(gpu.steps.size(), 1u);
  EXPECT_EQ(gpu.steps[0].saved_for_backward_bytes, 1500);
  ASSERT_NE(layerRow(gpu.saved_for_backward_by_layer, "conv1"), nullptr);
  EXPECT_EQ(layerRow(gpu.saved_for_backward_by_layer, "conv1")->bytes, 1000);
  EXPECT_TRUE(memory.not_understood.empty());
}

TEST(MemoryAnalysis, LiveByLayerAtAnyMomentFromTheBlocksKept) {
  MemoryTrace run(Form{.addresses = true, .totals = true});
  const MemoryAnalysis memory = run.trainingStep().analyze();
  const DeviceMemory& gpu = *memory.primaryDevice();
  EXPECT_EQ(gpu.blocks.size(), 6u);
  // At 315 us: conv1's and act1's outputs wait for the backward, whose weight gradient exists.
  const std::vector<LayerBytes> live = liveByLayerAt(gpu, 315 * kUs);
  ASSERT_EQ(live.size(), 3u);
  EXPECT_EQ(live[0].layer, "conv1");
  EXPECT_EQ(live[0].bytes, 1000);
  EXPECT_EQ(live[1].layer, "act1");
  EXPECT_EQ(live[2].bytes, 200);
  EXPECT_EQ(live[2].pass, trace::Phase::kBackward);
  // After the backward freed them, only the gradient and the optimizer's state are left.
  std::int64_t late = 0;
  for (const LayerBytes& row : liveByLayerAt(gpu, 700 * kUs)) late += row.bytes;
  EXPECT_EQ(late, 250);
}

TEST(MemoryAnalysis, AnOpOfNoPhaseAllocatingDuringTheBackwardIsTheBackwards) {
  MemoryTrace run(Form{.addresses = true, .totals = true});
  run.trainingStep();
  // The autograd engine's gradient accumulation: an aten::add on the autograd thread outside any
  // backward node, which the trace gives no phase (it reads as forward in a trace of steps).
  const trace::Index autograd = run.trace().threadIndex(1, 2);
  run.range("aten::add", 410, 420, autograd);
  run.event(415, 64, 0x80, autograd).event(418, -64, 0x80, autograd);
  const MemoryAnalysis memory = run.analyze();
  const DeviceMemory& gpu = *memory.primaryDevice();
  // Not kept for the backward: a backward temporary.
  EXPECT_EQ(gpu.steps.at(0).saved_for_backward_bytes, 1500);
  const std::vector<LayerBytes> live = liveByLayerAt(gpu, 416 * kUs);
  const auto add = std::find_if(live.begin(), live.end(), [](const LayerBytes& l) { return l.layer == "aten::add"; });
  ASSERT_NE(add, live.end());
  EXPECT_EQ(add->pass, trace::Phase::kBackward);
}

TEST(MemoryAnalysis, SizesAloneAreSummedFromTheLowestTheSumReaches) {
  MemoryTrace run(Form{.addresses = false, .totals = false});
  // A block made before the recording, freed at its start: the sum goes to -400 first.
  run.range("aten::empty", 1, 9, run.trace().threadIndex(1, 1));
  run.event(5, -400, 0, run.trace().threadIndex(1, 1));
  const MemoryAnalysis memory = run.trainingStep().analyze();
  const DeviceMemory& gpu = *memory.primaryDevice();
  EXPECT_EQ(gpu.totals, MemoryTotals::kReconstructed);
  EXPECT_EQ(gpu.matching, BlockMatching::kBySize);
  EXPECT_EQ(gpu.before_recording_bytes, 400);
  EXPECT_EQ(gpu.timeline.front().allocated_bytes, 0);
  EXPECT_EQ(gpu.peak_allocated_bytes, 1800);
  EXPECT_EQ(gpu.peak_reserved_bytes, -1);
  EXPECT_EQ(categoryBytes(gpu.peak_by_category, MemoryCategory::kActivations), 1500);
  EXPECT_EQ(categoryBytes(gpu.peak_by_category, MemoryCategory::kBeforeRecording), 0);
  EXPECT_EQ(gpu.steps.at(0).saved_for_backward_bytes, 1500);
  EXPECT_EQ(memory.not_understood.count("memory freed that was allocated before the recording began"), 1u);
}

TEST(MemoryAnalysis, AReservedTotalBelowTheAllocatedOneIsNoReservation) {
  MemoryTrace run(Form{.addresses = true, .totals = true});
  run.trainingStep();
  for (trace::MemoryEvent& e : run.trace().memory_events) e.total_reserved = 0;  // as PyTorch's host events
  const MemoryAnalysis memory = run.analyze();
  const DeviceMemory& device = *memory.primaryDevice();
  EXPECT_EQ(device.peak_reserved_bytes, -1);
  EXPECT_EQ(device.timeline.front().reserved_bytes, -1);
  EXPECT_EQ(categoryBytes(device.peak_by_category, MemoryCategory::kAllocatorSlack), 0);
}

TEST(MemoryAnalysis, FreesThatEndNoBlockAndReusedAddressesAreCounted) {
  MemoryTrace run(Form{.addresses = true, .totals = false});
  const trace::Index main = run.trace().threadIndex(1, 1);
  run.range("ProfilerStep#1", 0, 100, main);
  run.event(10, 64, 0x100, main).event(20, 64, 0x100, main).event(30, -32, 0x900, main).event(40, -64, 0x100, main);
  const MemoryAnalysis memory = run.analyze();
  EXPECT_EQ(memory.not_understood.at("memory allocated at an address already live"), 1u);
  EXPECT_EQ(memory.not_understood.at("memory freed at an address with no recorded allocation"), 1u);
  EXPECT_EQ(memory.first_place.at("memory allocated at an address already live"), "memory event at 20000 ns");
  EXPECT_EQ(memory.primaryDevice()->peak_allocated_bytes, 128);
}

TEST(MemoryAnalysis, AmpHalvesTheActivationsOfHalfPrecisionOps) {
  MemoryTrace run(Form{.addresses = true, .totals = true});
  const MemoryAnalysis memory = run.trainingStep().analyze();
  const AmpMemoryProjection& amp = memory.amp;
  ASSERT_TRUE(amp.applies) << amp.note;
  // conv1's 1000 and act1's 500 halve; the softmax's temporary stays FP32; the cast cache holds a
  // half copy of the weight whose 200-byte gradient the backward made.
  EXPECT_EQ(amp.cast_copy_bytes, 100);
  EXPECT_EQ(amp.projected_peak_allocated_bytes, kBase + 1800 - 750 + 100);
  EXPECT_EQ(categoryBytes(amp.projected_by_category, MemoryCategory::kActivations), 750);
  EXPECT_EQ(categoryBytes(amp.projected_by_category, MemoryCategory::kForwardTemporary), 300);
  ASSERT_TRUE(amp.batch.has_value());
  EXPECT_EQ(*amp.batch, 8);
  EXPECT_EQ(amp.fit_capacity_bytes, 1'000'000u);
  EXPECT_EQ(amp.fit_device, "NVIDIA H100 80GB HBM3");
  // Fixed 10000; per batch of 8: 1800 before, 1050 after (and 100 more fixed).
  EXPECT_EQ(amp.batch_that_fits, 8 * (1'000'000 - 10000) / 1800);
  EXPECT_EQ(amp.amp_batch_that_fits, 8 * (1'000'000 - 10100) / 1050);
}

TEST(MemoryAnalysis, ProjectionIsOfTheStepsPeakWhenAPassOutsideThemPeaksHigher) {
  MemoryTrace run(Form{.addresses = true, .totals = true});
  run.trainingStep();
  // An evaluation pass after the step holds 5000 bytes at once.
  const trace::Index main = run.trace().threadIndex(1, 1);
  run.range("evaluate", 2000, 2100, main);
  run.event(2010, 5000, 0x70, main).event(2020, -5000, 0x70, main);
  const MemoryAnalysis memory = run.analyze();
  EXPECT_EQ(memory.primaryDevice()->peak_allocated_bytes, kBase + 50 + 200 + 5000);
  EXPECT_EQ(memory.primaryDevice()->peak_at_ns, 2010 * kUs);
  EXPECT_TRUE(memory.amp.of_steps);
  EXPECT_EQ(memory.amp.measured_peak_at_ns, 130 * kUs);
  EXPECT_EQ(memory.amp.measured_peak_allocated_bytes, kBase + 1800);
  EXPECT_EQ(memory.amp.projected_peak_allocated_bytes, kBase + 1800 - 750 + 100);
}

TEST(MemoryAnalysis, MasterWeightsAddOneFp32ParameterSize) {
  MemoryTrace run(Form{.addresses = true, .totals = true});
  const MemoryAnalysis memory = run.trainingStep().analyze();
  const AmpMemoryProjection& master = memory.master_weights;
  ASSERT_TRUE(master.applies) << master.note;
  EXPECT_EQ(master.recipe, HalfPrecisionRecipe::kMasterWeights);
  // The half model and gradients with FP32 master weights and gradients: +200, the gradient's size.
  EXPECT_EQ(master.cast_copy_bytes, 200);
  EXPECT_EQ(master.projected_peak_allocated_bytes, kBase + 1800 - 750 + 200);
}

TEST(MemoryAnalysis, NoProjectionForARunAlreadyInHalfPrecision) {
  MemoryTrace run(Form{});
  const MemoryAnalysis memory = run.trainingStep(R"(["c10::Half","c10::Half"])").analyze();
  EXPECT_FALSE(memory.amp.applies);
  EXPECT_NE(memory.amp.note.find("already"), std::string::npos);
}

TEST(MemoryAnalysis, NamedGpuSetsTheMemoryTheBatchMustFitIn) {
  MemoryTrace run(Form{});
  DeviceSpec named;
  named.name = "Small GPU";
  named.capacity_gib = 1;
  const MemoryAnalysis memory = run.trainingStep().analyze(&named);
  EXPECT_EQ(memory.amp.fit_device, "Small GPU");
  EXPECT_EQ(memory.amp.fit_capacity_bytes, 1024u * 1024 * 1024);
}

TEST(MemoryAnalysis, AGpuNamedWithItsSizeSetsTheMemoryWhereItsRowSpansSizes) {
  MemoryTrace run(Form{});
  run.trainingStep();
  trace::Trace& trace = run.trace();
  trace.sortByTime();
  const CorrelationCounts counts = test::correlateAsImported(trace);
  // The V100 SXM2 row is sold with 16 and 32 GB: the name says which.
  AnalysisOptions options;
  options.gpu = "V100-SXM2-16GB";
  const TraceSummary named = summarizeTrace(trace, counts, options);
  EXPECT_EQ(named.memory.amp.fit_capacity_bytes, 16ull * 1024 * 1024 * 1024);
  options.gpu = "V100-SXM2";
  EXPECT_EQ(summarizeTrace(trace, counts, options).memory.amp.fit_capacity_bytes, 0u);
}

TEST(MemoryAnalysis, ARanksResultCarriesItsPeakAndItsAmpProjection) {
  MemoryTrace run(Form{.addresses = true, .totals = true});
  run.trainingStep();
  trace::Trace& trace = run.trace();
  trace.sortByTime();
  const CorrelationCounts counts = test::correlateAsImported(trace);
  const TraceSummary summary = summarizeTrace(trace, counts);
  const RankResult rank = rankResultOf(summary, {}, "rank0.json", "rank0.json");
  EXPECT_EQ(rank.findings.memory_peak_allocated_bytes, kBase + 1800);
  EXPECT_EQ(rank.findings.memory_amp_projected_peak_bytes, kBase + 1800 - 750 + 100);
}

TEST(MemoryAnalysis, SummaryCountsMemoryOdditiesWithTheImport) {
  MemoryTrace run(Form{.addresses = true, .totals = false});
  const trace::Index main = run.trace().threadIndex(1, 1);
  run.range("ProfilerStep#1", 0, 100, main);
  run.event(10, 64, 0x100, main).event(20, 64, 0x100, main);
  trace::Trace& trace = run.trace();
  trace.sortByTime();
  const CorrelationCounts counts = test::correlateAsImported(trace);
  const TraceSummary summary = summarizeTrace(trace, counts);
  EXPECT_EQ(summary.import_stats.not_understood.at("memory allocated at an address already live"), 1u);
  EXPECT_EQ(summary.memory.devices.size(), 1u);
}

TEST(MemoryComparison, ScoresBothRecipesProjectionsOnTheAmpRunsStepsPeak) {
  TraceSummary a;
  TraceSummary b;
  a.memory.devices.emplace_back();
  a.memory.primary = 0;
  a.memory.amp = {.recipe = HalfPrecisionRecipe::kAutocast, .applies = true, .measured_peak_allocated_bytes = 2000,
                  .projected_peak_allocated_bytes = 1100};
  a.memory.master_weights = {.recipe = HalfPrecisionRecipe::kMasterWeights, .applies = true,
                             .measured_peak_allocated_bytes = 2000, .projected_peak_allocated_bytes = 1300};
  b.memory.devices.emplace_back();
  b.memory.primary = 0;
  b.memory.amp.measured_peak_allocated_bytes = 1000;  // measured though B's own projection does not apply
  const MemoryComparison m = compareMemory(a, b, true);
  ASSERT_TRUE(m.measured);
  EXPECT_EQ(m.a_peak_allocated_bytes, 2000);
  EXPECT_EQ(m.b_peak_allocated_bytes, 1000);
  ASSERT_TRUE(m.prediction_error && m.master_weights_prediction_error);
  EXPECT_NEAR(*m.prediction_error, std::log(1.1), 1e-12);
  EXPECT_NEAR(*m.master_weights_prediction_error, std::log(1.3), 1e-12);
  // Not an AMP change: the peaks, no score.
  EXPECT_FALSE(compareMemory(a, b, false).prediction_error.has_value());
  // No memory events in B: nothing measured.
  b.memory = {};
  EXPECT_FALSE(compareMemory(a, b, true).measured);
}

}  // namespace
}  // namespace ampscope::analyzer
