// The device table's rows: every field of every row as it stands, so that a change of the table's
// storage cannot change a number, a name or how a row is matched.
#include "analyzer/device_rows.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>
#include <string_view>

namespace ampscope::analyzer {
namespace {

const char* boardText(BoardForm form) {
  switch (form) {
    case BoardForm::kAny: return "any";
    case BoardForm::kSxm: return "sxm";
    case BoardForm::kPcie: return "pcie";
    case BoardForm::kNvl: return "nvl";
  }
  return "?";
}

// One line per row, every field; numbers in the shortest text that reads back as the same double.
std::string dumpOf(const DeviceRow& row) {
  const DeviceSpec& s = row.spec;
  return fmt::format("{}|{}|{}.{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}\n", s.name, s.architecture,
                     s.compute_major, s.compute_minor, s.sm_count, s.memory_gbs, s.fp32_tflops, s.tf32_tflops,
                     s.fp16_tflops, s.bf16_tflops, s.fp8_tflops, s.fp4_tflops, s.int8_tops, s.fp64_tflops,
                     std::string(row.family), boardText(row.form), row.memory_gb, row.ti, row.super,
                     row.device_memory_gb, s.sources);
}

// Every row as the table held it when its rows were a C++ literal, field by field: name,
// architecture, capability, SMs, GB/s, FP32, TF32, FP16, BF16, FP8, FP4, INT8, FP64, family, board,
// name memory GB, Ti, SUPER, device memory GB, sources. A row changed on purpose changes here too.
constexpr std::string_view kRowsAsHeld = R"rows(V100 SXM2|Volta|7.0|80|900|15.7|0|125|0|0|0|0|7.8|v100|sxm|0|false|false|0|NVIDIA Tesla V100 datasheet; Volta architecture whitepaper, Table 1
V100 PCIe|Volta|7.0|80|900|14|0|112|0|0|0|0|7|v100|pcie|0|false|false|0|NVIDIA Tesla V100 datasheet
V100S PCIe|Volta|7.0|80|1134|16.4|0|130|0|0|0|0|8.2|v100s|pcie|0|false|false|0|NVIDIA V100 datasheet (V100S PCIe column)
T4|Turing|7.5|40|320|8.1|0|65|0|0|0|130|0.25|t4|any|0|false|false|0|NVIDIA T4 datasheet; FP64 derived (1/32 of FP32, Turing whitepaper)
RTX 2070|Turing|7.5|36|448|7.5|0|29.9|0|0|0|119.4|0.23|rtx2070|any|0|false|false|0|derived: Turing whitepaper per-SM rates, 36 SMs, 1620 MHz reference boost
RTX 2070 SUPER|Turing|7.5|40|448|9.06|0|36.25|0|0|0|145|0.28|rtx2070|any|0|false|true|0|derived: Turing whitepaper per-SM rates, 40 SMs, 1770 MHz reference boost; RTX 2070 SUPER product page
RTX 2080|Turing|7.5|46|448|10.1|0|40.3|0|0|0|161.1|0.31|rtx2080|any|0|false|false|0|derived: Turing whitepaper per-SM rates, 46 SMs, 1710 MHz reference boost
RTX 2080 Ti|Turing|7.5|68|616|13.4|0|53.8|0|0|0|215.2|0.42|rtx2080|any|0|true|false|0|NVIDIA Turing architecture whitepaper / Turing In-Depth, Table 1 (reference card)
TITAN RTX|Turing|7.5|72|672|16.3|0|130.5|0|0|0|261|0.51|titanrtx|any|0|false|false|0|NVIDIA TITAN RTX product page; Turing whitepaper Table 1 (Quadro RTX 6000 column)
RTX 3060|Ampere|8.6|28|360|12.7|12.7|25.5|25.5|0|0|101.9|0.2|rtx3060|any|0|false|false|0|derived: GA102 whitepaper per-SM rates, 28 SMs, 1777 MHz boost
RTX 3070|Ampere|8.6|46|448|20.3|20.3|40.6|40.6|0|0|162.6|0.32|rtx3070|any|0|false|false|0|NVIDIA Ampere GA102 GPU architecture whitepaper, Appendix A
RTX 3080|Ampere|8.6|68|760|29.8|29.8|59.5|59.5|0|0|238|0.47|rtx3080|any|0|false|false|0|NVIDIA Ampere GA102 GPU architecture whitepaper, Table 1
RTX 3090|Ampere|8.6|82|936|35.6|35.6|71|71|0|0|284|0.56|rtx3090|any|0|false|false|0|NVIDIA Ampere GA102 GPU architecture whitepaper, Appendix A
A10|Ampere|8.6|72|600|31.2|62.5|125|125|0|0|250|0.49|a10|any|0|false|false|0|NVIDIA A10 datasheet; FP64 derived (1/64 of FP32)
A10G|Ampere|8.6|80|600|35|35|70|70|0|0|280|0.55|a10g|any|0|false|false|0|derived: GA102 whitepaper per-SM rates, 80 SMs, 1710 MHz, GeForce FP32-accumulate rate; AWS G5
A30|Ampere|8.0|56|933|10.3|82|165|165|0|0|330|10.3|a30|any|0|false|false|0|NVIDIA A30 datasheet
A100 SXM|Ampere|8.0|108|2039|19.5|156|312|312|0|0|624|19.5|a100|sxm|80|false|false|0|NVIDIA A100 datasheet (80GB SXM); A100 architecture whitepaper, Table 1
A100 SXM 40GB|Ampere|8.0|108|1555|19.5|156|312|312|0|0|624|19.5|a100|sxm|40|false|false|0|NVIDIA A100 datasheet (40GB SXM)
A100 PCIe|Ampere|8.0|108|1935|19.5|156|312|312|0|0|624|19.5|a100|pcie|80|false|false|0|NVIDIA A100 datasheet (80GB PCIe)
A100 PCIe 40GB|Ampere|8.0|108|1555|19.5|156|312|312|0|0|624|19.5|a100|pcie|40|false|false|0|NVIDIA A100 datasheet (40GB PCIe)
RTX 4070|Ada|8.9|46|504|29.1|29.1|58.3|58.3|116.6|0|233.2|0.45|rtx4070|any|0|false|false|0|derived: Ada whitepaper per-SM rates, 46 SMs, 2475 MHz boost; RTX 4070 product page
RTX 4080|Ada|8.9|76|716.8|48.7|48.7|97.5|97.5|194.9|0|389.9|0.76|rtx4080|any|0|false|false|0|NVIDIA Ada GPU architecture whitepaper, Appendix A
RTX 4090|Ada|8.9|128|1008|82.6|82.6|165.2|165.2|330.3|0|660.6|1.29|rtx4090|any|0|false|false|0|NVIDIA Ada GPU architecture whitepaper, Appendix A
L4|Ada|8.9|58|300|30.3|60|121|121|242.5|0|242.5|0.47|l4|any|0|false|false|0|NVIDIA L4 datasheet; Ada whitepaper v2.01; FP64 derived (1/64 of FP32)
L40S|Ada|8.9|142|864|91.6|183|362.05|362.05|733|0|733|1.43|l40s|any|0|false|false|0|NVIDIA L40S datasheet; FP64 derived (1/64 of FP32)
H100 SXM|Hopper|9.0|132|3350|67|494.7|989.4|989.4|1978.9|0|1978.9|67|h100|sxm|0|false|false|0|NVIDIA H100 datasheet (SXM); H100 architecture whitepaper
H100 PCIe|Hopper|9.0|114|2000|51|378|756.5|756.5|1513|0|1513|51|h100|pcie|0|false|false|0|NVIDIA H100 datasheet (PCIe)
H100 NVL|Hopper|9.0|132|3900|60|417.5|835.5|835.5|1670.5|0|1670.5|60|h100|nvl|0|false|false|0|NVIDIA H100 datasheet (H100 NVL, per GPU)
H800 SXM|Hopper|9.0|132|3350|67|494.7|989.4|989.4|1978.9|0|1978.9|1|h800|sxm|0|false|false|0|NVIDIA H800 datasheet (SXM)
H200|Hopper|9.0|132|4800|67|494.7|989.4|989.4|1978.9|0|1978.9|67|h200|sxm|0|false|false|0|NVIDIA H200 datasheet (SXM)
GH200|Hopper|9.0|132|4000|67|494.7|989.4|989.4|1978.9|0|1978.9|67|gh200|any|0|false|false|96|NVIDIA GH200 Grace Hopper Superchip datasheet (96GB HBM3)
GH200 144GB|Hopper|9.0|132|4900|67|494.7|989.4|989.4|1978.9|0|1978.9|67|gh200|any|0|false|false|144|NVIDIA GH200 Grace Hopper Superchip datasheet (144GB HBM3e)
H20|Hopper|9.0|78|4000|44|74|148|148|296|0|296|1|h20|any|0|false|false|0|NVIDIA HGX H20 specifications (launch listing)
B200|Blackwell|10.0|148|8000|80|1100|2250|2250|4500|9000|4500|40|b200|sxm|0|false|false|0|NVIDIA Blackwell architecture technical brief (HGX B200); DGX B200 datasheet
GB200|Blackwell|10.0|152|8000|90|1250|2500|2500|5000|10000|5000|45|gb200|any|0|false|false|0|NVIDIA Blackwell architecture technical brief (GB200, per GPU); GB200 NVL72 page
RTX 5080|Blackwell|12.0|84|960|56.3|56.3|112.6|112.6|225.1|900.5|450.2|0.88|rtx5080|any|0|false|false|0|derived: RTX Blackwell whitepaper per-SM rates, 84 SMs, 2617 MHz boost; RTX 5080 product page
RTX 5090|Blackwell|12.0|170|1792|104.8|104.8|209.5|209.5|419|1676|838|1.64|rtx5090|any|0|false|false|0|NVIDIA RTX Blackwell GPU architecture whitepaper, Appendix A
RTX PRO 6000 Blackwell|Blackwell|12.0|188|1792|125|250|500|500|1000|2000|1000|1.95|rtxpro6000|any|0|false|false|0|NVIDIA RTX PRO 6000 Blackwell datasheet; derived: RTX Blackwell whitepaper per-SM rates, 2.6 GHz
)rows";

TEST(DeviceRowsTest, EveryFieldOfEveryRowIsWhatTheTableHeld) {
  std::string dump;
  for (const DeviceRow& row : deviceRows()) dump += dumpOf(row);
  EXPECT_EQ(dump, kRowsAsHeld);
}

}  // namespace
}  // namespace ampscope::analyzer
