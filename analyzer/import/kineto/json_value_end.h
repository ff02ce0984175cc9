#pragma once
// Finds where a JSON object, array or string ends without parsing it, 64 bytes at a time: one
// pass classifies the block's quotes, backslashes and brackets into bit masks, works out which
// bytes are inside strings from the unescaped quotes (a running XOR), and only the brackets
// outside strings are then visited one by one. Trace events are mostly keys and short strings,
// so this is several times faster than stopping at every quote. Validation is simdjson's job:
// this only has to agree with it on where a well-formed value ends.

#include <cstddef>
#include <cstdint>

namespace ampscope::analyzer::import {

class JsonValueEnd {
 public:
  static constexpr std::size_t kNotYet = static_cast<std::size_t>(-1);
  // Bytes the scanner may read past the last byte it is given (simdjson's padding covers it).
  static constexpr std::size_t kReadAhead = 64;

  // first: the value's first byte, '{', '[' or '"' (which scan() is then given first).
  explicit JsonValueEnd(char first) : string_value_(first == '"') {}

  // Scans data[from, to), continuing from where the previous call stopped (the caller passes the
  // same bytes at their new position if it moved them). Returns the position one past the value's
  // last byte, or kNotYet when the value goes on past `to`. data[to, to + kReadAhead) must be
  // readable; its contents are ignored.
  std::size_t scan(const char* data, std::size_t from, std::size_t to);

 private:
  bool string_value_;
  int depth_ = 0;
  std::uint64_t inside_string_ = 0;  // all ones when the previous block ended inside a string
  bool escape_pending_ = false;      // the previous block ended with an escaping backslash
};

// Whether the brackets outside strings in text[0, size), which starts outside any string, close
// in the order they open, each with its own kind ('{' with '}', '[' with ']'), none left open and
// no string left open. JsonValueEnd counts brackets of either kind alike, and simdjson's
// on-demand parser skips values the same way, so text that fails this can read differently to
// them. text[size, size + JsonValueEnd::kReadAhead) must be readable; its contents are ignored.
bool bracketsNest(const char* text, std::size_t size);

}  // namespace ampscope::analyzer::import
