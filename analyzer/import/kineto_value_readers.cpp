#include "analyzer/import/kineto_value_readers.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "analyzer/import/json_value_end.h"
#include "analyzer/import/kineto_values.h"

namespace ampscope::analyzer::import {

namespace {

namespace od = simdjson::ondemand;

constexpr double kInt64Limit = 9223372036854775808.0;  // 2^63

bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && isSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && isSpace(text.back())) text.remove_suffix(1);
  return text;
}

// Consumes a value of a type the reader does not take: INCORRECT_TYPE once it is consumed, or
// the structural error consuming it met.
simdjson::error_code unexpected(od::value value) {
  if (auto error = skipValue(value)) return error;
  return simdjson::INCORRECT_TYPE;
}

// A JSON number as a 64-bit integer (truncated). Integers, the usual case, are read as such
// (exactly, past 2^53 too); a failed integer read leaves the value unread, so the double read
// still sees it.
simdjson::error_code readWholeNumber(od::value value, std::int64_t& out) {
  if (value.get_int64().get(out) == simdjson::SUCCESS) return simdjson::SUCCESS;
  double number = 0;
  if (auto error = value.get_double().get(number)) return error;
  if (!(number > -kInt64Limit && number < kInt64Limit)) return simdjson::NUMBER_OUT_OF_RANGE;  // NaN too
  out = static_cast<std::int64_t>(number);
  return simdjson::SUCCESS;
}

// A string's text as an integer ("42", " 7 ", "1.5e1", and "0x1f" as ROCm writes streams):
// INCORRECT_TYPE where it holds no number.
simdjson::error_code integerFromText(std::string_view text, std::int64_t& out) {
  text = trimmed(text);
  if (text.empty()) return simdjson::INCORRECT_TYPE;
  const char* end = text.data() + text.size();
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    std::uint64_t bits = 0;
    const auto [at, ec] = std::from_chars(text.data() + 2, end, bits, 16);
    if (ec == std::errc::result_out_of_range || (ec == std::errc() && bits > std::numeric_limits<std::int64_t>::max())) {
      return simdjson::NUMBER_OUT_OF_RANGE;
    }
    if (ec != std::errc() || at != end) return simdjson::INCORRECT_TYPE;
    out = static_cast<std::int64_t>(bits);
    return simdjson::SUCCESS;
  }
  std::int64_t whole = 0;
  if (const auto [at, ec] = std::from_chars(text.data(), end, whole); ec == std::errc() && at == end) {
    out = whole;
    return simdjson::SUCCESS;
  }
  double number = 0;
  const auto [at, ec] = std::from_chars(text.data(), end, number);
  if (ec == std::errc::result_out_of_range) return simdjson::NUMBER_OUT_OF_RANGE;
  if (ec != std::errc() || at != end) return simdjson::INCORRECT_TYPE;
  if (!(number > -kInt64Limit && number < kInt64Limit)) return simdjson::NUMBER_OUT_OF_RANGE;
  out = static_cast<std::int64_t>(number);
  return simdjson::SUCCESS;
}

}  // namespace

simdjson::error_code nestedOrError(std::string_view raw) {
  return bracketsNest(raw.data(), raw.size()) ? simdjson::SUCCESS : simdjson::TAPE_ERROR;
}

simdjson::error_code skipValue(od::value value) {
  od::json_type type;
  if (auto error = value.type().get(type)) return error;
  std::string_view raw;
  if (type == od::json_type::array) {
    od::array array;
    if (auto error = value.get_array().get(array)) return error;
    if (auto error = array.raw_json().get(raw)) return error;
  } else if (type == od::json_type::object) {
    od::object object;
    if (auto error = value.get_object().get(object)) return error;
    if (auto error = object.raw_json().get(raw)) return error;
  } else if (type == od::json_type::string) {
    // Read rather than left for simdjson to skip, which takes a string followed by ':' for a
    // key: '"a": "b": 1' would then pass as one field, and the element would end at whichever
    // '}' closes the count (found by the kineto fuzz harness).
    od::raw_json_string unread;
    return value.get_raw_json_string().get(unread);
  } else {
    return simdjson::SUCCESS;  // a number or literal: skipped as one token, no brackets to count
  }
  return nestedOrError(raw);
}

simdjson::error_code readInt(od::value value, std::int64_t& out) {
  if (value.get_int64().get(out) == simdjson::SUCCESS) return simdjson::SUCCESS;  // the usual case
  od::json_type type;
  if (auto error = value.type().get(type)) return error;
  if (type == od::json_type::number) return readWholeNumber(value, out);
  if (type == od::json_type::string) {
    std::string_view text;
    if (auto error = value.get_string().get(text)) return error;
    return integerFromText(text, out);
  }
  return unexpected(value);
}

simdjson::error_code readId(od::value value, IdValue& out) {
  od::json_type type;
  if (auto error = value.type().get(type)) return error;
  if (type == od::json_type::number) {
    if (auto error = readWholeNumber(value, out.number)) return error;
    out.present = true;
    return simdjson::SUCCESS;
  }
  if (type != od::json_type::string) return unexpected(value);
  std::string_view text;
  if (auto error = value.get_string().get(text)) return error;
  out = {idFromLabel(text), true};
  return simdjson::SUCCESS;
}

simdjson::error_code readDim3(od::value value, std::array<std::uint32_t, 3>& out) {
  od::json_type type;
  if (auto error = value.type().get(type)) return error;
  if (type != od::json_type::array) return unexpected(value);
  // Taken as text and read here, so that a bad element leaves nothing of the array unread.
  std::string_view raw;
  if (auto error = rawArray(value, raw)) return error;
  raw = trimmed(raw);
  raw = trimmed(raw.substr(1, raw.size() - 2));  // "[...]": rawArray proved the brackets
  std::array<std::uint32_t, 3> axes{};
  std::size_t axis = 0;
  while (!raw.empty()) {
    const std::size_t comma = raw.find(',');
    const std::string_view element = trimmed(raw.substr(0, comma));
    std::int64_t number = 0;
    const auto [at, ec] = std::from_chars(element.data(), element.data() + element.size(), number);
    if (ec != std::errc() || at != element.data() + element.size()) return simdjson::INCORRECT_TYPE;
    if (number < 0 || number > std::numeric_limits<std::uint32_t>::max() || axis == axes.size()) {
      return simdjson::NUMBER_OUT_OF_RANGE;
    }
    axes[axis++] = static_cast<std::uint32_t>(number);
    if (comma == std::string_view::npos) break;
    raw = raw.substr(comma + 1);
  }
  out = axes;
  return simdjson::SUCCESS;
}

simdjson::error_code readString(od::value value, std::string_view& out) {
  const simdjson::error_code error = value.get_string().get(out);
  // A value of another type is left unread by the failed read: consumed here.
  return error == simdjson::INCORRECT_TYPE ? unexpected(value) : error;
}

simdjson::error_code readTextOrRaw(od::value value, std::string_view& out) {
  od::json_type type;
  if (auto error = value.type().get(type)) return error;
  if (type == od::json_type::string) return value.get_string().get(out);
  if (type == od::json_type::array) return rawArray(value, out);
  out = trimmed(value.raw_json_token());
  return type == od::json_type::object ? skipValue(value) : simdjson::SUCCESS;
}

simdjson::error_code rawArray(od::value value, std::string_view& out) {
  od::array array;
  const simdjson::error_code error = value.get_array().get(array);
  if (error == simdjson::INCORRECT_TYPE) return unexpected(value);
  if (error) return error;
  if (auto raw_error = array.raw_json().get(out)) return raw_error;
  return nestedOrError(out);
}

simdjson::error_code readMicroseconds(od::value value, std::int64_t& ns) {
  od::json_type type;
  if (auto error = value.type().get(type)) return error;
  if (type == od::json_type::number) {
    // Read from the token's text, exactly where it has at most three decimals; a scalar left
    // unread is skipped as one token.
    return microsecondsToNs(value.raw_json_token(), ns) ? simdjson::SUCCESS : simdjson::NUMBER_OUT_OF_RANGE;
  }
  if (type != od::json_type::string) return unexpected(value);
  std::string_view text;
  if (auto error = value.get_string().get(text)) return error;
  return microsecondsToNs(trimmed(text), ns) ? simdjson::SUCCESS : simdjson::INCORRECT_TYPE;
}

}  // namespace ampscope::analyzer::import
