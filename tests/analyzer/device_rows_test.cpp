// The device table's rows, read from analyzer/rules/devices.tsv: every field of every row as the
// table held it, every row cited and in plausible units, every name its own row's; and the file
// format, whose errors name the line, the column, the row and the column's name.
#include "analyzer/core/device_rows.h"

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "analyzer/core/device_names.h"
#include "analyzer/core/device_rows_file.h"

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
  return fmt::format("{}|{}|{}.{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}\n", s.name, s.architecture,
                     s.compute_major, s.compute_minor, s.sm_count, s.memory_gbs, s.capacity_gib, s.fp32_tflops,
                     s.tf32_tflops,
                     s.fp16_tflops, s.bf16_tflops, s.fp8_tflops, s.fp4_tflops, s.int8_tops, s.fp64_tflops,
                     std::string(row.family), boardText(row.form), row.memory_gb, row.ti, row.super,
                     row.device_memory_gb, s.sources);
}

// Every field of every row, in the order name, architecture, capability, SMs, GB/s, GiB, FP32, TF32,
// FP16, BF16, FP8, FP4, INT8, FP64, family, board, name memory GB, Ti, SUPER, device memory GB,
// sources: the file's text read into exactly these values. A row changed on purpose changes here
// too, with its source.
constexpr std::string_view kRowsAsHeld = R"rows(V100 SXM2|Volta|7.0|80|900|0|15.7|0|125|0|0|0|0|7.8|v100|sxm|0|false|false|0|NVIDIA Tesla V100 datasheet; Volta architecture whitepaper, Table 1
V100 PCIe|Volta|7.0|80|900|0|14|0|112|0|0|0|0|7|v100|pcie|0|false|false|0|NVIDIA Tesla V100 datasheet
V100S PCIe|Volta|7.0|80|1134|32|16.4|0|130|0|0|0|0|8.2|v100s|pcie|0|false|false|0|NVIDIA V100 datasheet (V100S PCIe column)
T4|Turing|7.5|40|320|16|8.1|0|65|0|0|0|130|0.25|t4|any|0|false|false|0|NVIDIA T4 datasheet; FP64 derived (1/32 of FP32, Turing whitepaper)
RTX 2070|Turing|7.5|36|448|8|7.5|0|29.9|0|0|0|119.4|0.23|rtx2070|any|0|false|false|0|derived: Turing whitepaper per-SM rates, 36 SMs, 1620 MHz reference boost; RTX 2070 product page (8 GB)
RTX 2070 SUPER|Turing|7.5|40|448|8|9.06|0|36.25|0|0|0|145|0.28|rtx2070|any|0|false|true|0|derived: Turing whitepaper per-SM rates, 40 SMs, 1770 MHz reference boost; RTX 2070 SUPER product page
RTX 2080|Turing|7.5|46|448|8|10.1|0|40.3|0|0|0|161.1|0.31|rtx2080|any|0|false|false|0|derived: Turing whitepaper per-SM rates, 46 SMs, 1710 MHz reference boost; RTX 2080 product page (8 GB)
RTX 2080 Ti|Turing|7.5|68|616|11|13.4|0|53.8|0|0|0|215.2|0.42|rtx2080|any|0|true|false|0|NVIDIA Turing architecture whitepaper / Turing In-Depth, Table 1 (reference card)
TITAN RTX|Turing|7.5|72|672|24|16.3|0|130.5|0|0|0|261|0.51|titanrtx|any|0|false|false|0|NVIDIA TITAN RTX product page; Turing whitepaper Table 1 (Quadro RTX 6000 column)
RTX 3060|Ampere|8.6|28|360|12|12.7|12.7|25.5|25.5|0|0|101.9|0.2|rtx3060|any|0|false|false|0|derived: GA102 whitepaper per-SM rates, 28 SMs, 1777 MHz boost; RTX 3060 product page (12 GB)
RTX 3070|Ampere|8.6|46|448|8|20.3|20.3|40.6|40.6|0|0|162.6|0.32|rtx3070|any|0|false|false|0|NVIDIA Ampere GA102 GPU architecture whitepaper, Appendix A
RTX 3080|Ampere|8.6|68|760|10|29.8|29.8|59.5|59.5|0|0|238|0.47|rtx3080|any|0|false|false|0|NVIDIA Ampere GA102 GPU architecture whitepaper, Table 1
RTX 3090|Ampere|8.6|82|936|24|35.6|35.6|71|71|0|0|284|0.56|rtx3090|any|0|false|false|0|NVIDIA Ampere GA102 GPU architecture whitepaper, Appendix A
A10|Ampere|8.6|72|600|24|31.2|62.5|125|125|0|0|250|0.49|a10|any|0|false|false|0|NVIDIA A10 datasheet; FP64 derived (1/64 of FP32)
A10G|Ampere|8.6|80|600|24|35|35|70|70|0|0|280|0.55|a10g|any|0|false|false|0|derived: GA102 whitepaper per-SM rates, 80 SMs, 1710 MHz, GeForce FP32-accumulate rate; AWS G5 (24 GB)
A30|Ampere|8.0|56|933|24|10.3|82|165|165|0|0|330|10.3|a30|any|0|false|false|0|NVIDIA A30 datasheet
A100 SXM|Ampere|8.0|108|2039|80|19.5|156|312|312|0|0|624|19.5|a100|sxm|80|false|false|0|NVIDIA A100 datasheet (80GB SXM); A100 architecture whitepaper, Table 1
A100 SXM 40GB|Ampere|8.0|108|1555|40|19.5|156|312|312|0|0|624|19.5|a100|sxm|40|false|false|0|NVIDIA A100 datasheet (40GB SXM)
A100 PCIe|Ampere|8.0|108|1935|80|19.5|156|312|312|0|0|624|19.5|a100|pcie|80|false|false|0|NVIDIA A100 datasheet (80GB PCIe)
A100 PCIe 40GB|Ampere|8.0|108|1555|40|19.5|156|312|312|0|0|624|19.5|a100|pcie|40|false|false|0|NVIDIA A100 datasheet (40GB PCIe)
RTX 4070|Ada|8.9|46|504|12|29.1|29.1|58.3|58.3|116.6|0|233.2|0.45|rtx4070|any|0|false|false|0|derived: Ada whitepaper per-SM rates, 46 SMs, 2475 MHz boost; RTX 4070 product page
RTX 4080|Ada|8.9|76|716.8|16|48.7|48.7|97.5|97.5|194.9|0|389.9|0.76|rtx4080|any|0|false|false|0|NVIDIA Ada GPU architecture whitepaper, Appendix A
RTX 4090|Ada|8.9|128|1008|24|82.6|82.6|165.2|165.2|330.3|0|660.6|1.29|rtx4090|any|0|false|false|0|NVIDIA Ada GPU architecture whitepaper, Appendix A
L4|Ada|8.9|58|300|24|30.3|60|121|121|242.5|0|242.5|0.47|l4|any|0|false|false|0|NVIDIA L4 datasheet; Ada whitepaper v2.01; FP64 derived (1/64 of FP32)
L40S|Ada|8.9|142|864|48|91.6|183|362.05|362.05|733|0|733|1.43|l40s|any|0|false|false|0|NVIDIA L40S datasheet; FP64 derived (1/64 of FP32)
H100 SXM|Hopper|9.0|132|3350|80|67|494.7|989.4|989.4|1978.9|0|1978.9|67|h100|sxm|0|false|false|0|NVIDIA H100 datasheet (SXM); H100 architecture whitepaper
H100 PCIe|Hopper|9.0|114|2000|80|51|378|756.5|756.5|1513|0|1513|51|h100|pcie|0|false|false|0|NVIDIA H100 datasheet (PCIe)
H100 NVL|Hopper|9.0|132|3900|94|60|417.5|835.5|835.5|1670.5|0|1670.5|60|h100|nvl|0|false|false|0|NVIDIA H100 datasheet (H100 NVL, per GPU)
H800 SXM|Hopper|9.0|132|3350|80|67|494.7|989.4|989.4|1978.9|0|1978.9|1|h800|sxm|0|false|false|0|NVIDIA H800 datasheet (SXM)
H200|Hopper|9.0|132|4800|141|67|494.7|989.4|989.4|1978.9|0|1978.9|67|h200|sxm|0|false|false|0|NVIDIA H200 datasheet (SXM)
GH200|Hopper|9.0|132|4000|96|67|494.7|989.4|989.4|1978.9|0|1978.9|67|gh200|any|0|false|false|96|NVIDIA GH200 Grace Hopper Superchip datasheet (96GB HBM3)
GH200 144GB|Hopper|9.0|132|4900|144|67|494.7|989.4|989.4|1978.9|0|1978.9|67|gh200|any|0|false|false|144|NVIDIA GH200 Grace Hopper Superchip datasheet (144GB HBM3e)
H20|Hopper|9.0|78|4000|96|44|74|148|148|296|0|296|1|h20|any|0|false|false|0|NVIDIA HGX H20 specifications (launch listing)
B200|Blackwell|10.0|148|8000|180|80|1100|2250|2250|4500|9000|4500|40|b200|sxm|0|false|false|0|NVIDIA Blackwell architecture technical brief (HGX B200); DGX B200 datasheet (also its memory, 180 GB per GPU)
GB200|Blackwell|10.0|152|8000|186|90|1250|2500|2500|5000|10000|5000|45|gb200|any|0|false|false|0|NVIDIA Blackwell architecture technical brief (GB200, per GPU); GB200 NVL72 page (also its memory, 186 GB per GPU)
RTX 5080|Blackwell|12.0|84|960|16|56.3|56.3|112.6|112.6|225.1|900.5|450.2|0.88|rtx5080|any|0|false|false|0|derived: RTX Blackwell whitepaper per-SM rates, 84 SMs, 2617 MHz boost; RTX 5080 product page
RTX 5090|Blackwell|12.0|170|1792|32|104.8|104.8|209.5|209.5|419|1676|838|1.64|rtx5090|any|0|false|false|0|NVIDIA RTX Blackwell GPU architecture whitepaper, Appendix A
RTX PRO 6000 Blackwell|Blackwell|12.0|188|1792|96|125|250|500|500|1000|2000|1000|1.95|rtxpro6000|any|0|false|false|0|NVIDIA RTX PRO 6000 Blackwell datasheet; derived: RTX Blackwell whitepaper per-SM rates, 2.6 GHz
)rows";

TEST(DeviceRowsTest, EveryFieldOfEveryRowIsWhatTheTableHeld) {
  std::string dump;
  for (const DeviceRow& row : deviceRows()) dump += dumpOf(row);
  EXPECT_EQ(dump, kRowsAsHeld);
}

TEST(DeviceRowsTest, BuiltInFileParses) {
  const trace::Status status = deviceRowsStatus();
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_GE(deviceRows().size(), 30u);
}

TEST(DeviceRowsTest, EveryRowCitesTheDocumentsItsNumbersComeFrom) {
  for (const DeviceRow& row : deviceRows()) {
    SCOPED_TRACE(row.spec.name);
    // A citation, not a placeholder: it names NVIDIA's document or says how the row was derived.
    const bool nvidia = row.spec.sources.find("NVIDIA") != std::string::npos;
    const bool derived = row.spec.sources.starts_with("derived: ");
    EXPECT_TRUE(nvidia || derived) << row.spec.sources;
  }
}

// A number typed in another unit (TB/s for GB/s, GFLOP/s for TFLOP/s) falls outside what any GPU
// of the table's generations has: 300 GB/s (L4) to 8 TB/s (B200), 7.5 (RTX 2070) to 125 (RTX PRO
// 6000) FP32 TFLOP/s, 28 to 188 SMs.
TEST(DeviceRowsTest, EveryNumberIsInItsColumnsUnit) {
  for (const DeviceRow& row : deviceRows()) {
    const DeviceSpec& s = row.spec;
    SCOPED_TRACE(s.name);
    EXPECT_GE(s.memory_gbs, 100);
    EXPECT_LE(s.memory_gbs, 20'000);
    EXPECT_GE(s.fp32_tflops, 1);
    EXPECT_LE(s.fp32_tflops, 1'000);
    EXPECT_GE(s.sm_count, 10);
    EXPECT_LE(s.sm_count, 1'000);
    // Tensor Core rates: 0 (no such unit) or between the FP32 rate and 100 PFLOP/s.
    for (double rate : {s.tf32_tflops, s.fp16_tflops, s.bf16_tflops, s.fp8_tflops, s.fp4_tflops, s.int8_tops}) {
      EXPECT_TRUE(rate == 0 || (rate >= s.fp32_tflops && rate <= 100'000)) << rate;
    }
    EXPECT_GT(s.fp16_tflops, 0);  // every row has Tensor Cores
    // FP64: at least 1/64 of FP32 (1 TFLOPS on the export-capped H800/H20), at most the FP32 rate.
    EXPECT_GE(s.fp64_tflops, std::min(1.0, s.fp32_tflops / 64 - 0.01));
    EXPECT_LE(s.fp64_tflops, s.fp32_tflops);
    // Memory sizes in GB: 0 (none) or a size a GPU ships with.
    for (int gb : {row.memory_gb, row.device_memory_gb}) {
      EXPECT_TRUE(gb == 0 || (gb >= 8 && gb <= 1'024)) << gb;
    }
  }
}

// The rows whose product ships in several sizes that neither name_memory_gb nor device_memory_gb
// tells apart: capacity 0, unknown, as docs/devices.md ("Memory capacity") lists them.
const std::set<std::string, std::less<>> kRowsOfSeveralSizes = {"V100 SXM2", "V100 PCIe"};

TEST(DeviceRowsTest, EveryRowHoldsItsDatasheetsCapacityOrADocumentedZero) {
  for (const DeviceRow& row : deviceRows()) {
    const DeviceSpec& s = row.spec;
    SCOPED_TRACE(s.name);
    if (kRowsOfSeveralSizes.contains(s.name)) {
      EXPECT_EQ(s.capacity_gib, 0);
      continue;
    }
    // GiB, not MB or bytes: from the RTX 2070's 8 to the GB200's 186.
    EXPECT_GE(s.capacity_gib, 8);
    EXPECT_LE(s.capacity_gib, 256);
    // Reading the whole memory once takes 10 to 100 ms at the row's bandwidth on every GPU of the
    // table (RTX 3080 14 ms, L4 86 ms): a capacity in another unit, or another row's, falls outside.
    const double sweep_ms = s.capacity_gib * 1024 * 1024 * 1024 / (s.memory_gbs * 1e9) * 1e3;
    EXPECT_GE(sweep_ms, 10);
    EXPECT_LE(sweep_ms, 100);
    // A row told from its board's others by its memory holds that memory.
    if (row.deviceMemoryGb() != 0) {
      EXPECT_EQ(s.capacity_gib, row.deviceMemoryGb());
    }
  }
}

TEST(DeviceRowsTest, NamesAreUniqueEvenWrittenAsUsersTypeThem) {
  std::set<std::string> typed;
  for (const DeviceRow& row : deviceRows()) {
    std::string key;
    for (char c : row.spec.name) {
      if (std::isalnum(static_cast<unsigned char>(c)) != 0) key += static_cast<char>(std::tolower(c));
    }
    EXPECT_TRUE(typed.insert(key).second) << row.spec.name;
  }
}

// The family, Ti and SUPER a row is matched by are what its own name reads as, and the name as a
// user types it after --gpu (lower case, dashes) finds the row: a typo in the file's matching
// columns would leave a row no name reaches.
TEST(DeviceRowsTest, EveryRowsNameReadsAsItsMatchingColumnsAndFindsIt) {
  for (const DeviceRow& row : deviceRows()) {
    SCOPED_TRACE(row.spec.name);
    const std::optional<GpuNameReading> reading = readGpuName(row.spec.name);
    ASSERT_TRUE(reading.has_value());
    EXPECT_EQ(reading->family, row.family);
    EXPECT_EQ(reading->ti, row.ti);
    EXPECT_EQ(reading->super, row.super);
    EXPECT_TRUE(reading->exact);
    std::string typed;
    for (char c : row.spec.name) typed += c == ' ' ? '-' : static_cast<char>(std::tolower(c));
    const DeviceSpec* found = findDevice(typed);
    EXPECT_EQ(found == nullptr ? "(none)" : found->name, row.spec.name) << typed;
  }
}

// ---- The file format: named columns in any order; errors name line, column, row and column name. ----

const std::vector<std::string> kHeader = {
    "name",        "architecture", "compute_capability", "sm_count",    "memory_gb_per_s",
    "fp32_tflops", "tf32_tflops",  "fp16_tflops",        "bf16_tflops", "fp8_tflops",
    "fp4_tflops",  "int8_tops",    "fp64_tflops",        "family",      "board",
    "name_memory_gb", "ti",        "super",              "device_memory_gb", "capacity_gb", "source"};

std::vector<std::string> goodRow(const std::string& name = "X1") {
  return {name, "Hopper", "9.0", "132", "3350", "67", "494.7", "989.4", "989.4", "1978.9",
          "0",  "1978.9", "67",  "x1",  "sxm",  "0",  "no",    "no",    "0",     "80",    "X1 datasheet"};
}

std::string tabJoined(const std::vector<std::string>& fields) { return fmt::format("{}", fmt::join(fields, "\t")); }

std::string deviceFile(const std::vector<std::vector<std::string>>& rows) {
  std::string text = "# a device table\n" + tabJoined(kHeader) + "\n";
  for (const std::vector<std::string>& row : rows) text += tabJoined(row) + "\n";
  return text;
}

// The good row with one column's text replaced.
std::vector<std::string> rowWith(const std::string& column, const std::string& text) {
  std::vector<std::string> row = goodRow();
  for (std::size_t i = 0; i < kHeader.size(); ++i) {
    if (kHeader[i] == column) row[i] = text;
  }
  return row;
}

std::string parseError(const std::string& text) {
  const trace::Result<std::vector<DeviceRow>> parsed = parseDeviceRows(text, "my_devices.tsv");
  return parsed.ok() ? std::string("(parsed)") : parsed.error().message;
}

TEST(DeviceRowsFileTest, ReadsNamedColumnsInAnyOrderSkippingCommentsAndWindowsLineEnds) {
  std::vector<std::string> header(kHeader.rbegin(), kHeader.rend());
  std::vector<std::string> row = goodRow("My GPU 40GB");
  row[kHeader.size() - 1] = "NVIDIA My GPU datasheet; derived: FP64";
  row[14] = "pcie";
  row[15] = "40";
  row[16] = "yes";
  row[18] = "96";
  row[19] = "94.5";
  const std::vector<std::string> reversed(row.rbegin(), row.rend());
  const std::string text = "# devices\r\n\r\n" + tabJoined(header) + "\r\n# a row:\r\n" + tabJoined(reversed) + "\r\n";
  const trace::Result<std::vector<DeviceRow>> parsed = parseDeviceRows(text, "my_devices.tsv");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  ASSERT_EQ(parsed->size(), 1u);
  const DeviceRow& read = parsed->front();
  EXPECT_EQ(read.spec.name, "My GPU 40GB");
  EXPECT_EQ(read.spec.architecture, "Hopper");
  EXPECT_EQ(std::tie(read.spec.compute_major, read.spec.compute_minor, read.spec.sm_count), std::tuple(9, 0, 132));
  EXPECT_EQ(read.spec.memory_gbs, 3350);
  EXPECT_EQ(read.spec.fp32_tflops, 67);
  EXPECT_EQ(read.spec.tf32_tflops, 494.7);  // exactly the double the literal 494.7 is
  EXPECT_EQ(read.spec.fp16_tflops, 989.4);
  EXPECT_EQ(read.spec.bf16_tflops, 989.4);
  EXPECT_EQ(read.spec.fp8_tflops, 1978.9);
  EXPECT_EQ(read.spec.fp4_tflops, 0);
  EXPECT_EQ(read.spec.int8_tops, 1978.9);
  EXPECT_EQ(read.spec.fp64_tflops, 67);
  EXPECT_EQ(read.family, "x1");
  EXPECT_EQ(read.form, BoardForm::kPcie);
  EXPECT_EQ(read.memory_gb, 40);
  EXPECT_TRUE(read.ti);
  EXPECT_FALSE(read.super);
  EXPECT_EQ(read.device_memory_gb, 96);
  EXPECT_EQ(read.spec.capacity_gib, 94.5);
  EXPECT_EQ(read.spec.sources, "NVIDIA My GPU datasheet; derived: FP64");
}

TEST(DeviceRowsFileTest, MalformedNumberNamesTheLineColumnRowAndColumnName) {
  // Line 3 (a comment, the header, the row); fp16_tflops starts at column 33.
  EXPECT_EQ(parseError(deviceFile({rowWith("fp16_tflops", "fast")})),
            "my_devices.tsv:3:33: row \"X1\", column fp16_tflops: found \"fast\", expected a number of TFLOP/s, 0 "
            "or more (0: the part has no such unit)");
  // The second row of two.
  EXPECT_EQ(parseError(deviceFile({goodRow("X0"), rowWith("memory_gb_per_s", "3.35 TB/s")})),
            "my_devices.tsv:4:19: row \"X1\", column memory_gb_per_s: found \"3.35 TB/s\", expected a number of GB/s "
            "above 0");
}

TEST(DeviceRowsFileTest, EachColumnRefusesWhatItCannotHold) {
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"fp32_tflops", "0", "column fp32_tflops: found \"0\", expected a number of TFLOP/s above 0"},
      {"int8_tops", "-1", "column int8_tops: found \"-1\", expected a number of TOP/s, 0 or more"},
      {"fp64_tflops", "inf", "column fp64_tflops: found \"inf\", expected a number"},
      {"tf32_tflops", "", "column tf32_tflops: found \"\", expected a number"},
      {"bf16_tflops", "989.4 ", "column bf16_tflops: found \"989.4 \", expected a number"},
      {"sm_count", "13.2", "column sm_count: found \"13.2\", expected a whole number of SMs above 0"},
      {"sm_count", "0", "column sm_count: found \"0\", expected a whole number of SMs above 0"},
      {"compute_capability", "9", "column compute_capability: found \"9\", expected a compute capability MAJOR.MINOR"},
      {"compute_capability", "sm_90", "column compute_capability: found \"sm_90\", expected a compute capability"},
      {"architecture", "Pascal", "column architecture: found \"Pascal\", expected one of Volta, Turing, Ampere, Ada, "
                                 "Hopper, Blackwell"},
      {"family", "H100", "column family: found \"H100\", expected the model as one lower-case word"},
      {"family", "", "column family: found \"\", expected the model"},
      {"board", "SXM5", "column board: found \"SXM5\", expected one of any, sxm, pcie, nvl"},
      {"name_memory_gb", "80GB", "column name_memory_gb: found \"80GB\", expected a whole number of GB"},
      {"device_memory_gb", "-96", "column device_memory_gb: found \"-96\", expected a whole number of GB"},
      {"capacity_gb", "-80", "column capacity_gb: found \"-80\", expected a number of GiB"},
      {"capacity_gb", "", "column capacity_gb: found \"\", expected a number of GiB"},
      {"ti", "true", "column ti: found \"true\", expected yes or no"},
      {"super", "", "column super: found \"\", expected yes or no"},
      {"source", "", "column source: found \"\", expected the datasheet or whitepaper"},
  };
  for (const auto& [column, text, expected] : cases) {
    const std::string error = parseError(deviceFile({rowWith(column, text)}));
    EXPECT_NE(error.find("my_devices.tsv:3:"), std::string::npos) << error;
    EXPECT_NE(error.find("row \"X1\", " + expected), std::string::npos) << error;
  }
  EXPECT_NE(parseError(deviceFile({rowWith("name", "")})).find("a row, column name: found \"\", expected the GPU's name"),
            std::string::npos);
}

TEST(DeviceRowsFileTest, CapacityInAnotherUnitIsRefusedNamingTheLineAndColumn) {
  // Line 3; capacity_gb, the 20th field of the good row, starts at column 81.
  EXPECT_EQ(parseError(deviceFile({rowWith("capacity_gb", "80GB")})),
            "my_devices.tsv:3:81: row \"X1\", column capacity_gb: found \"80GB\", expected a number of GiB (the "
            "datasheet's \"GB\"), 0 to 4096 (0: unknown, several sizes)");
  // Bytes or MB for GiB.
  for (const std::string text : {"85899345920", "81920"}) {
    EXPECT_NE(parseError(deviceFile({rowWith("capacity_gb", text)}))
                  .find("my_devices.tsv:3:81: row \"X1\", column capacity_gb: found \"" + text + "\""),
              std::string::npos)
        << text;
  }
  // 0: unknown, and a fraction of a GiB as a datasheet may state it.
  for (const std::string text : {"0", "4096", "7.5"}) {
    const trace::Result<std::vector<DeviceRow>> parsed =
        parseDeviceRows(deviceFile({rowWith("capacity_gb", text)}), "my_devices.tsv");
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_EQ(parsed->front().spec.capacity_gib, std::stod(text));
  }
}

TEST(DeviceRowsFileTest, RowOfTheWrongWidthOrANameGivenTwiceIsRefused) {
  std::vector<std::string> short_row = goodRow();
  short_row.pop_back();
  EXPECT_NE(parseError(deviceFile({short_row}))
                .find("my_devices.tsv:3:1: row \"X1\": found 20 tab-separated fields, expected 21 (columns: name, "
                      "architecture,"),
            std::string::npos);
  EXPECT_EQ(parseError(deviceFile({goodRow(), goodRow()})),
            "my_devices.tsv:4:1: row \"X1\", column name: found the name again, expected a new one (first on line 3)");
}

TEST(DeviceRowsFileTest, HeaderMustNameEveryColumnOnce) {
  std::vector<std::string> unknown = kHeader;
  unknown[4] = "memory_gbs";
  EXPECT_NE(parseError(tabJoined(unknown) + "\n")
                .find("my_devices.tsv:1:47: found column \"memory_gbs\", expected one of name, architecture,"),
            std::string::npos);
  std::vector<std::string> twice = kHeader;
  twice.push_back("name");
  EXPECT_NE(parseError(tabJoined(twice) + "\n").find("found column \"name\" again, expected each column once (first at "
                                                      "column 1)"),
            std::string::npos);
  std::vector<std::string> missing = kHeader;
  missing.erase(missing.begin() + 12);
  EXPECT_NE(parseError(tabJoined(missing) + "\n").find("my_devices.tsv:1:1: the header has no column \"fp64_tflops\""),
            std::string::npos);
}

TEST(DeviceRowsFileTest, FileWithoutHeaderOrRowsIsRefused) {
  EXPECT_EQ(parseError(""), "my_devices.tsv:1:1: found no header line, expected one naming the columns (name, "
                            "architecture, compute_capability, sm_count, memory_gb_per_s, capacity_gb, fp32_tflops, "
                            "tf32_tflops, fp16_tflops, bf16_tflops, fp8_tflops, fp4_tflops, int8_tops, fp64_tflops, "
                            "family, board, name_memory_gb, ti, super, device_memory_gb, source)");
  EXPECT_NE(parseError("# only\n# comments\n").find("my_devices.tsv:2:1: found no header line"), std::string::npos);
  EXPECT_EQ(parseError(deviceFile({})), "my_devices.tsv:2:1: found no device rows, expected at least one");
}

}  // namespace
}  // namespace ampscope::analyzer
