#include "analyzer/core/device_rows_file.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analyzer/core/tsv_lines.h"

namespace ampscope::analyzer {
namespace {

enum class Column : std::uint8_t {
  kName,
  kArchitecture,
  kComputeCapability,
  kSmCount,
  kMemoryGbPerS,
  kCapacityGb,
  kFp32Tflops,
  kTf32Tflops,
  kFp16Tflops,
  kBf16Tflops,
  kFp8Tflops,
  kFp4Tflops,
  kInt8Tops,
  kFp64Tflops,
  kFamily,
  kBoard,
  kNameMemoryGb,
  kTi,
  kSuper,
  kDeviceMemoryGb,
  kSource,
};
constexpr std::size_t kColumnCount = static_cast<std::size_t>(Column::kSource) + 1;
// The header's names, in Column order (a file may list them in any order).
constexpr std::array<std::string_view, kColumnCount> kColumnNames = {
    "name",        "architecture", "compute_capability", "sm_count",    "memory_gb_per_s",
    "capacity_gb", "fp32_tflops",  "tf32_tflops",        "fp16_tflops", "bf16_tflops",
    "fp8_tflops",  "fp4_tflops",   "int8_tops",          "fp64_tflops", "family",
    "board",       "name_memory_gb", "ti",               "super",       "device_memory_gb",
    "source"};

std::string_view columnName(Column column) { return kColumnNames[static_cast<std::size_t>(column)]; }

// The rates and the bandwidth: the field each fills, its unit, and whether 0 (no such unit) is
// allowed. Every row has CUDA cores and memory.
struct RateColumn {
  Column column;
  double DeviceSpec::*field;
  std::string_view unit;
  bool may_be_zero;
};
constexpr std::array<RateColumn, 9> kRateColumns = {{
    {Column::kMemoryGbPerS, &DeviceSpec::memory_gbs, "GB/s", false},
    {Column::kFp32Tflops, &DeviceSpec::fp32_tflops, "TFLOP/s", false},
    {Column::kTf32Tflops, &DeviceSpec::tf32_tflops, "TFLOP/s", true},
    {Column::kFp16Tflops, &DeviceSpec::fp16_tflops, "TFLOP/s", true},
    {Column::kBf16Tflops, &DeviceSpec::bf16_tflops, "TFLOP/s", true},
    {Column::kFp8Tflops, &DeviceSpec::fp8_tflops, "TFLOP/s", true},
    {Column::kFp4Tflops, &DeviceSpec::fp4_tflops, "TFLOP/s", true},
    {Column::kInt8Tops, &DeviceSpec::int8_tops, "TOP/s", true},
    {Column::kFp64Tflops, &DeviceSpec::fp64_tflops, "TFLOP/s", true},
}};

// Above any GPU's device memory (the largest rows hold under 200 GiB): a larger figure is a unit
// mix-up (MB or bytes for GB), not a GPU.
constexpr double kLargestCapacityGib = 4096;

// DeviceSpec::architecture's values, which the derivation's rate table and the tests name too.
constexpr std::array<std::string_view, 6> kArchitectures = {"Volta", "Turing", "Ampere", "Ada", "Hopper", "Blackwell"};

constexpr std::array<std::pair<BoardForm, std::string_view>, 4> kBoards = {{
    {BoardForm::kAny, "any"}, {BoardForm::kSxm, "sxm"}, {BoardForm::kPcie, "pcie"}, {BoardForm::kNvl, "nvl"}}};

// "any, sxm, pcie, nvl": what a board cell may say, for the error that names a wrong one.
std::string boardNames() {
  std::string names;
  for (const auto& [form, board] : kBoards) {
    if (!names.empty()) names += ", ";
    names += board;
  }
  return names;
}

// A non-negative finite number, read exactly as a C++ literal of the same text would be.
std::optional<double> readNumber(std::string_view text) {
  double value = 0;
  const auto [end, code] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (code != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || std::signbit(value)) {
    return std::nullopt;
  }
  return value;
}

std::optional<int> readWholeNumber(std::string_view text) {
  constexpr int kLargest = 1'000'000;  // above any SM count or memory size
  int value = 0;
  const auto [end, code] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (code != std::errc() || end != text.data() + text.size() || value < 0 || value > kLargest) return std::nullopt;
  return value;
}

std::optional<bool> readYesNo(std::string_view text) {
  if (text == "yes") return true;
  if (text == "no") return false;
  return std::nullopt;
}

bool isFamilyWord(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

// Fills the row's field of one column; on a bad text, what was expected instead.
std::optional<std::string> fill(Column column, std::string_view text, DeviceRow& row) {
  DeviceSpec& spec = row.spec;
  for (const RateColumn& rate : kRateColumns) {
    if (rate.column != column) continue;
    const std::optional<double> value = readNumber(text);
    if (!value || (!rate.may_be_zero && *value == 0)) {
      return rate.may_be_zero ? fmt::format("a number of {}, 0 or more (0: the part has no such unit)", rate.unit)
                              : fmt::format("a number of {} above 0", rate.unit);
    }
    spec.*rate.field = *value;
    return std::nullopt;
  }
  switch (column) {
    case Column::kName:
      if (text.empty()) return std::string("the GPU's name");
      spec.name = std::string(text);
      return std::nullopt;
    case Column::kArchitecture:
      for (std::string_view architecture : kArchitectures) {
        if (text == architecture) {
          spec.architecture = std::string(text);
          return std::nullopt;
        }
      }
      return fmt::format("one of {}", fmt::join(kArchitectures, ", "));
    case Column::kComputeCapability: {
      const std::size_t dot = text.find('.');
      const std::optional<int> major = readWholeNumber(text.substr(0, dot));
      const std::optional<int> minor =
          dot == std::string_view::npos ? std::nullopt : readWholeNumber(text.substr(dot + 1));
      if (!major || !minor || *major == 0 || *minor > 9) {
        return std::string("a compute capability MAJOR.MINOR such as 8.6");
      }
      spec.compute_major = *major;
      spec.compute_minor = *minor;
      return std::nullopt;
    }
    case Column::kSmCount: {
      const std::optional<int> sms = readWholeNumber(text);
      if (!sms || *sms == 0) return std::string("a whole number of SMs above 0");
      spec.sm_count = *sms;
      return std::nullopt;
    }
    case Column::kFamily:
      if (!isFamilyWord(text)) {
        return std::string(
            "the model as one lower-case word of letters and digits, as names read (\"h100\", \"rtx4090\")");
      }
      row.family = std::string(text);
      return std::nullopt;
    case Column::kBoard:
      for (const auto& [form, board] : kBoards) {
        if (text == board) {
          row.form = form;
          return std::nullopt;
        }
      }
      return fmt::format("one of {}", boardNames());
    case Column::kNameMemoryGb:
    case Column::kDeviceMemoryGb: {
      const std::optional<int> gb = readWholeNumber(text);
      if (!gb) {
        return column == Column::kNameMemoryGb ? std::string("a whole number of GB, 0 or more (0: any size)")
                                               : std::string("a whole number of GB, 0 or more (0: name_memory_gb)");
      }
      (column == Column::kNameMemoryGb ? row.memory_gb : row.device_memory_gb) = *gb;
      return std::nullopt;
    }
    case Column::kCapacityGb: {
      // The datasheet's "GB", which NVIDIA states in GiB for these parts: a GiB figure as is.
      const std::optional<double> gib = readNumber(text);
      if (!gib || *gib > kLargestCapacityGib) {
        return fmt::format("a number of GiB (the datasheet's \"GB\"), 0 to {} (0: unknown, several sizes)",
                           kLargestCapacityGib);
      }
      spec.capacity_gib = *gib;
      return std::nullopt;
    }
    case Column::kTi:
    case Column::kSuper: {
      const std::optional<bool> yes = readYesNo(text);
      if (!yes) return std::string("yes or no");
      (column == Column::kTi ? row.ti : row.super) = *yes;
      return std::nullopt;
    }
    case Column::kSource:
      if (text.empty()) return std::string("the datasheet or whitepaper the row's numbers come from");
      spec.sources = std::string(text);
      return std::nullopt;
    case Column::kMemoryGbPerS:
    case Column::kFp32Tflops:
    case Column::kTf32Tflops:
    case Column::kFp16Tflops:
    case Column::kBf16Tflops:
    case Column::kFp8Tflops:
    case Column::kFp4Tflops:
    case Column::kInt8Tops:
    case Column::kFp64Tflops: break;  // filled above
  }
  return std::nullopt;
}

class DeviceFileParser {
 public:
  explicit DeviceFileParser(std::string_view source) : source_(source) {}

  trace::Error error(int line, std::size_t column, std::string_view what) const {
    return trace::Error{fmt::format("{}:{}:{}: {}", source_, line, column, what)};
  }

  // The header names every column once, in any order.
  trace::Status readHeader(int line_number, const TsvFields& header) {
    constexpr std::size_t kAbsent = 0;
    std::array<std::size_t, kColumnCount> field_of{};  // 1 + the field's index; kAbsent: not yet seen
    for (std::size_t i = 0; i < header.fields.size(); ++i) {
      const std::string_view name = header.fields[i];
      std::size_t column = 0;
      while (column < kColumnCount && kColumnNames[column] != name) ++column;
      if (column == kColumnCount) {
        return error(line_number, header.columns[i],
                     fmt::format("found column \"{}\", expected one of {}", name, fmt::join(kColumnNames, ", ")));
      }
      if (field_of[column] != kAbsent) {
        return error(line_number, header.columns[i],
                     fmt::format("found column \"{}\" again, expected each column once (first at column {})", name,
                                 header.columns[field_of[column] - 1]));
      }
      field_of[column] = i + 1;
    }
    for (std::size_t column = 0; column < kColumnCount; ++column) {
      if (field_of[column] == kAbsent) {
        return error(line_number, 1,
                     fmt::format("the header has no column \"{}\", expected every one of {}", kColumnNames[column],
                                 fmt::join(kColumnNames, ", ")));
      }
      field_index_[column] = field_of[column] - 1;
    }
    return {};
  }

  trace::Result<DeviceRow> readRow(int line_number, const TsvFields& line) const {
    const std::size_t name_field = fieldIndex(Column::kName);
    const std::string_view name = name_field < line.fields.size() ? line.fields[name_field] : std::string_view();
    const std::string row = name.empty() ? std::string("a row") : fmt::format("row \"{}\"", name);
    if (line.fields.size() != kColumnCount) {
      return error(line_number, 1,
                   fmt::format("{}: found {} tab-separated fields, expected {} (columns: {})", row, line.fields.size(),
                               kColumnCount, fmt::join(kColumnNames, ", ")));
    }
    DeviceRow device;
    for (std::size_t column = 0; column < kColumnCount; ++column) {
      const std::size_t field = field_index_[column];
      const std::string_view text = line.fields[field];
      if (std::optional<std::string> expected = fill(static_cast<Column>(column), text, device)) {
        return error(line_number, line.columns[field],
                     fmt::format("{}, column {}: found \"{}\", expected {}", row, kColumnNames[column], text,
                                 *expected));
      }
    }
    return device;
  }

  std::size_t fieldIndex(Column column) const { return field_index_[static_cast<std::size_t>(column)]; }

 private:
  std::string_view source_;
  std::array<std::size_t, kColumnCount> field_index_{};  // where each column's field is in a line
};

}  // namespace

trace::Result<std::vector<DeviceRow>> parseDeviceRows(std::string_view tsv_text, std::string_view source_name) {
  DeviceFileParser parser(source_name);
  std::vector<DeviceRow> rows;
  std::vector<int> row_lines;  // the line of each row, for a name given twice
  bool saw_header = false;
  TextLines lines(tsv_text);
  while (const std::optional<std::string_view> line = lines.next()) {
    if (isBlankOrComment(*line)) continue;
    const TsvFields fields = splitTsvFields(*line);
    if (!saw_header) {
      if (trace::Status header = parser.readHeader(lines.number(), fields); !header) return header.error();
      saw_header = true;
      continue;
    }
    trace::Result<DeviceRow> row = parser.readRow(lines.number(), fields);
    if (!row) return row.error();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].spec.name == row->spec.name) {
        return parser.error(lines.number(), fields.columns[parser.fieldIndex(Column::kName)],
                            fmt::format("row \"{}\", column {}: found the name again, expected a new one (first on "
                                        "line {})",
                                        row->spec.name, columnName(Column::kName), row_lines[i]));
      }
    }
    rows.push_back(std::move(*row));
    row_lines.push_back(lines.number());
  }
  if (!saw_header) {
    return parser.error(std::max(lines.number(), 1), 1,
                        fmt::format("found no header line, expected one naming the columns ({})",
                                    fmt::join(kColumnNames, ", ")));
  }
  if (rows.empty()) return parser.error(lines.number(), 1, "found no device rows, expected at least one");
  return rows;
}

}  // namespace ampscope::analyzer
