#include "analyzer/normalise/range_values_reader.h"

#include <cctype>
#include <charconv>
#include <cstdint>
#include <optional>

namespace ampscope::analyzer::import {

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// "[2, 2]" or "2" -> {2, 2} / {2}; "[]" -> {}; nullopt for anything else.
std::optional<std::vector<std::int64_t>> parseIntList(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  if (text.front() == '[') {
    if (text.back() != ']') return std::nullopt;
    text = text.substr(1, text.size() - 2);
  }
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == ',' || std::isspace(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), value);
    if (ec != std::errc()) return std::nullopt;
    out.push_back(value);
    i = static_cast<std::size_t>(end - text.data());
  }
  return out;
}

std::optional<bool> parseBool(std::string_view text) {
  text = trim(text);
  if (text == "True" || text == "true" || text == "1") return true;
  if (text == "False" || text == "false" || text == "0") return false;
  return std::nullopt;
}

// "[True, True, False]" -> {true, true, false}; nullopt where an item is not True or False (an
// int list of ones and zeros, such as a dilation, is no list of flags).
std::optional<std::vector<bool>> parseFlagList(std::string_view list) {
  std::vector<bool> flags;
  for (std::string_view item : parseTextArray(list)) {
    if (item != "True" && item != "False" && item != "true" && item != "false") return std::nullopt;
    flags.push_back(item == "True" || item == "true");
  }
  return flags;
}

trace::ArgumentValue readArgument(std::string text) {
  trace::ArgumentValue value;
  value.integers = parseIntList(text);
  value.flag = parseBool(text);
  const std::string_view word = trim(text);
  value.list = word.size() >= 2 && word.front() == '[';
  if (value.list) value.flags = parseFlagList(word);
  value.text = std::move(text);
  return value;
}

}  // namespace

std::vector<std::string> parseTextArray(std::string_view json) {
  std::vector<std::string> out;
  json = trim(json);
  if (json.size() < 2 || json.front() != '[') return out;
  std::size_t i = 1;
  while (i < json.size()) {
    const char c = json[i];
    if (c == ']') break;
    if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    std::string& value = out.emplace_back();
    if (c == '"') {
      for (++i; i < json.size() && json[i] != '"'; ++i) {
        if (json[i] == '\\' && i + 1 < json.size()) ++i;
        value += json[i];
      }
      ++i;
      continue;
    }
    int depth = 0;
    const std::size_t start = i;
    for (; i < json.size(); ++i) {
      if (json[i] == '[') ++depth;
      if (json[i] == ']' && depth-- == 0) break;
      if (json[i] == ',' && depth == 0) break;
    }
    value = std::string(trim(json.substr(start, i - start)));
  }
  return out;
}

int dtypeBytes(std::string_view dtype) {
  dtype = trim(dtype);
  if (dtype.starts_with("torch.")) dtype.remove_prefix(6);
  if (dtype.starts_with("c10::")) dtype.remove_prefix(5);
  struct Size {
    std::string_view name;
    int bytes;
  };
  static constexpr Size kSizes[] = {
      {"float", 4}, {"float32", 4}, {"fp32", 4}, {"Float", 4}, {"int", 4}, {"int32", 4}, {"unsigned int", 4},
      {"Half", 2}, {"half", 2}, {"float16", 2}, {"fp16", 2}, {"BFloat16", 2}, {"bfloat16", 2}, {"bf16", 2},
      {"short int", 2}, {"short", 2}, {"int16", 2}, {"unsigned short", 2},
      {"double", 8}, {"float64", 8}, {"long int", 8}, {"long", 8}, {"int64", 8}, {"long long", 8},
      {"unsigned long", 8}, {"complex<float>", 8}, {"complex64", 8}, {"complex<double>", 16}, {"complex128", 16},
      {"complex<Half>", 4}, {"bool", 1}, {"signed char", 1}, {"char", 1}, {"int8", 1}, {"unsigned char", 1},
      {"uint8", 1}, {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1}, {"Float8_e4m3fnuz", 1}, {"Float8_e5m2fnuz", 1},
      {"fp8", 1}};
  for (const Size& size : kSizes) {
    if (size.name == dtype) return size.bytes;
  }
  if (dtype.starts_with("float8_")) return 1;
  return 0;
}

trace::RangeArguments readRangeArguments(std::string_view json) {
  trace::RangeArguments out;
  for (std::string& text : parseTextArray(json)) out.values.push_back(readArgument(std::move(text)));
  return out;
}

trace::RangeDtypes readRangeDtypes(std::string_view json) {
  trace::RangeDtypes out;
  out.names = parseTextArray(json);
  out.element_bytes.reserve(out.names.size());
  for (const std::string& name : out.names) out.element_bytes.push_back(static_cast<std::uint8_t>(dtypeBytes(name)));
  return out;
}

bool RangeValuesReader::firstTime(trace::StringId id, std::uint8_t bit) {
  if (id == trace::StringTable::kEmpty) return false;
  // Strings interned since the last growth (the normaliser interns as it goes) have ids past the end.
  if (id >= read_.size()) read_.resize(trace_.strings.size(), 0);
  if ((read_[id] & bit) != 0) return false;
  read_[id] |= bit;
  return true;
}

void RangeValuesReader::readRecorded(const trace::Range& range) {
  if (firstTime(range.arguments, kArgumentsRead)) {
    trace_.range_values.setArguments(range.arguments, readRangeArguments(trace_.str(range.arguments)));
  }
  if (firstTime(range.dtypes, kDtypesRead)) {
    trace_.range_values.setDtypes(range.dtypes, readRangeDtypes(trace_.str(range.dtypes)));
  }
}

}  // namespace ampscope::analyzer::import
