#include "analyzer/import/kineto/object_boundary.h"

#include <cstring>

namespace ampscope::analyzer::import {

namespace {
bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
}  // namespace

std::optional<ObjectBoundary> guessObjectBoundary(const char* text, std::size_t not_before, std::size_t from,
                                                  std::size_t size) {
  std::size_t at = from;
  while (at < size) {
    const void* found = std::memchr(text + at, ',', size - at);
    if (found == nullptr) return std::nullopt;
    const std::size_t comma = static_cast<std::size_t>(static_cast<const char*>(found) - text);
    at = comma + 1;
    std::size_t before = comma;
    while (before > not_before && isSpace(text[before - 1])) --before;
    if (before == not_before || text[before - 1] != '}') continue;
    std::size_t after = comma + 1;
    while (after < size && isSpace(text[after])) ++after;
    if (after == size || text[after] != '{') continue;
    return ObjectBoundary{before, after};
  }
  return std::nullopt;
}

}  // namespace ampscope::analyzer::import
