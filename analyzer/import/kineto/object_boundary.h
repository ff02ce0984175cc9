#pragma once
// Guesses where one object of a JSON array ends and the next begins, without reading what comes
// before: the reading thread uses it to cut a mapped events array into chunks that parser
// threads parse at once, instead of finding every element's end itself.
//
// It is a guess. The same bytes ('}', a comma, '{') also occur inside strings and inside arrays
// of objects nested in an element, and after the events array ends. A chunk is only kept once a
// parse that starts where an element truly starts reads the whole chunk as complete elements
// (KinetoEventParser): JSON parses one way only, so a parser that finds all its containers and
// strings closed exactly at the guessed end proves the guess right.

#include <cstddef>
#include <optional>

namespace ampscope::analyzer::import {

struct ObjectBoundary {
  std::size_t object_end = 0;  // one past the '}' that closes the object before the comma
  std::size_t next_start = 0;  // where the '{' of the object after it is
};

// The first gap at or after `from` in text[not_before, size) that looks like the one between two
// objects of an array: '}', whitespace, a comma, whitespace, '{'. The '}' may lie before `from`
// but not before `not_before`. Empty when there is none before `size`.
std::optional<ObjectBoundary> guessObjectBoundary(const char* text, std::size_t not_before, std::size_t from,
                                                  std::size_t size);

}  // namespace ampscope::analyzer::import
