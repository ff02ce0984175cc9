// Tests of analyzer/core/device_derivation.h and of chooseRecordedDevice's derived peaks: a GPU the
// table has no row for is read against peaks derived from its own SM count, never a sibling's row.
#include "analyzer/core/device_derivation.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "analyzer/core/device_table.h"

namespace ampscope::analyzer {
namespace {

const DeviceSpec& row(std::string_view name) {
  const DeviceSpec* spec = findDevice(name);
  if (spec == nullptr) {
    ADD_FAILURE() << "no row named " << name;
    static const DeviceSpec kMissing;
    return kMissing;
  }
  return *spec;
}

trace::Device gpu(trace::Trace& trace, std::string_view name, int major, int minor, int sms,
                  std::uint64_t memory_bytes = 0) {
  trace::Device device;
  device.id = static_cast<std::uint32_t>(trace.devices.size());
  device.name = trace.strings.intern(name);
  device.compute_major = major;
  device.compute_minor = minor;
  device.sm_count = sms;
  device.total_memory_bytes = memory_bytes;
  return device;
}

DeviceChoice choose(const trace::Device& device, trace::Trace& trace, std::string_view user_gpu = "") {
  trace.devices.push_back(device);
  return chooseRecordedDevice(trace, user_gpu);
}

// Published figures, within the spread of boost clocks a line's products ship with.
void expectNear(double derived, double published, double tolerance, const char* what) {
  EXPECT_NEAR(derived, published, tolerance * published) << what;
}

TEST(ArchitectureRatesTest, EveryRowFollowsItsArchitecturesPerSmRates) {
  // Each row's FP16 Tensor Core figure is its architecture's per-SM rate (halved on GeForce and
  // the A10G) x SMs x the clock its FP32 figure implies, within NVIDIA's per-unit clock spread:
  // the rates the derivation uses are the ones the published rows follow. The H20 is capped.
  for (const DeviceSpec& spec : deviceTable()) {
    SCOPED_TRACE(spec.name);
    const ArchitectureRates* rates = architectureRates(spec.compute_major, spec.compute_minor);
    ASSERT_NE(rates, nullptr);
    EXPECT_EQ(spec.architecture, rates->architecture);
    if (spec.name == "H20") continue;
    const std::optional<GpuNameReading> reading = readGpuName(spec.name);
    ASSERT_TRUE(reading.has_value());
    const double half = halvesFp32Accumulate(*reading) ? 0.5 : 1.0;
    const double expected = rates->fp16 * half * spec.sm_count * impliedBoostGhz(spec) / 1e3;
    EXPECT_GE(spec.fp16_tflops, 0.8 * expected);
    EXPECT_LE(spec.fp16_tflops, 1.02 * expected);
    const double int8 = rates->int8 * spec.sm_count * impliedBoostGhz(spec) / 1e3;
    EXPECT_LE(spec.int8_tops, 1.02 * int8);
  }
  EXPECT_EQ(architectureRates(8, 7), nullptr);   // Orin
  EXPECT_EQ(architectureRates(10, 3), nullptr);  // Blackwell Ultra: other FP4 and FP64 rates
}

TEST(ArchitectureRatesTest, GeForceAndTheA10gHalveFp32AccumulateOthersDoNot) {
  EXPECT_TRUE(halvesFp32Accumulate(*readGpuName("NVIDIA GeForce RTX 3090")));
  EXPECT_TRUE(halvesFp32Accumulate(*readGpuName("RTX 4090")));
  EXPECT_TRUE(halvesFp32Accumulate(*readGpuName("NVIDIA A10G")));
  EXPECT_FALSE(halvesFp32Accumulate(*readGpuName("NVIDIA A10")));
  EXPECT_FALSE(halvesFp32Accumulate(*readGpuName("NVIDIA TITAN RTX")));
  EXPECT_FALSE(halvesFp32Accumulate(*readGpuName("NVIDIA RTX A6000")));
  EXPECT_FALSE(halvesFp32Accumulate(*readGpuName("NVIDIA RTX 6000 Ada Generation")));
  EXPECT_FALSE(halvesFp32Accumulate(*readGpuName("Quadro RTX 8000")));
  EXPECT_FALSE(halvesFp32Accumulate(*readGpuName("NVIDIA RTX PRO 6000 Blackwell Server Edition")));
  EXPECT_EQ(readGpuName("NVIDIA GeForce GTX 1660 Ti")->no_tensor_cores, true);
}

// RTX 2070 SUPER: 2560 CUDA cores (40 SMs) at 1770 MHz; with FP32 accumulate at the GeForce rate.
TEST(DerivedPeaksTest, RtxTwentySeventySuperFromTuringGeForceRatesAndFortySms) {
  GpuFacts facts{.name = "NVIDIA GeForce RTX 2070 SUPER", .compute_major = 7, .compute_minor = 5, .sm_count = 40};
  const std::optional<GpuNameReading> reading = readGpuName(facts.name);
  ASSERT_TRUE(reading.has_value()) << facts.name;
  const std::optional<DerivedPeaks> derived = deriveFromArchitecture(facts, &*reading);
  ASSERT_TRUE(derived.has_value());
  const DeviceSpec& d = derived->spec;
  expectNear(d.fp32_tflops, 2560 * 2 * 1.77e-3, 0.03, "FP32");
  expectNear(d.fp16_tflops, 36.25, 0.03, "FP16 with FP32 accumulate");
  expectNear(d.int8_tops, 145, 0.03, "INT8");
  EXPECT_EQ(d.tf32_tflops, 0);  // no TF32 before Ampere
  EXPECT_EQ(d.bf16_tflops, 0);
  EXPECT_EQ(d.name, "GeForce RTX 2070 SUPER");
  EXPECT_EQ(d.architecture, "Turing");
  EXPECT_EQ(d.memory_gbs, 0);  // Kineto records no bandwidth: unknown, not a sibling's
  EXPECT_NE(derived->how.find("Turing (TU10x) GeForce per-SM rates × 40 SMs × 1.77 GHz boost"), std::string::npos)
      << derived->how;
  // Not the T4 row that compute capability 7.5 used to give it: 65 TFLOP/s FP16.
  EXPECT_LT(d.fp16_tflops, 0.6 * row("T4").fp16_tflops);
}

// AWS's A10G: 80 SMs at 1710 MHz, 35 TFLOPS FP32 and 70 FP16 Tensor (measured 69.5 with cuBLAS).
TEST(DerivedPeaksTest, A10gFromGa10xRatesAndEightySms) {
  GpuFacts facts{.name = "NVIDIA A10G", .compute_major = 8, .compute_minor = 6, .sm_count = 80};
  const std::optional<GpuNameReading> reading = readGpuName(facts.name);
  ASSERT_TRUE(reading.has_value()) << facts.name;
  const std::optional<DerivedPeaks> derived = deriveFromArchitecture(facts, &*reading);
  ASSERT_TRUE(derived.has_value());
  expectNear(derived->spec.fp32_tflops, 35, 0.05, "FP32");
  expectNear(derived->spec.tf32_tflops, 35, 0.05, "TF32");
  expectNear(derived->spec.fp16_tflops, 70, 0.05, "FP16");
  expectNear(derived->spec.bf16_tflops, 70, 0.05, "BF16");
  EXPECT_NE(derived->how.find("data-centre per-SM rates at the GeForce FP32-accumulate rate × 80 SMs"),
            std::string::npos)
      << derived->how;
  // The table's A10G row holds the same figures at its 1710 MHz; the A10 row (72 SMs) is not it.
  expectNear(row("A10G").fp16_tflops, 70, 0.01, "A10G row");
  EXPECT_GT(row("A10").fp16_tflops, 1.7 * row("A10G").fp16_tflops);
}

TEST(DerivedPeaksTest, TraceClockAndBandwidthWinOverTheFamilysTypicalOnes) {
  // An RTX A6000 as Nsight records it: 84 SMs at 1800 MHz, 768 GB/s. Published: 38.7 FP32,
  // 154.8 FP16 Tensor with FP32 accumulate (a professional card: the full rate).
  GpuFacts facts{.name = "NVIDIA RTX A6000", .compute_major = 8, .compute_minor = 6, .sm_count = 84,
                 .clock_ghz = 1.8, .memory_gbs = 768};
  const std::optional<GpuNameReading> reading = readGpuName(facts.name);
  ASSERT_TRUE(reading.has_value()) << facts.name;
  const std::optional<DerivedPeaks> derived = deriveFromArchitecture(facts, &*reading);
  ASSERT_TRUE(derived.has_value());
  expectNear(derived->spec.fp32_tflops, 38.7, 0.01, "FP32");
  expectNear(derived->spec.fp16_tflops, 154.8, 0.01, "FP16");
  EXPECT_EQ(derived->spec.memory_gbs, 768);
  EXPECT_NE(derived->how.find("professional per-SM rates × 84 SMs × 1.80 GHz boost (the trace's clock)"),
            std::string::npos)
      << derived->how;
  // A garbled clock (Hz read as kHz) is not used.
  facts.clock_ghz = 1800;
  const std::optional<DerivedPeaks> garbled = deriveFromArchitecture(facts, &*reading);
  ASSERT_TRUE(garbled.has_value());
  EXPECT_LT(garbled->spec.fp32_tflops, 50);
}

TEST(DerivedPeaksTest, NeedsAnSmCountAndACapabilityTheRateTableKnows) {
  EXPECT_FALSE(deriveFromArchitecture({.name = "x", .compute_major = 8, .compute_minor = 6}, nullptr));
  EXPECT_FALSE(deriveFromArchitecture({.name = "Orin", .compute_major = 8, .compute_minor = 7, .sm_count = 16},
                                      nullptr));
  EXPECT_FALSE(deriveFromRow(row("L4"), {.name = "NVIDIA L4-24Q"}, *readGpuName("NVIDIA L4-24Q")));
}

TEST(DerivedPeaksTest, GtxTuringCardsHaveNoTensorCores) {
  GpuFacts facts{.name = "NVIDIA GeForce GTX 1660 Ti", .compute_major = 7, .compute_minor = 5, .sm_count = 24};
  const std::optional<GpuNameReading> reading = readGpuName(facts.name);
  ASSERT_TRUE(reading.has_value()) << facts.name;
  const std::optional<DerivedPeaks> derived = deriveFromArchitecture(facts, &*reading);
  ASSERT_TRUE(derived.has_value());
  EXPECT_GT(derived->spec.fp32_tflops, 0);
  EXPECT_EQ(derived->spec.fp16_tflops, 0);
  EXPECT_EQ(derived->spec.int8_tops, 0);
}

TEST(DeviceChoiceDerivedTest, SuperCardTheTableLacksIsDerivedNotTheT4Row) {
  // The RTX 2080 SUPER: 48 SMs (3072 CUDA cores) at 1815 MHz, 11.15 TFLOPS FP32.
  trace::Trace trace;
  const DeviceChoice choice = choose(gpu(trace, "NVIDIA GeForce RTX 2080 SUPER", 7, 5, 48), trace, "H100-SXM");
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.basis, DeviceBasis::kDerived);
  EXPECT_EQ(choice.spec->name, "GeForce RTX 2080 SUPER");
  EXPECT_EQ(choice.spec->sm_count, 48);
  expectNear(choice.spec->fp32_tflops, 11.15, 0.03, "FP32");
  expectNear(choice.spec->fp16_tflops, 48 * 512 * 1.815e-3, 0.03, "FP16 with FP32 accumulate");
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.spec->memory_gbs, row("RTX 2080").memory_gbs);
  EXPECT_EQ(choice.reason.rfind("the trace names \"NVIDIA GeForce RTX 2080 SUPER\", which the table lacks; derived: "
                                "the RTX 2080 row's per-SM rates × 48 SMs",
                                0),
            0u)
      << choice.reason;
}

TEST(DeviceChoiceDerivedTest, SuffixedVariantIsDerivedFromItsOwnSmCount) {
  // The RTX 4090 D: 114 SMs of the 4090's 128.
  trace::Trace trace;
  const DeviceChoice choice = choose(gpu(trace, "NVIDIA GeForce RTX 4090 D", 8, 9, 114), trace);
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.basis, DeviceBasis::kDerived);
  expectNear(choice.spec->fp16_tflops, row("RTX 4090").fp16_tflops * 114 / 128, 0.001, "FP16");
  expectNear(choice.spec->fp8_tflops, row("RTX 4090").fp8_tflops * 114 / 128, 0.001, "FP8");
  EXPECT_NE(choice.reason.find("the RTX 4090 row's per-SM rates × 114 SMs × 2.52 GHz boost (the row's)"),
            std::string::npos)
      << choice.reason;
}

TEST(DeviceChoiceDerivedTest, L4NamedOddlyIsDerivedFromItsSmCount) {
  // A vGPU profile's name: the L4's 58 SMs give the L4 datasheet's figures.
  trace::Trace trace;
  const DeviceChoice choice = choose(gpu(trace, "NVIDIA L4-24Q", 8, 9, 58), trace);
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.basis, DeviceBasis::kDerived);
  expectNear(choice.spec->fp32_tflops, 30.3, 0.01, "FP32");
  expectNear(choice.spec->fp16_tflops, 121, 0.01, "FP16");
  expectNear(choice.spec->fp8_tflops, 242.5, 0.01, "FP8");
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.spec->memory_gbs, 300);
}

TEST(DeviceChoiceDerivedTest, MigSliceGetsItsShareOfTheBoard) {
  // A100 80GB MIG 1g.10gb: 14 of the board's SMs, 10 of its 80 GB of memory controllers.
  trace::Trace trace;
  const DeviceChoice choice = choose(gpu(trace, "NVIDIA A100-SXM4-80GB MIG 1g.10gb", 8, 0, 14), trace);
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.basis, DeviceBasis::kDerived);
  expectNear(choice.spec->fp16_tflops, 312.0 * 14 / 108, 0.001, "FP16");
  expectNear(choice.spec->memory_gbs, 2039.0 * 10 / 80, 0.001, "memory");
  EXPECT_NE(choice.reason.find("a MIG slice; derived: the A100 SXM row's per-SM rates × 14 SMs"), std::string::npos)
      << choice.reason;
}

TEST(DeviceChoiceDerivedTest, MigSliceHoldsTheMemoryItsNameOrTheTraceSays) {
  // No total recorded: the slice's 10 GB as its name states it, not the board's 80.
  trace::Trace named;
  DeviceChoice choice = choose(gpu(named, "NVIDIA A100-SXM4-80GB MIG 1g.10gb", 8, 0, 14), named);
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.spec->capacity_gib, 10);
  // Recorded: what the slice reports (9.5 GiB), below the name's nominal size.
  trace::Trace recorded;
  choice = choose(gpu(recorded, "NVIDIA A100-SXM4-80GB MIG 1g.10gb", 8, 0, 14, 10'200'547'328ULL), recorded);
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.spec->capacity_gib, 9.5);
}

TEST(DeviceChoiceDerivedTest, DerivedSpecHoldsTheRecordedMemoryNeverItsFamilysSize) {
  // An RTX 3080 Ti (12 GB) is derived from the 10 GB RTX 3080's row: its memory is the trace's.
  trace::Trace recorded;
  DeviceChoice choice = choose(gpu(recorded, "NVIDIA GeForce RTX 3080 Ti", 8, 6, 80, 12'616'466'432ULL), recorded);
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.basis, DeviceBasis::kDerived);
  EXPECT_EQ(choice.spec->capacity_gib, 11.75);
  // Not recorded: unknown, not the row's 10.
  trace::Trace unrecorded;
  choice = choose(gpu(unrecorded, "NVIDIA GeForce RTX 3080 Ti", 8, 6, 80), unrecorded);
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.basis, DeviceBasis::kDerived);
  EXPECT_EQ(choice.spec->capacity_gib, 0);
  // From the architecture (no row of the family): the trace's total too.
  trace::Trace a6000;
  choice = choose(gpu(a6000, "NVIDIA RTX A6000", 8, 6, 84, 51'002'736'640ULL), a6000);
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.basis, DeviceBasis::kDerived);
  EXPECT_EQ(choice.spec->capacity_gib, 47.5);
  // A total in another unit (GB written as bytes) is garbled and not used.
  trace::Trace garbled;
  choice = choose(gpu(garbled, "NVIDIA RTX A6000", 8, 6, 84, 48), garbled);
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.spec->capacity_gib, 0);
}

TEST(DerivedPeaksTest, CapacityIsTheRecordedTotalElseAMigSlicesElseUnknown) {
  GpuFacts facts;
  facts.total_memory_bytes = 85'017'493'504ULL;  // the measured H100 80GB's total, 79.18 GiB
  EXPECT_NEAR(derivedCapacityGib(facts, nullptr), 79.18, 0.01);
  const std::optional<GpuNameReading> slice = readGpuName("NVIDIA H100 80GB HBM3 MIG 3g.40gb");
  ASSERT_TRUE(slice.has_value());
  EXPECT_NEAR(derivedCapacityGib(facts, &*slice), 79.18, 0.01);  // recorded wins
  facts.total_memory_bytes = 0;
  EXPECT_EQ(derivedCapacityGib(facts, &*slice), 40);
  const std::optional<GpuNameReading> card = readGpuName("NVIDIA GeForce RTX 4090 D");
  ASSERT_TRUE(card.has_value());
  EXPECT_EQ(derivedCapacityGib(facts, &*card), 0);
  EXPECT_EQ(derivedCapacityGib(facts, nullptr), 0);
}

TEST(DeviceChoiceDerivedTest, RowNameWithAnotherSmCountIsDerivedFromTheRow) {
  // The 12GB RTX 3080 reports the 10GB card's name with 70 SMs instead of 68.
  trace::Trace trace;
  const DeviceChoice choice = choose(gpu(trace, "NVIDIA GeForce RTX 3080", 8, 6, 70), trace);
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.basis, DeviceBasis::kDerived);
  expectNear(choice.spec->fp16_tflops, row("RTX 3080").fp16_tflops * 70 / 68, 0.001, "FP16");
  EXPECT_NE(choice.reason.find("the RTX 3080 row's GPU but with 70 SMs (the row has 68)"), std::string::npos)
      << choice.reason;
  // With the row's own SM count it is the row.
  trace::Trace same;
  const DeviceChoice row_choice = choose(gpu(same, "NVIDIA GeForce RTX 3080", 8, 6, 68), same);
  EXPECT_EQ(row_choice.basis, DeviceBasis::kTraceName);
  EXPECT_EQ(row_choice.spec.get(), findDevice("RTX 3080"));
}

TEST(DeviceChoiceDerivedTest, UnnamedGpuWithCapabilityAndSmsIsDerivedAtTheFullRate) {
  trace::Trace trace;
  const DeviceChoice choice = choose(gpu(trace, "", 9, 0, 132), trace, "A100");
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.basis, DeviceBasis::kDerived);  // --gpu does not override what the trace records
  EXPECT_EQ(choice.spec->name, "GPU of compute capability 9.0 with 132 SMs");
  EXPECT_NE(choice.reason.find("product line unknown"), std::string::npos) << choice.reason;
  // An upper bound: at the highest clock the Hopper rows imply, at least the H100 SXM's peaks.
  EXPECT_GE(choice.spec->fp16_tflops, row("H100 SXM").fp16_tflops);
  EXPECT_LE(choice.spec->fp16_tflops, 1.1 * row("H100 SXM").fp16_tflops);
}

TEST(DeviceChoiceDerivedTest, RecordedClockAndBandwidthAreUsed) {
  trace::Trace trace;
  trace::Device device = gpu(trace, "NVIDIA RTX A6000", 8, 6, 84);
  device.sm_clock_khz = 1'800'000;
  device.memory_bandwidth_bytes_per_s = 768'000'000'000ULL;
  const DeviceChoice choice = choose(device, trace);
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.basis, DeviceBasis::kDerived);
  expectNear(choice.spec->fp16_tflops, 154.8, 0.01, "FP16");
  EXPECT_EQ(choice.spec->memory_gbs, 768);
}

TEST(DeviceChoiceDerivedTest, NewRowsMatchTheNamesTracesRecord) {
  trace::Trace a10g;
  DeviceChoice choice = choose(gpu(a10g, "NVIDIA A10G", 8, 6, 80), a10g);
  EXPECT_EQ(choice.basis, DeviceBasis::kTraceName);
  EXPECT_EQ(choice.spec.get(), findDevice("A10G"));
  trace::Trace super;
  choice = choose(gpu(super, "NVIDIA GeForce RTX 2070 SUPER", 7, 5, 40), super);
  EXPECT_EQ(choice.basis, DeviceBasis::kTraceName);
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.spec->name, "RTX 2070 SUPER");
  // GH200 names state the superchip's LPDDR5X; the GPU's memory tells the HBM3e board.
  trace::Trace gh200;
  choice = choose(gpu(gh200, "NVIDIA GH200 480GB", 9, 0, 132, 102'005'473'280ULL), gh200);
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.spec->name, "GH200");
  trace::Trace hbm3e;
  choice = choose(gpu(hbm3e, "NVIDIA GH200 480GB", 9, 0, 132, 150'323'855'360ULL), hbm3e);
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.spec->name, "GH200 144GB");
  EXPECT_EQ(choice.spec->memory_gbs, 4900);
  trace::Trace h20;
  choice = choose(gpu(h20, "NVIDIA H20", 9, 0, 78), h20);
  EXPECT_EQ(choice.basis, DeviceBasis::kTraceName);
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.spec->fp16_tflops, 148);
}

}  // namespace
}  // namespace ampscope::analyzer
