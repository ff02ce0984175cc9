#pragma once
// Reads one value of a Kineto event (simdjson On-Demand) into what the event parser keeps.
// Included by kineto_event_parser.cpp alone.
//
// Real traces write optional fields in every shape: numbers as strings ("correlation": "42"),
// Inductor's launcher text where a kernel's grid belongs ("grid": "grid(100,)"), a device's
// label where a number is documented. A value the analysis can do without must never refuse a
// trace, so each reader tells three outcomes apart:
//   - SUCCESS: read;
//   - an unexpected value (isUnexpectedValue): a type or range the format does not document. The
//     value has been consumed, so the next field reads where the JSON says it starts; the caller
//     counts it and keeps the event;
//   - any other error: the JSON's structure is broken (brackets that do not nest, a bad number or
//     string), and the file is refused.
//
// The readers sit in the event parser's file (internal linkage), the string and time readers
// inline in its loop with their rare cases out of line: a dozen of them run per event of a file of
// millions. Importing a 529 MB trace on one thread took 0.74 s with them as calls into a file of
// their own, 0.65 s like this, and 0.62 s for the importer that refused such values (median of 8
// alternated runs each, bench/ampscope_import_bench --threads 1).

#include <simdjson.h>

#include <array>
#include <charconv>
#include <cstdint>
#include <limits>
#include <string_view>

#include "analyzer/import/kineto/json_value_end.h"
#include "analyzer/import/kineto/kineto_memory_event.h"
#include "analyzer/import/kineto/kineto_values.h"

namespace ampscope::analyzer::import {
namespace {

namespace od = simdjson::ondemand;

// An unexpected value: consumed, to be counted, not a reason to refuse the file.
bool isUnexpectedValue(simdjson::error_code error) {
  return error == simdjson::INCORRECT_TYPE || error == simdjson::NUMBER_OUT_OF_RANGE;
}

// A pid or tid: Kineto writes numbers, numeric strings ("25738") or labels ("stream 7").
struct IdValue {
  std::int64_t number = 0;
  bool present = false;
  std::string_view label;  // the text, where the id was written as a string
};

constexpr double kInt64Limit = 9223372036854775808.0;  // 2^63

// True where the brackets of a raw array or object close their own kind. simdjson skips a value
// it is not asked to read by counting brackets of either kind, and the chrome-trace stream finds
// an element's end the same way: only where each bracket closes its own kind do both agree with
// the JSON that a parser reading every value would see. Every array or object value that is kept
// as text or not read at all goes through here, so that one whose brackets do not nest is an
// error rather than a value that ends elsewhere (and so that an events array read in guessed
// chunks reads as the stream reads it element by element).
simdjson::error_code nestedOrError(std::string_view raw) {
  return bracketsNest(raw.data(), raw.size()) ? simdjson::SUCCESS : simdjson::TAPE_ERROR;
}

// A value the reader does not use: consumed, an array or object only where it nests.
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

// Consumes a value of a type the reader does not take: INCORRECT_TYPE once it is consumed, or
// the structural error consuming it met.
[[gnu::cold]] simdjson::error_code unexpected(od::value value) {
  if (auto error = skipValue(value)) return error;
  return simdjson::INCORRECT_TYPE;
}

// A JSON number as a 64-bit integer (truncated). Integers, the usual case, are read as such
// (exactly, past 2^53 too); a failed integer read leaves the value unread, so the double read
// still sees it. A number outside 64 bits is NUMBER_OUT_OF_RANGE: converting it would be
// undefined behaviour (found by the kineto fuzz harness).
simdjson::error_code readWholeNumber(od::value value, std::int64_t& out) {
  if (value.get_int64().get(out) == simdjson::SUCCESS) return simdjson::SUCCESS;
  double number = 0;
  if (auto error = value.get_double().get(number)) return error;
  if (!(number > -kInt64Limit && number < kInt64Limit)) return simdjson::NUMBER_OUT_OF_RANGE;  // NaN too
  out = static_cast<std::int64_t>(number);
  return simdjson::SUCCESS;
}

// A string's text as an integer (integerFromText): INCORRECT_TYPE where it holds no number.
[[gnu::cold]] simdjson::error_code integerFromString(std::string_view text, std::int64_t& out) {
  switch (integerFromText(text, out)) {
    case NumberText::kRead: return simdjson::SUCCESS;
    case NumberText::kOutOfRange: return simdjson::NUMBER_OUT_OF_RANGE;
    case NumberText::kNotANumber: break;
  }
  return simdjson::INCORRECT_TYPE;
}

// An integer from what is no 64-bit integer: a fraction, a number out of range, a numeric string,
// another type.
[[gnu::cold]] simdjson::error_code readIntOtherwise(od::value value, std::int64_t& out) {
  od::json_type type;
  if (auto error = value.type().get(type)) return error;
  if (type == od::json_type::number) return readWholeNumber(value, out);
  if (type == od::json_type::string) {
    std::string_view text;
    if (auto error = value.get_string().get(text)) return error;
    return integerFromString(text, out);
  }
  return unexpected(value);
}

// An integer from a number (a fraction is cut to its whole part) or a numeric string.
simdjson::error_code readInt(od::value value, std::int64_t& out) {
  if (value.get_int64().get(out) == simdjson::SUCCESS) return simdjson::SUCCESS;  // the usual case
  return readIntOtherwise(value, out);
}

// A pid or tid: a number, a numeric string, or a label's trailing number or hashed id
// (idFromLabel). Kineto writes most tids as strings ("stream 7", "25738"): the type is asked first.
simdjson::error_code readId(od::value value, IdValue& out) {
  od::json_type type;
  if (auto error = value.type().get(type)) return error;
  if (type == od::json_type::string) {
    std::string_view text;
    if (auto error = value.get_string().get(text)) return error;
    out = {idFromLabel(text), true, text};
    return simdjson::SUCCESS;
  }
  if (type != od::json_type::number) return unexpected(value);
  if (auto error = readWholeNumber(value, out.number)) return error;
  out.present = true;
  return simdjson::SUCCESS;
}

// A string's text.
[[gnu::always_inline]] inline simdjson::error_code readString(od::value value, std::string_view& out) {
  const simdjson::error_code error = value.get_string().get(out);
  // A value of another type is left unread by the failed read: consumed here.
  return error == simdjson::INCORRECT_TYPE ? unexpected(value) : error;
}

// The raw JSON text of an array value (shapes, dtypes and argument values are kept as text).
simdjson::error_code rawArray(od::value value, std::string_view& out) {
  od::array array;
  const simdjson::error_code error = value.get_array().get(array);
  if (error == simdjson::INCORRECT_TYPE) return unexpected(value);
  if (error) return error;
  if (auto raw_error = array.raw_json().get(out)) return raw_error;
  return nestedOrError(out);
}

// A kernel's grid or block: an array of up to three non-negative integers below 2^32. Taken as
// text and read here, so that a bad element leaves nothing of the array unread.
simdjson::error_code readDim3(od::value value, std::array<std::uint32_t, 3>& out) {
  std::string_view raw;
  if (auto error = rawArray(value, raw)) return error;
  raw = trimJsonSpace(raw);
  raw = trimJsonSpace(raw.substr(1, raw.size() - 2));  // "[...]": rawArray proved the brackets
  std::array<std::uint32_t, 3> axes{};
  std::size_t axis = 0;
  while (!raw.empty()) {
    const std::size_t comma = raw.find(',');
    const std::string_view element = trimJsonSpace(raw.substr(0, comma));
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

// A value that some versions write as a string and others as a number or an array (a process
// group's name and ranks): the string's text, else the value's JSON text.
simdjson::error_code readTextOrRaw(od::value value, std::string_view& out) {
  od::json_type type;
  if (auto error = value.type().get(type)) return error;
  if (type == od::json_type::string) return value.get_string().get(out);
  if (type == od::json_type::array) return rawArray(value, out);
  out = trimJsonSpace(value.raw_json_token());
  return type == od::json_type::object ? skipValue(value) : simdjson::SUCCESS;
}

// A scalar kept as its text, to be read later (a "[memory]" event's numbers: readMemoryArgs says
// what each may hold). Any type is taken, so none is counted here; an array or object only where
// it nests.
simdjson::error_code readScalar(od::value value, JsonScalar& out) {
  od::json_type type;
  if (auto error = value.type().get(type)) return error;
  if (type == od::json_type::number) {
    out = {trimJsonSpace(value.raw_json_token()), JsonScalar::Form::kNumber};
    return simdjson::SUCCESS;  // a number left unread is skipped as one token
  }
  if (type == od::json_type::string) {
    out.form = JsonScalar::Form::kString;
    return value.get_string().get(out.text);
  }
  out = {{}, JsonScalar::Form::kOther};
  return skipValue(value);
}

// An args member of an event that holds metrics (kineto_metric_events.h), as its text, consumed
// as skipValue consumes a value the reader does not use. Kineto formats metric values with fmt,
// which writes a value CUPTI could not evaluate as `nan` or `inf`: not JSON, but one token each,
// skipped as such (simdjson's type() would take `nan` for null, and refuse `inf`).
simdjson::error_code readMetricArg(od::value value, JsonScalar& out) {
  const std::string_view token = trimJsonSpace(value.raw_json_token());
  const char first = token.empty() ? '\0' : token[0];
  if (first == '"') {
    // A number in a string needs no escapes: the text between the quotes, unescaped or not, is it.
    od::raw_json_string unread;
    if (auto error = value.get_raw_json_string().get(unread)) return error;
    out = {token.size() >= 2 ? token.substr(1, token.size() - 2) : std::string_view(), JsonScalar::Form::kString};
    return simdjson::SUCCESS;
  }
  if (first == '-' || (first >= '0' && first <= '9')) {
    out = {token, JsonScalar::Form::kNumber};  // "-nan" too; left unread, skipped as one token
    return simdjson::SUCCESS;
  }
  out = {{}, JsonScalar::Form::kOther};
  if (first == 'n' || first == 'i') return simdjson::SUCCESS;  // nan, null, inf: skipped as one token
  return skipValue(value);
}

// A time that is no plain number token: a numeric string ("12.5"), a number out of range, or
// another type.
[[gnu::cold]] simdjson::error_code readMicrosecondsOtherwise(od::value value, std::int64_t& ns) {
  od::json_type type;
  if (auto error = value.type().get(type)) return error;
  if (type == od::json_type::number) return simdjson::NUMBER_OUT_OF_RANGE;  // 1e999: no time
  if (type != od::json_type::string) return unexpected(value);
  std::string_view text;
  if (auto error = value.get_string().get(text)) return error;
  return microsecondsToNs(trimJsonSpace(text), ns) ? simdjson::SUCCESS : simdjson::INCORRECT_TYPE;
}

// A time in microseconds, as a number or a numeric string, in nanoseconds (microsecondsToNs).
[[gnu::always_inline]] inline simdjson::error_code readMicroseconds(od::value value, std::int64_t& ns) {
  // A number token, the usual case, is read from its text: exactly where it has at most three
  // decimals. A scalar left unread is skipped as one token.
  const std::string_view token = value.raw_json_token();
  if (!token.empty() && token[0] != '"' && microsecondsToNs(token, ns)) return simdjson::SUCCESS;
  return readMicrosecondsOtherwise(value, ns);
}

}  // namespace
}  // namespace ampscope::analyzer::import
