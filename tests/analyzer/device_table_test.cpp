// Tests of analyzer/core/device_table.h
#include "analyzer/core/device_table.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ampscope::analyzer {
namespace {

const DeviceSpec& row(std::string_view name) {
  for (const DeviceSpec& spec : deviceTable()) {
    if (spec.name == name) return spec;
  }
  ADD_FAILURE() << "no row named " << name;
  static const DeviceSpec kMissing;
  return kMissing;
}

std::string nameOf(const DeviceSpec* spec) { return spec == nullptr ? "(none)" : spec->name; }
std::string nameOf(const std::shared_ptr<const DeviceSpec>& spec) { return nameOf(spec.get()); }

// FP32 lanes per SM, from the capability: the implied boost clock of every row must be one a GPU
// runs at, which catches a wrong SM count or a rate copied from the wrong column.
int fp32LanesPerSm(const DeviceSpec& spec) {
  if (spec.compute_major == 7) return 64;
  if (spec.compute_major == 8 && spec.compute_minor == 0) return 64;  // GA100
  return 128;
}

// The boost clocks the products of each compute capability ship with, from 1.37 GHz (V100 PCIe)
// to 2.62 GHz (RTX 5080).
std::pair<double, double> boostClockRangeGhz(const DeviceSpec& spec) {
  switch (spec.compute_major * 10 + spec.compute_minor) {
    case 70: return {1.3, 1.65};
    case 75: return {1.5, 1.8};
    case 80: return {1.35, 1.5};  // GA100
    case 86: return {1.6, 1.8};   // GA10x
    case 89: return {2.0, 2.6};
    case 90: return {1.7, 2.0};
    default: return {2.0, 2.7};   // Blackwell
  }
}

TEST(DeviceTableTest, EveryRowIsSelfConsistent) {
  const std::set<std::string> architectures = {"Volta", "Turing", "Ampere", "Ada", "Hopper",
                                               "Blackwell"};
  std::set<std::string> names;
  ASSERT_GE(deviceTable().size(), 30u);
  for (const DeviceSpec& spec : deviceTable()) {
    SCOPED_TRACE(spec.name);
    EXPECT_TRUE(names.insert(spec.name).second) << "row named twice";
    EXPECT_TRUE(architectures.contains(spec.architecture)) << spec.architecture;
    EXPECT_GT(spec.compute_major, 0);
    EXPECT_GT(spec.sm_count, 0);
    EXPECT_GT(spec.memory_gbs, 0);
    EXPECT_FALSE(spec.sources.empty());
    EXPECT_GT(spec.fp32_tflops, 0);
    // Every row has Tensor Cores: FP16 with FP32 accumulate is at least twice FP32 even on
    // GeForce, where it runs at half the FP16-accumulate rate (1.99: NVIDIA rounds each figure
    // on its own, RTX 3080 is 29.8 and 59.5).
    EXPECT_GE(spec.fp16_tflops, 1.99 * spec.fp32_tflops);
    EXPECT_LT(spec.tf32_tflops, spec.fp16_tflops);
    EXPECT_TRUE(spec.bf16_tflops == 0 || spec.bf16_tflops == spec.fp16_tflops);
    if (spec.fp8_tflops > 0) {
      EXPECT_GE(spec.fp8_tflops, 1.99 * spec.fp16_tflops);
    }
    if (spec.fp4_tflops > 0) {
      EXPECT_GE(spec.fp4_tflops, 2 * spec.fp8_tflops);
    }
    if (spec.int8_tops > 0) {
      EXPECT_GE(spec.int8_tops, 1.99 * spec.fp16_tflops);
    }
    EXPECT_GT(spec.fp64_tflops, 0);
    EXPECT_LE(spec.fp64_tflops, spec.fp32_tflops);
    // The H20's published FP32 figure and the SM count the device reports do not fit a Hopper
    // clock (2.2 GHz): its rates are export-capped, not SMs x clock, which is why it is a row.
    if (spec.name != "H20") {
      const double clock_ghz = spec.fp32_tflops * 1e3 / (spec.sm_count * fp32LanesPerSm(spec) * 2.0);
      const auto [slowest, fastest] = boostClockRangeGhz(spec);
      EXPECT_GE(clock_ghz, slowest);
      EXPECT_LE(clock_ghz, fastest);
    }
    // Each row's own name finds it.
    EXPECT_EQ(findDevice(spec.name), &spec);
  }
}

TEST(DeviceTableTest, ArchitecturesFollowComputeCapabilitiesAndTheirUnits) {
  for (const DeviceSpec& spec : deviceTable()) {
    SCOPED_TRACE(spec.name);
    const int cc = spec.compute_major * 10 + spec.compute_minor;
    if (spec.architecture == "Volta") {
      EXPECT_EQ(cc, 70);
    }
    if (spec.architecture == "Turing") {
      EXPECT_EQ(cc, 75);
    }
    if (spec.architecture == "Ampere") {
      EXPECT_TRUE(cc == 80 || cc == 86);
    }
    if (spec.architecture == "Ada") {
      EXPECT_EQ(cc, 89);
    }
    if (spec.architecture == "Hopper") {
      EXPECT_EQ(cc, 90);
    }
    if (spec.architecture == "Blackwell") {
      EXPECT_TRUE(cc == 100 || cc == 120);
    }
    // Volta and Turing have neither TF32 nor BF16; FP8 came with Ada and Hopper, FP4 with
    // Blackwell; Volta's Tensor Cores have no INT8 mode.
    const bool pre_ampere = spec.architecture == "Volta" || spec.architecture == "Turing";
    EXPECT_EQ(spec.tf32_tflops == 0, pre_ampere);
    EXPECT_EQ(spec.bf16_tflops == 0, pre_ampere);
    EXPECT_EQ(spec.fp8_tflops == 0, pre_ampere || spec.architecture == "Ampere");
    EXPECT_EQ(spec.fp4_tflops == 0, spec.architecture != "Blackwell");
    EXPECT_EQ(spec.int8_tops == 0, spec.architecture == "Volta");
  }
}

TEST(DeviceTableTest, VoltaRowsHoldTheV100Datasheet) {
  const DeviceSpec& sxm2 = row("V100 SXM2");
  EXPECT_EQ(sxm2.compute_major, 7);
  EXPECT_EQ(sxm2.compute_minor, 0);
  EXPECT_EQ(sxm2.sm_count, 80);
  EXPECT_DOUBLE_EQ(sxm2.memory_gbs, 900);
  EXPECT_DOUBLE_EQ(sxm2.fp32_tflops, 15.7);
  EXPECT_DOUBLE_EQ(sxm2.fp16_tflops, 125);
  EXPECT_DOUBLE_EQ(sxm2.fp64_tflops, 7.8);
  EXPECT_DOUBLE_EQ(row("V100 PCIe").fp16_tflops, 112);
  EXPECT_DOUBLE_EQ(row("V100 PCIe").fp32_tflops, 14);
  EXPECT_DOUBLE_EQ(row("V100S PCIe").fp16_tflops, 130);
  EXPECT_DOUBLE_EQ(row("V100S PCIe").memory_gbs, 1134);
}

TEST(DeviceTableTest, TuringRowsHoldTheT4DatasheetAndTheWhitepaper) {
  const DeviceSpec& t4 = row("T4");
  EXPECT_EQ(t4.compute_minor, 5);
  EXPECT_EQ(t4.sm_count, 40);
  EXPECT_DOUBLE_EQ(t4.memory_gbs, 320);
  EXPECT_DOUBLE_EQ(t4.fp32_tflops, 8.1);
  EXPECT_DOUBLE_EQ(t4.fp16_tflops, 65);
  EXPECT_DOUBLE_EQ(t4.int8_tops, 130);
  // Turing whitepaper Table 1, reference RTX 2080 Ti: 53.8 with FP32 accumulate (107.6 with
  // FP16 accumulate).
  const DeviceSpec& ti = row("RTX 2080 Ti");
  EXPECT_EQ(ti.sm_count, 68);
  EXPECT_DOUBLE_EQ(ti.fp32_tflops, 13.4);
  EXPECT_DOUBLE_EQ(ti.fp16_tflops, 53.8);
  EXPECT_DOUBLE_EQ(ti.int8_tops, 215.2);
  EXPECT_DOUBLE_EQ(ti.memory_gbs, 616);
}

TEST(DeviceTableTest, AmpereRowsHoldTheA100AndGa102Figures) {
  const DeviceSpec& a100 = row("A100 SXM");
  EXPECT_EQ(a100.compute_major, 8);
  EXPECT_EQ(a100.compute_minor, 0);
  EXPECT_EQ(a100.sm_count, 108);
  EXPECT_DOUBLE_EQ(a100.fp32_tflops, 19.5);
  EXPECT_DOUBLE_EQ(a100.tf32_tflops, 156);
  EXPECT_DOUBLE_EQ(a100.fp16_tflops, 312);
  EXPECT_DOUBLE_EQ(a100.bf16_tflops, 312);
  EXPECT_DOUBLE_EQ(a100.int8_tops, 624);
  EXPECT_DOUBLE_EQ(a100.fp64_tflops, 19.5);
  // "A100 SXM" is the 80GB board; the 40GB boards have the same math and less bandwidth.
  EXPECT_DOUBLE_EQ(a100.memory_gbs, 2039);
  EXPECT_DOUBLE_EQ(row("A100 SXM 40GB").memory_gbs, 1555);
  EXPECT_DOUBLE_EQ(row("A100 SXM 40GB").fp16_tflops, 312);
  EXPECT_DOUBLE_EQ(row("A100 PCIe").memory_gbs, 1935);
  EXPECT_DOUBLE_EQ(row("A100 PCIe 40GB").memory_gbs, 1555);
  EXPECT_DOUBLE_EQ(row("A30").fp16_tflops, 165);
  EXPECT_DOUBLE_EQ(row("A10").fp16_tflops, 125);
  EXPECT_DOUBLE_EQ(row("A10").tf32_tflops, 62.5);
  const DeviceSpec& rtx3090 = row("RTX 3090");
  EXPECT_EQ(rtx3090.sm_count, 82);
  EXPECT_DOUBLE_EQ(rtx3090.fp32_tflops, 35.6);
  EXPECT_DOUBLE_EQ(rtx3090.fp16_tflops, 71);
  EXPECT_DOUBLE_EQ(rtx3090.memory_gbs, 936);
}

TEST(DeviceTableTest, AdaRowsHoldTheWhitepaperAndDatasheets) {
  const DeviceSpec& rtx4090 = row("RTX 4090");
  EXPECT_EQ(rtx4090.compute_minor, 9);
  EXPECT_EQ(rtx4090.sm_count, 128);
  EXPECT_DOUBLE_EQ(rtx4090.fp32_tflops, 82.6);
  // Half of the 330.3 TFLOPS with FP16 accumulate; FP8 likewise half of 660.6.
  EXPECT_NEAR(rtx4090.fp16_tflops, 330.3 / 2, 0.06);
  EXPECT_DOUBLE_EQ(rtx4090.fp8_tflops, 660.6 / 2);
  EXPECT_DOUBLE_EQ(rtx4090.memory_gbs, 1008);
  EXPECT_DOUBLE_EQ(row("L4").fp16_tflops, 121);
  EXPECT_DOUBLE_EQ(row("L4").fp8_tflops, 242.5);
  EXPECT_DOUBLE_EQ(row("L4").memory_gbs, 300);
  EXPECT_DOUBLE_EQ(row("L40S").fp16_tflops, 362.05);
  EXPECT_DOUBLE_EQ(row("L40S").memory_gbs, 864);
}

TEST(DeviceTableTest, HopperRowsHoldTheDatasheetsAndWhitepaper) {
  const DeviceSpec& h100 = row("H100 SXM");
  EXPECT_EQ(h100.compute_major, 9);
  EXPECT_EQ(h100.sm_count, 132);
  EXPECT_DOUBLE_EQ(h100.memory_gbs, 3350);
  EXPECT_DOUBLE_EQ(h100.fp32_tflops, 67);
  EXPECT_DOUBLE_EQ(h100.tf32_tflops, 494.7);
  EXPECT_DOUBLE_EQ(h100.fp16_tflops, 989.4);
  EXPECT_DOUBLE_EQ(h100.bf16_tflops, 989.4);
  EXPECT_NEAR(h100.fp8_tflops, 1979, 0.2);
  EXPECT_NEAR(h100.int8_tops, 1979, 0.2);
  const DeviceSpec& pcie = row("H100 PCIe");
  EXPECT_EQ(pcie.sm_count, 114);
  EXPECT_DOUBLE_EQ(pcie.memory_gbs, 2000);
  EXPECT_DOUBLE_EQ(pcie.fp16_tflops, 756.5);
  // H200 and H800 are H100 SXM's math: H200 with 4.8 TB/s, H800 with FP64 cut to 1 TFLOPS.
  EXPECT_DOUBLE_EQ(row("H200").fp16_tflops, h100.fp16_tflops);
  EXPECT_DOUBLE_EQ(row("H200").memory_gbs, 4800);
  EXPECT_DOUBLE_EQ(row("H800 SXM").fp8_tflops, h100.fp8_tflops);
  EXPECT_DOUBLE_EQ(row("H800 SXM").fp64_tflops, 1);
  EXPECT_DOUBLE_EQ(row("H100 NVL").memory_gbs, 3900);
  // Memory: 80 GB HBM3, 94 GB on the NVL, 141 GB HBM3e on the H200; the H20's 96 GB.
  EXPECT_EQ(h100.capacity_gib, 80);
  EXPECT_EQ(pcie.capacity_gib, 80);
  EXPECT_EQ(row("H100 NVL").capacity_gib, 94);
  EXPECT_EQ(row("H800 SXM").capacity_gib, 80);
  EXPECT_EQ(row("H200").capacity_gib, 141);
  EXPECT_EQ(row("H20").capacity_gib, 96);
}

TEST(DeviceTableTest, BlackwellRowsHoldTheTechnicalBriefAndWhitepaper) {
  const DeviceSpec& b200 = row("B200");
  EXPECT_EQ(b200.compute_major, 10);
  EXPECT_EQ(b200.sm_count, 148);
  EXPECT_DOUBLE_EQ(b200.memory_gbs, 8000);
  EXPECT_DOUBLE_EQ(b200.fp16_tflops, 2250);
  EXPECT_DOUBLE_EQ(b200.fp8_tflops, 4500);
  EXPECT_DOUBLE_EQ(b200.fp4_tflops, 9000);
  EXPECT_DOUBLE_EQ(row("GB200").fp16_tflops, 2500);
  EXPECT_DOUBLE_EQ(row("GB200").fp4_tflops, 10000);
  const DeviceSpec& rtx5090 = row("RTX 5090");
  EXPECT_EQ(rtx5090.compute_major, 12);
  EXPECT_EQ(rtx5090.sm_count, 170);
  EXPECT_DOUBLE_EQ(rtx5090.fp16_tflops, 209.5);
  EXPECT_DOUBLE_EQ(rtx5090.fp8_tflops, 419);
  // FP4 with FP32 accumulate runs at the full rate on GeForce Blackwell.
  EXPECT_DOUBLE_EQ(rtx5090.fp4_tflops, 1676);
  EXPECT_DOUBLE_EQ(rtx5090.memory_gbs, 1792);
  // Memory as enabled (DGX B200: 1,440 GB over 8 GPUs; GB200 NVL72: 186 GB per GPU), not the
  // 192 GB of HBM3e the package carries.
  EXPECT_EQ(b200.capacity_gib, 180);
  EXPECT_EQ(row("GB200").capacity_gib, 186);
  EXPECT_EQ(rtx5090.capacity_gib, 32);
  EXPECT_EQ(row("RTX PRO 6000 Blackwell").capacity_gib, 96);
}

// The fact the model's projections rest on: per FP32 FLOP, a GeForce card's FP16 Tensor Core rate
// with FP32 accumulate is half that of the data-centre part of its architecture.
TEST(DeviceTableTest, GeForceRunsFp32AccumulateAtHalfTheDataCentreRate) {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"RTX 2070", "T4"}, {"RTX 2070 SUPER", "T4"}, {"RTX 2080", "T4"}, {"RTX 2080 Ti", "T4"},
      {"RTX 3060", "A10"}, {"A10G", "A10"}, {"RTX 3070", "A10"}, {"RTX 3080", "A10"}, {"RTX 3090", "A10"},
      {"RTX 4070", "L4"}, {"RTX 4080", "L4"}, {"RTX 4090", "L4"},
  };
  for (const auto& [geforce, data_centre] : pairs) {
    SCOPED_TRACE(geforce);
    const double geforce_ratio = row(geforce).fp16_tflops / row(geforce).fp32_tflops;
    const double data_centre_ratio = row(data_centre).fp16_tflops / row(data_centre).fp32_tflops;
    EXPECT_NEAR(geforce_ratio, data_centre_ratio / 2, 0.05 * data_centre_ratio);
  }
  // Blackwell's GDDR part for data centres is the professional RTX PRO 6000, at 4 per FP32 FLOP;
  // the 5090's FP16 is 2, B200's 28. TITAN RTX is the Turing exception, at the full rate.
  EXPECT_NEAR(row("RTX 5090").fp16_tflops / row("RTX 5090").fp32_tflops, 2, 0.01);
  EXPECT_NEAR(row("RTX 5080").fp16_tflops / row("RTX 5080").fp32_tflops, 2, 0.01);
  EXPECT_NEAR(row("RTX PRO 6000 Blackwell").fp16_tflops / row("RTX PRO 6000 Blackwell").fp32_tflops, 4, 0.01);
  EXPECT_NEAR(row("TITAN RTX").fp16_tflops / row("TITAN RTX").fp32_tflops, 8, 0.05);
}

TEST(DeviceMatchTest, FindsEveryTraceRecordedName) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"Tesla V100-DGXS-32GB", "V100 SXM2"},
      {"Tesla V100-SXM2-16GB", "V100 SXM2"},
      {"Tesla V100-SXM2-32GB", "V100 SXM2"},
      {"Tesla V100-PCIE-16GB", "V100 PCIe"},
      {"Tesla V100S-PCIE-32GB", "V100S PCIe"},
      {"NVIDIA A100-SXM4-80GB", "A100 SXM"},
      {"A100-SXM4-40GB", "A100 SXM 40GB"},
      {"A100-PG509-200", "A100 SXM"},
      {"NVIDIA A100-PG509-200", "A100 SXM"},
      {"NVIDIA A100 80GB PCIe", "A100 PCIe"},
      {"NVIDIA A100-PCIE-40GB", "A100 PCIe 40GB"},
      {"NVIDIA H100 80GB HBM3", "H100 SXM"},
      {"NVIDIA H100 PCIe", "H100 PCIe"},
      {"NVIDIA H100 NVL", "H100 NVL"},
      {"NVIDIA H800", "H800 SXM"},
      {"NVIDIA H200", "H200"},
      {"NVIDIA B200", "B200"},
      {"NVIDIA GB200", "GB200"},
      {"NVIDIA GeForce RTX 4090", "RTX 4090"},
      {"NVIDIA GeForce RTX 3090", "RTX 3090"},
      {"NVIDIA GeForce RTX 5090", "RTX 5090"},
      {"NVIDIA GeForce RTX 2080 Ti", "RTX 2080 Ti"},
      {"NVIDIA TITAN RTX", "TITAN RTX"},
      {"Tesla T4", "T4"},
      {"NVIDIA L4", "L4"},
      {"NVIDIA L40S", "L40S"},
      {"NVIDIA A10", "A10"},
      {"NVIDIA A30", "A30"},
      {"NVIDIA A10G", "A10G"},
      {"NVIDIA GeForce RTX 2070 SUPER", "RTX 2070 SUPER"},
      {"NVIDIA H20", "H20"},
      {"NVIDIA GH200 480GB", "GH200"},
      {"NVIDIA RTX PRO 6000 Blackwell Server Edition", "RTX PRO 6000 Blackwell"},
      {"NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "RTX PRO 6000 Blackwell"},
  };
  for (const auto& [name, expected] : cases) {
    EXPECT_EQ(nameOf(findDevice(name)), expected) << name;
  }
}

TEST(DeviceMatchTest, ToleratesCaseAndSeparators) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"H100-SXM", "H100 SXM"},      {"h100 sxm", "H100 SXM"},     {"H100_SXM", "H100 SXM"},
      {"h100sxm", "H100 SXM"},       {"H100 SXM5", "H100 SXM"},    {"h100-pcie", "H100 PCIe"},
      {"rtx4090", "RTX 4090"},       {"RTX 4090", "RTX 4090"},     {"RTX_4090", "RTX 4090"},
      {"GeForce RTX 2070", "RTX 2070"}, {"rtx-2080-ti", "RTX 2080 Ti"},
      {"RTX 2080Ti", "RTX 2080 Ti"}, {"a100 80gb", "A100 SXM"},
      {"A100 SXM 40GB", "A100 SXM 40GB"}, {"A100-PG509-200 40GB", "A100 SXM 40GB"},
      {"v100s", "V100S PCIe"},       {"l40s", "L40S"},             {"gb200", "GB200"},
  };
  for (const auto& [name, expected] : cases) {
    EXPECT_EQ(nameOf(findDevice(name)), expected) << name;
  }
}

TEST(DeviceMatchTest, BareFamilyNamePicksTheDataCentreBoard) {
  EXPECT_EQ(nameOf(findDevice("A100")), "A100 SXM");
  EXPECT_EQ(nameOf(findDevice("H100")), "H100 SXM");
  EXPECT_EQ(nameOf(findDevice("V100")), "V100 SXM2");
  EXPECT_EQ(nameOf(findDevice("NVIDIA A100")), "A100 SXM");
  EXPECT_EQ(nameOf(findDevice("H800")), "H800 SXM");
}

TEST(DeviceMatchTest, DoesNotTakeOneProductForAnother) {
  EXPECT_EQ(nameOf(findDevice("A10")), "A10");
  EXPECT_EQ(nameOf(findDevice("A100")), "A100 SXM");
  EXPECT_EQ(nameOf(findDevice("L4")), "L4");
  EXPECT_EQ(nameOf(findDevice("L40S")), "L40S");
  EXPECT_EQ(nameOf(findDevice("RTX 2080")), "RTX 2080");
  const std::vector<std::string> others = {
      "",
      "NVIDIA",
      "H1000",
      "L40",
      "A1000",
      "H10",
      "NVIDIA GeForce RTX 4090 D",
      "NVIDIA GeForce RTX 3080 Ti",
      "NVIDIA GeForce RTX 4080 SUPER",
      "NVIDIA GeForce RTX 4090 Laptop GPU",
      "Quadro RTX 6000",
      "NVIDIA RTX A6000",
      "NVIDIA RTX 6000 Ada Generation",
      "TITAN V",
      "NVIDIA H200 NVL",
      "NVIDIA H800 PCIe",
      "V100S SXM",
      "A100 SXM4 64GB",
      "H100 SXM PCIe",
      "NVIDIA A100-SXM4-80GB MIG 1g.10gb",
      "NVIDIA GeForce RTX 2080 SUPER",
      "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition",
      "NVIDIA H20-3e",
      "NVIDIA L4-24Q",
      "4090",
      "Orin",
  };
  for (const std::string& name : others) {
    EXPECT_EQ(findDevice(name), nullptr)
        << "\"" << name << "\" matched " << nameOf(findDevice(name));
  }
}

TEST(DeviceCapabilityTest, PicksTheDataCentrePartOfEachCapability) {
  const std::vector<std::pair<std::pair<int, int>, std::string>> cases = {
      {{7, 0}, "V100 SXM2"}, {{7, 2}, "V100 SXM2"}, {{7, 5}, "T4"},       {{8, 0}, "A100 SXM"},
      {{8, 6}, "A10"},       {{8, 9}, "L4"},        {{9, 0}, "H100 SXM"}, {{10, 0}, "B200"},
      {{12, 0}, "RTX PRO 6000 Blackwell"},
  };
  for (const auto& [capability, expected] : cases) {
    const DeviceSpec* spec = deviceForComputeCapability(capability.first, capability.second);
    EXPECT_EQ(nameOf(spec), expected) << capability.first << "." << capability.second;
    if (spec != nullptr && capability.second != 2) {
      EXPECT_EQ(spec->compute_major, capability.first);
      EXPECT_EQ(spec->compute_minor, capability.second);
    }
  }
  // Orin, B300 and capabilities older or newer than the table: no row.
  EXPECT_EQ(deviceForComputeCapability(8, 7), nullptr);
  EXPECT_EQ(deviceForComputeCapability(10, 3), nullptr);
  EXPECT_EQ(deviceForComputeCapability(6, 1), nullptr);
  EXPECT_EQ(deviceForComputeCapability(0, 0), nullptr);
  EXPECT_EQ(deviceForComputeCapability(13, 0), nullptr);
}

trace::Device gpu(trace::Trace& trace, std::string_view name, int major = 0, int minor = 0,
                  std::uint64_t memory_bytes = 0) {
  trace::Device device;
  device.id = static_cast<std::uint32_t>(trace.devices.size());
  device.name = trace.strings.intern(name);
  device.compute_major = major;
  device.compute_minor = minor;
  device.total_memory_bytes = memory_bytes;
  device.kind = trace::DeviceKind::kGpu;
  return device;
}

TEST(DeviceChoiceTest, TraceNameDecidesFirst) {
  trace::Trace trace;
  trace.devices.push_back(gpu(trace, "Tesla V100-DGXS-32GB", 7, 0));
  const DeviceChoice choice = chooseRecordedDevice(trace, "H100-SXM");
  EXPECT_EQ(nameOf(choice.spec), "V100 SXM2");
  EXPECT_EQ(choice.basis, DeviceBasis::kTraceName);
  EXPECT_EQ(choice.reason, "the trace names \"Tesla V100-DGXS-32GB\"");
}

TEST(DeviceChoiceTest, DeviceMemoryPicksTheA100BoardTheNameDoesNotSay) {
  // The A100 DLRM trace: an SXM4 board (PG509) with 42,505,273,344 bytes: the 40GB row.
  trace::Trace trace;
  trace.devices.push_back(gpu(trace, "NVIDIA A100-PG509-200", 8, 0, 42505273344ULL));
  const DeviceChoice choice = chooseRecordedDevice(trace, "");
  EXPECT_EQ(nameOf(choice.spec), "A100 SXM 40GB");
  EXPECT_EQ(choice.basis, DeviceBasis::kTraceName);
  EXPECT_EQ(choice.reason, "the trace names \"NVIDIA A100-PG509-200\" with 40 GB of memory");

  trace::Trace eighty;
  eighty.devices.push_back(gpu(eighty, "NVIDIA A100-PG509-200", 8, 0, 85198045184ULL));
  EXPECT_EQ(nameOf(chooseRecordedDevice(eighty, "").spec), "A100 SXM");
  // A name that says the size wins over the memory the device reports.
  trace::Trace said;
  said.devices.push_back(gpu(said, "NVIDIA A100-SXM4-80GB", 8, 0, 42505273344ULL));
  EXPECT_EQ(nameOf(chooseRecordedDevice(said, "").spec), "A100 SXM");
}

// A row's capacity is the datasheet's nominal size in GiB, which the device reports less of: the
// A100 DLRM trace's 40GB board reports 42,505,273,344 bytes, 39.6 GiB, and its row holds 40.
TEST(DeviceChoiceTest, ChosenRowHoldsTheDatasheetsNominalCapacity) {
  trace::Trace trace;
  trace.devices.push_back(gpu(trace, "NVIDIA A100-PG509-200", 8, 0, 42505273344ULL));
  const DeviceChoice choice = chooseRecordedDevice(trace, "");
  ASSERT_NE(choice.spec, nullptr);
  EXPECT_EQ(choice.spec->capacity_gib, 40);
  EXPECT_LT(42505273344.0 / (1024.0 * 1024 * 1024), choice.spec->capacity_gib);
  // A name picks the row of its size; one board's sizes are rows of their own.
  EXPECT_EQ(findDevice("NVIDIA A100-SXM4-80GB")->capacity_gib, 80);
  EXPECT_EQ(findDevice("A100-PCIe-40GB")->capacity_gib, 40);
  EXPECT_EQ(findDevice("NVIDIA GH200 480GB")->capacity_gib, 96);  // the name's 480 GB is the LPDDR5X
  // --gpu NAME reads the row the name finds.
  EXPECT_EQ(findDevice("H100-NVL")->capacity_gib, 94);
  EXPECT_EQ(findDevice("H200")->capacity_gib, 141);
  EXPECT_EQ(findDevice("rtx2080ti")->capacity_gib, 11);
  // A row that stands for several sizes says unknown, whatever size the name states.
  EXPECT_EQ(findDevice("Tesla V100-SXM2-32GB")->capacity_gib, 0);
  EXPECT_EQ(findDevice("Tesla V100-PCIE-16GB")->capacity_gib, 0);
}

TEST(DeviceChoiceTest, LaterGpuNameMatchesWhenTheFirstHasNone) {
  trace::Trace trace;
  trace::Device host;
  host.name = trace.strings.intern("H100");  // a host CPU is never the GPU, whatever its name
  host.kind = trace::DeviceKind::kCpu;
  trace.devices.push_back(host);
  trace.devices.push_back(gpu(trace, ""));
  trace.devices.push_back(gpu(trace, "NVIDIA H100 80GB HBM3", 9, 0));
  const DeviceChoice choice = chooseRecordedDevice(trace, "");
  EXPECT_EQ(nameOf(choice.spec), "H100 SXM");
  EXPECT_EQ(choice.basis, DeviceBasis::kTraceName);
}

TEST(DeviceChoiceTest, ComputeCapabilityWhenTheNameIsUnknownOrAbsentAndNoSmCountIsRecorded) {
  trace::Trace unnamed;
  unnamed.devices.push_back(gpu(unnamed, "", 9, 0));
  DeviceChoice choice = chooseRecordedDevice(unnamed, "A100");
  EXPECT_EQ(nameOf(choice.spec), "H100 SXM");
  EXPECT_EQ(choice.basis, DeviceBasis::kComputeCapability);
  EXPECT_EQ(choice.reason, "compute capability 9.0 (the trace names no GPU, and no SM count to derive its peaks from)");

  trace::Trace unknown;
  unknown.devices.push_back(gpu(unknown, "NVIDIA H100 80GB HBM3 MIG 1g.10gb", 9, 0));
  choice = chooseRecordedDevice(unknown, "");
  EXPECT_EQ(nameOf(choice.spec), "H100 SXM");
  EXPECT_EQ(choice.basis, DeviceBasis::kComputeCapability);
  EXPECT_EQ(choice.reason,
            "compute capability 9.0 (the table has no row named \"NVIDIA H100 80GB HBM3 MIG "
            "1g.10gb\", and no SM count to derive its peaks from)");
}

TEST(DeviceChoiceTest, UserNamedGpuOnlyWhenTheTraceSaysNeither) {
  trace::Trace empty;
  DeviceChoice choice = chooseRecordedDevice(empty, "H100-SXM");
  EXPECT_EQ(nameOf(choice.spec), "H100 SXM");
  EXPECT_EQ(choice.basis, DeviceBasis::kUserNamed);
  EXPECT_EQ(choice.reason, "--gpu H100-SXM (the trace names no GPU)");

  trace::Trace orin;
  orin.devices.push_back(gpu(orin, "Orin", 8, 7));
  choice = chooseRecordedDevice(orin, "rtx4090");
  EXPECT_EQ(nameOf(choice.spec), "RTX 4090");
  EXPECT_EQ(choice.basis, DeviceBasis::kUserNamed);
  EXPECT_EQ(choice.reason,
            "--gpu rtx4090 (the trace's GPU \"Orin\" (compute capability 8.7) is not in the "
            "table)");
}

TEST(DeviceChoiceTest, UnknownDeviceSaysHowToNameOne) {
  trace::Trace empty;
  DeviceChoice choice = chooseRecordedDevice(empty, "");
  EXPECT_EQ(choice.spec, nullptr);
  EXPECT_EQ(choice.basis, DeviceBasis::kNone);
  EXPECT_EQ(choice.reason, "the trace names no GPU: name it with --gpu NAME, e.g. --gpu H100-SXM");

  choice = chooseRecordedDevice(empty, "X9000");
  EXPECT_EQ(choice.spec, nullptr);
  EXPECT_EQ(choice.basis, DeviceBasis::kNone);
  EXPECT_EQ(choice.reason, "--gpu X9000 is not in the table (the trace names no GPU); known: " +
                               deviceNamesList());

  // A host-only trace (the trainer's CPU backend) has no GPU to choose.
  trace::Trace host_only;
  trace::Device cpu;
  cpu.name = host_only.strings.intern("Intel(R) Xeon(R)");
  cpu.kind = trace::DeviceKind::kCpu;
  host_only.devices.push_back(cpu);
  choice = chooseRecordedDevice(host_only, "");
  EXPECT_EQ(choice.spec, nullptr);
  EXPECT_NE(choice.reason.find("name it with --gpu NAME"), std::string::npos);
}

TEST(DevicePeakTest, EachPrecisionReadsItsUnit) {
  const DeviceSpec& h100 = row("H100 SXM");
  EXPECT_DOUBLE_EQ(peakTflops(h100, MathPrecision::kFp32Simt), 67);
  EXPECT_DOUBLE_EQ(peakTflops(h100, MathPrecision::kFp32), 67);
  EXPECT_DOUBLE_EQ(peakTflops(h100, MathPrecision::kTf32), 494.7);
  EXPECT_DOUBLE_EQ(peakTflops(h100, MathPrecision::kFp16), 989.4);
  EXPECT_DOUBLE_EQ(peakTflops(h100, MathPrecision::kBf16), 989.4);
  EXPECT_DOUBLE_EQ(peakTflops(h100, MathPrecision::kFp8), 1978.9);
  EXPECT_DOUBLE_EQ(peakTflops(h100, MathPrecision::kInt8), 1978.9);
  EXPECT_DOUBLE_EQ(peakTflops(h100, MathPrecision::kFp64), 67);
  EXPECT_DOUBLE_EQ(peakTflops(h100, MathPrecision::kFp4), 0);
  EXPECT_DOUBLE_EQ(peakTflops(h100, MathPrecision::kUnknown), 0);
  EXPECT_DOUBLE_EQ(peakTflops(row("B200"), MathPrecision::kFp4), 9000);
  EXPECT_DOUBLE_EQ(peakTflops(row("V100 SXM2"), MathPrecision::kTf32), 0);
  EXPECT_DOUBLE_EQ(peakTflops(row("T4"), MathPrecision::kBf16), 0);
}

TEST(DeviceNamesTest, BasisNamesAndTheListOfRows) {
  EXPECT_STREQ(deviceBasisName(DeviceBasis::kNone), "none");
  EXPECT_STREQ(deviceBasisName(DeviceBasis::kTraceName), "trace_name");
  EXPECT_STREQ(deviceBasisName(DeviceBasis::kComputeCapability), "compute_capability");
  EXPECT_STREQ(deviceBasisName(DeviceBasis::kUserNamed), "user");
  EXPECT_STREQ(deviceBasisName(DeviceBasis::kDerived), "derived");
  EXPECT_STREQ(deviceBasisName(DeviceBasis::kKernelNames), "kernel_names");
  const std::string list = deviceNamesList();
  EXPECT_EQ(list.rfind("V100 SXM2, V100 PCIe, ", 0), 0u) << list;
  for (const DeviceSpec& spec : deviceTable()) {
    EXPECT_NE(list.find(spec.name), std::string::npos) << spec.name;
  }
}

}  // namespace
}  // namespace ampscope::analyzer
