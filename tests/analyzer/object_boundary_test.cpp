#include "analyzer/import/kineto/object_boundary.h"

#include <gtest/gtest.h>

#include <string>

namespace ampscope::analyzer::import {
namespace {

std::optional<ObjectBoundary> guess(const std::string& text, std::size_t from = 0, std::size_t not_before = 0) {
  return guessObjectBoundary(text.data(), not_before, from, text.size());
}

TEST(ObjectBoundaryTest, FindsTheGapBetweenTwoObjectsWhateverTheWhitespace) {
  for (const std::string gap : {",", ", ", ",\n  ", " ,\t", "\r\n,\r\n"}) {
    const std::string text = R"({"a": 1})" + gap + R"({"b": 2})";
    const auto found = guess(text);
    ASSERT_TRUE(found.has_value()) << "gap '" << gap << "'";
    EXPECT_EQ(found->object_end, 8u);
    EXPECT_EQ(found->next_start, 8 + gap.size());
  }
}

TEST(ObjectBoundaryTest, PassesOverCommasThatDoNotSitBetweenTwoObjects) {
  // Between members, between an object and a string, between numbers: none is a gap.
  const std::string text = R"({"a": 1, "b": {"c": 2}, "d": [3, 4]}, "e", {"f": 5}, {"g": 6})";
  const auto found = guess(text);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(text.substr(found->object_end - 8, 8), R"({"f": 5})");
  EXPECT_EQ(text.substr(found->next_start), R"({"g": 6})");
}

TEST(ObjectBoundaryTest, SearchesFromTheGivenPlaceButMayFindTheBraceBeforeIt) {
  const std::string text = R"({"a": 1}, {"b": 2}, {"c": 3})";
  // From the comma after the first object: its brace lies before `from`.
  auto found = guess(text, 8);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->object_end, 8u);
  // Not before `not_before`, though: the same search, with the first object out of bounds, finds the second gap.
  found = guess(text, 8, 8);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->object_end, 18u);
  // From past the last gap: none.
  EXPECT_FALSE(guess(text, 20).has_value());
}

TEST(ObjectBoundaryTest, NeedsAnOpeningBraceBeforeTheEnd) {
  EXPECT_FALSE(guess(R"({"a": 1}, )").has_value());
  EXPECT_FALSE(guess(R"({"a": 1},)").has_value());
  EXPECT_FALSE(guess(R"({"a": 1}, [)").has_value());
  EXPECT_FALSE(guess("").has_value());
}

TEST(ObjectBoundaryTest, IsOnlyAGuessThatStringsAndNestedArraysFool) {
  // Inside a string, and between objects nested in an array: both look like a gap. A parse of
  // the chunk decides (KinetoParallelParse); this only finds candidates.
  const std::string in_string = R"({"name": "a}, {b"})";
  ASSERT_TRUE(guess(in_string).has_value());
  EXPECT_EQ(guess(in_string)->object_end, 12u);
  const std::string nested = R"({"args": [{"x": 1}, {"y": 2}]})";
  ASSERT_TRUE(guess(nested).has_value());
  EXPECT_EQ(nested.substr(guess(nested)->next_start), R"({"y": 2}]})");
}

}  // namespace
}  // namespace ampscope::analyzer::import
