#pragma once
// Reads one value of a Kineto event (simdjson On-Demand) into what the event parser keeps.
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

#include <simdjson.h>

#include <array>
#include <cstdint>
#include <string_view>

namespace ampscope::analyzer::import {

// An unexpected value: consumed, to be counted, not a reason to refuse the file.
inline bool isUnexpectedValue(simdjson::error_code error) {
  return error == simdjson::INCORRECT_TYPE || error == simdjson::NUMBER_OUT_OF_RANGE;
}

// A pid or tid: Kineto writes numbers, numeric strings ("25738") or labels ("stream 7").
struct IdValue {
  std::int64_t number = 0;
  bool present = false;
};

// True where the brackets of a raw array or object close their own kind. simdjson skips a value
// it is not asked to read by counting brackets of either kind, and the chrome-trace stream finds
// an element's end the same way: only where each bracket closes its own kind do both agree with
// the JSON that a parser reading every value would see. Every array or object value that is kept
// as text or not read at all goes through here, so that one whose brackets do not nest is an
// error rather than a value that ends elsewhere (and so that an events array read in guessed
// chunks reads as the stream reads it element by element).
simdjson::error_code nestedOrError(std::string_view raw);

// A value the reader does not use: consumed, an array or object only where it nests.
simdjson::error_code skipValue(simdjson::ondemand::value value);

// An integer from a number (a fraction is cut to its whole part) or a numeric string. A number
// outside 64 bits is NUMBER_OUT_OF_RANGE: converting it would be undefined behaviour.
simdjson::error_code readInt(simdjson::ondemand::value value, std::int64_t& out);

// A pid or tid: a number, a numeric string, or a label's trailing number or hashed id
// (idFromLabel).
simdjson::error_code readId(simdjson::ondemand::value value, IdValue& out);

// A kernel's grid or block: an array of up to three non-negative integers below 2^32.
simdjson::error_code readDim3(simdjson::ondemand::value value, std::array<std::uint32_t, 3>& out);

// A string's text.
simdjson::error_code readString(simdjson::ondemand::value value, std::string_view& out);

// A value that some versions write as a string and others as a number or an array (a process
// group's name and ranks): the string's text, else the value's JSON text.
simdjson::error_code readTextOrRaw(simdjson::ondemand::value value, std::string_view& out);

// The raw JSON text of an array value (shapes, dtypes and argument values are kept as text).
simdjson::error_code rawArray(simdjson::ondemand::value value, std::string_view& out);

// A time in microseconds, as a number or a numeric string, in nanoseconds (microsecondsToNs).
simdjson::error_code readMicroseconds(simdjson::ondemand::value value, std::int64_t& ns);

}  // namespace ampscope::analyzer::import
