#include "analyzer/normalise/torch_nvtx_text.h"

#include <algorithm>
#include <array>
#include <charconv>

namespace ampscope::analyzer::import {

namespace {

enum class Field { kSeq, kOpId, kSizes, kInputOpIds };

struct FieldKey {
  Field field;
  std::string_view text;
};

// In the order PyTorch appends them.
constexpr std::array<FieldKey, 4> kFields = {{{Field::kSeq, ", seq = "},
                                               {Field::kOpId, ", op_id = "},
                                               {Field::kSizes, ", sizes = "},
                                               {Field::kInputOpIds, ", input_op_ids = "}}};

// The end of the bracketed value starting at `at` ("[[1, 2], [3]]"), one past its closing bracket.
std::optional<std::size_t> bracketedEnd(std::string_view text, std::size_t at) {
  if (at >= text.size() || text[at] != '[') return std::nullopt;
  int depth = 0;
  for (std::size_t i = at; i < text.size(); ++i) {
    if (text[i] == '[' || text[i] == '(') ++depth;
    if (text[i] == ']' || text[i] == ')') {
      if (--depth < 0) return std::nullopt;
      if (depth == 0) return i + 1;
    }
  }
  return std::nullopt;
}

// "[[64, 784], [100]]" -> "[[64,784],[100]]": digits, brackets and commas only.
std::optional<std::string> compactShapes(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == ' ') continue;
    if ((c < '0' || c > '9') && c != '[' && c != ']' && c != ',' && c != '-') return std::nullopt;
    out.push_back(c);
  }
  return out;
}

bool readInteger(std::string_view text, std::size_t& at, std::int64_t& out) {
  const auto [end, ec] = std::from_chars(text.data() + at, text.data() + text.size(), out);
  if (ec != std::errc() || out < 0) return false;
  at = static_cast<std::size_t>(end - text.data());
  return true;
}

// Where the op's name ends: the first place a field's key starts (every key starts with ", ").
// One pass over the text, which the normaliser makes for every NVTX range of a trace.
std::size_t nameEnd(std::string_view text) {
  for (std::size_t at = text.find(", "); at != std::string_view::npos; at = text.find(", ", at + 1)) {
    for (const FieldKey& key : kFields) {
      if (text.substr(at, key.text.size()) == key.text) return at;
    }
  }
  return std::string_view::npos;
}

}  // namespace

std::optional<TorchNvtxText> parseTorchNvtxText(std::string_view text) {
  const std::size_t name_end = nameEnd(text);
  if (name_end == std::string_view::npos || name_end == 0) return std::nullopt;
  TorchNvtxText out;
  out.op = text.substr(0, name_end);
  // A Python dict or a multi-line text that happens to contain ", seq = " is not an op's name.
  if (std::any_of(out.op.begin(), out.op.end(), [](char c) { return c == '{' || c == '}' || c == '\n'; })) {
    return std::nullopt;
  }

  std::size_t at = name_end;
  std::size_t next_field = 0;
  while (at < text.size()) {
    std::size_t matched = kFields.size();
    for (std::size_t i = next_field; i < kFields.size(); ++i) {
      if (text.substr(at, kFields[i].text.size()) == kFields[i].text) {
        matched = i;
        break;
      }
    }
    if (matched == kFields.size()) return std::nullopt;  // unknown, repeated or out-of-order field
    next_field = matched + 1;
    at += kFields[matched].text.size();
    switch (kFields[matched].field) {
      case Field::kSeq:
        if (!readInteger(text, at, out.sequence_number)) return std::nullopt;
        break;
      case Field::kOpId:
        if (!readInteger(text, at, out.op_id)) return std::nullopt;
        break;
      case Field::kSizes: {
        const auto end = bracketedEnd(text, at);
        if (!end) return std::nullopt;
        auto shapes = compactShapes(text.substr(at, *end - at));
        if (!shapes) return std::nullopt;
        out.shapes_json = std::move(*shapes);
        at = *end;
        break;
      }
      case Field::kInputOpIds: {
        const auto end = bracketedEnd(text, at);
        if (!end) return std::nullopt;
        at = *end;
        break;
      }
    }
  }
  return out;
}

}  // namespace ampscope::analyzer::import
