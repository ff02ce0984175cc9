#include "analyzer/normalise/trainer_range_text.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <vector>

#include <fmt/format.h>


namespace ampscope::analyzer {

namespace {

using trace::Error;
using trace::Phase;
using trace::Result;

bool isWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '-';
}

bool isWord(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!isWordChar(c)) return false;
  }
  return true;
}

// Calls take(field) for each space-separated field of text, in order, until it returns false.
template <typename Take>
void forEachField(std::string_view text, Take take) {
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    if (end > at && !take(text.substr(at, end - at))) return;
    at = end + 1;
  }
}

std::vector<std::string_view> splitFields(std::string_view text) {
  std::vector<std::string_view> out;
  forEachField(text, [&](std::string_view field) {
    out.push_back(field);
    return true;
  });
  return out;
}

// "64,100,784" -> {64, 100, 784}: exactly `count` non-negative integers.
bool parseIntegers(std::string_view text, std::int64_t* out, std::size_t count) {
  std::size_t at = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) {
      if (at >= text.size() || text[at] != ',') return false;
      ++at;
    }
    const auto [end, ec] = std::from_chars(text.data() + at, text.data() + text.size(), out[i]);
    if (ec != std::errc() || out[i] < 0) return false;
    at = static_cast<std::size_t>(end - text.data());
  }
  return at == text.size();
}

// "[64,1,28,28]" -> {64, 1, 28, 28}; "[]" is a shape of no dimensions (a scalar).
bool parseShape(std::string_view text, std::vector<std::int64_t>& out) {
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return false;
  const std::string_view inner = text.substr(1, text.size() - 2);
  out.clear();
  if (inner.empty()) return true;
  std::size_t at = 0;
  for (;;) {
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(inner.data() + at, inner.data() + inner.size(), value);
    if (ec != std::errc() || value < 0) return false;
    out.push_back(value);
    at = static_cast<std::size_t>(end - inner.data());
    if (at == inner.size()) return true;
    if (inner[at] != ',') return false;
    ++at;
  }
}

// "[[100,784],[100]]" or "[]".
bool parseShapeList(std::string_view text, Shapes& out) {
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return false;
  const std::string_view inner = text.substr(1, text.size() - 2);
  out.clear();
  std::size_t at = 0;
  while (at < inner.size()) {
    const std::size_t close = inner.find(']', at);
    if (close == std::string_view::npos) return false;
    if (!parseShape(inner.substr(at, close + 1 - at), out.emplace_back())) return false;
    at = close + 1;
    if (at == inner.size()) break;
    if (inner[at] != ',') return false;
    ++at;
    if (at == inner.size()) return false;  // a trailing comma
  }
  return true;
}

std::string shapeJson(const std::vector<std::int64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ","));
}

Error malformed(std::string_view text, std::string_view what) {
  return Error{fmt::format("trainer range \"{}\": {}", text, what)};
}

}  // namespace

std::string TrainerRangeText::shapesJson() const {
  std::string out = "[" + shapeJson(input);
  for (const std::vector<std::int64_t>& param : params) out += "," + shapeJson(param);
  return out + "]";
}

std::string TrainerRangeText::dtypesJson() const {
  std::string out = "[";
  for (std::size_t i = 0; i <= params.size(); ++i) out += fmt::format("{}\"{}\"", i == 0 ? "" : ",", dtype);
  return out + "]";
}

std::string TrainerRangeText::argumentsJson() const {
  if (!conv) return {};
  // The trainer's convolution is square in kernel, stride and padding, undilated and ungrouped.
  const std::int64_t stride = (*conv)[7];
  const std::int64_t padding = (*conv)[8];
  return fmt::format(R"(["","","","[{0}, {0}]","[{1}, {1}]","[1, 1]","1"])", stride, padding);
}

Result<TrainerRangeText> parseTrainerRangeText(std::string_view text) {
  const std::vector<std::string_view> fields = splitFields(text);
  if (fields.size() < 3) return malformed(text, "expected LAYER OP PASS followed by key=value fields");
  TrainerRangeText out;
  if (!isWord(fields[0])) return malformed(text, fmt::format("layer name '{}' is not a word", fields[0]));
  if (!isWord(fields[1])) return malformed(text, fmt::format("op '{}' is not a word", fields[1]));
  out.layer = std::string(fields[0]);
  out.op = std::string(fields[1]);
  if (fields[2] == "forward") {
    out.phase = Phase::kForward;
  } else if (fields[2] == "backward") {
    out.phase = Phase::kBackward;
  } else {
    return malformed(text, fmt::format("pass '{}' is neither forward nor backward", fields[2]));
  }
  bool has_in = false, has_params = false, has_out = false, has_dtype = false;
  const auto once = [&](bool& seen, std::string_view key) -> std::optional<Error> {
    if (seen) return malformed(text, fmt::format("'{}' given twice", key));
    seen = true;
    return std::nullopt;
  };
  bool has_gemm = false, has_conv = false;
  for (std::size_t i = 3; i < fields.size(); ++i) {
    const std::size_t equals = fields[i].find('=');
    if (equals == std::string_view::npos || equals == 0) {
      return malformed(text, fmt::format("field '{}' is not key=value", fields[i]));
    }
    const std::string_view key = fields[i].substr(0, equals);
    const std::string_view value = fields[i].substr(equals + 1);
    std::optional<Error> twice;
    bool ok = true;
    if (key == "in") {
      twice = once(has_in, key);
      ok = parseShape(value, out.input);
    } else if (key == "params") {
      twice = once(has_params, key);
      ok = parseShapeList(value, out.params);
    } else if (key == "out") {
      twice = once(has_out, key);
      ok = parseShape(value, out.output);
    } else if (key == "dtype") {
      twice = once(has_dtype, key);
      ok = isWord(value);
      out.dtype = std::string(value);
    } else if (key == "gemm") {
      twice = once(has_gemm, key);
      ok = parseIntegers(value, out.gemm.emplace().data(), 3);
    } else if (key == "conv") {
      twice = once(has_conv, key);
      ok = parseIntegers(value, out.conv.emplace().data(), 9);
    }
    // Other keys are fields a later trainer added: skipped, so older readers keep working.
    if (twice) return *twice;
    if (!ok) return malformed(text, fmt::format("'{}' is not a valid {} value", value, key));
  }
  if (!has_in) return malformed(text, "no in= field");
  if (!has_params) return malformed(text, "no params= field");
  if (!has_out) return malformed(text, "no out= field");
  if (!has_dtype) return malformed(text, "no dtype= field");
  return out;
}

bool isTrainerPhaseRangeText(std::string_view text) {
  if (text == "data" || text == "forward" || text == "backward" || text == "loss_scale" ||
      text == "optimizer" || text == "evaluate") {
    return true;
  }
  for (std::string_view prefix : {std::string_view("step "), std::string_view("batch ")}) {
    if (text.substr(0, prefix.size()) != prefix || text.size() == prefix.size()) continue;
    const std::string_view number = text.substr(prefix.size());
    if (number.find_first_not_of("0123456789") == std::string_view::npos) return true;
  }
  return false;
}

bool isTrainerLayerOpText(std::string_view domain, std::string_view text) {
  if (domain == kTrainerDomain) return !isTrainerPhaseRangeText(text);
  if (!domain.empty()) return false;
  // Every NVTX range of a trace is asked this: its first four fields alone, nothing allocated.
  std::array<std::string_view, 4> fields;
  std::size_t found = 0;
  forEachField(text, [&](std::string_view field) {
    fields[found++] = field;
    return found < fields.size();
  });
  return found == fields.size() && (fields[2] == "forward" || fields[2] == "backward") &&
         fields[3].substr(0, 3) == "in=";
}

}  // namespace ampscope::analyzer
