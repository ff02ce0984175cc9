#include "analyzer/import/kineto/json_value_end.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace ampscope::analyzer::import {
namespace {

// The plain byte-at-a-time reading of where a well-formed object, array or string ends.
std::size_t referenceEnd(const std::string& text) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') { ++i; continue; }
      if (c == '"') {
        in_string = false;
        if (depth == 0) return i + 1;
      }
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') ++depth;
    else if ((c == '}' || c == ']') && --depth == 0) return i + 1;
  }
  return JsonValueEnd::kNotYet;
}

// A random well-formed value rich in what the scanner must get right: escaped quotes and
// backslashes, brackets inside strings, runs of backslashes across 64-byte block edges.
std::string randomValue(std::mt19937& random, int depth) {
  auto pick = [&](int n) { return static_cast<int>(random() % static_cast<unsigned>(n)); };
  auto string = [&] {
    std::string s = "\"";
    const int length = pick(90);
    for (int i = 0; i < length; ++i) {
      switch (pick(9)) {
        case 0: s += "\\\\"; break;
        case 1: s += "\\\""; break;
        case 2: s += "{["; break;
        case 3: s += "]}"; break;
        case 4: s += std::string(static_cast<std::size_t>(pick(5)) * 2, '\\'); break;
        default: s += static_cast<char>('a' + pick(26)); break;
      }
    }
    return s + "\"";
  };
  if (depth > 3 || pick(3) == 0) return pick(2) == 0 ? string() : std::to_string(pick(100000));
  const bool object = pick(2) == 0;
  std::string s = object ? "{" : "[";
  const int members = pick(5);
  for (int i = 0; i < members; ++i) {
    if (i > 0) s += ", ";
    if (object) s += string() + ": ";
    s += randomValue(random, depth + 1);
  }
  return s + (object ? "}" : "]");
}

std::size_t scanInPieces(const std::string& text, std::mt19937& random, bool one_piece) {
  const std::string padded = text + std::string(JsonValueEnd::kReadAhead, '\0');
  JsonValueEnd end(text[0]);
  std::size_t from = 0;
  while (from < text.size()) {
    const std::size_t to = one_piece ? text.size() : std::min(text.size(), from + 1 + random() % 150);
    const std::size_t found = end.scan(padded.data(), from, to);
    if (found != JsonValueEnd::kNotYet) return found;
    from = to;
  }
  return JsonValueEnd::kNotYet;
}

TEST(JsonValueEndTest, AgreesWithAByteByByteScanWhereverBlocksAndPiecesBreak) {
  std::mt19937 random(20261126);
  int checked = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string value;
    while (value.empty() || (value[0] != '{' && value[0] != '[' && value[0] != '"')) value = randomValue(random, 0);
    // Whatever follows the value must not be read as part of it.
    const std::string text = value + (trial % 2 == 0 ? ",{\"x\": \"]\"}" : "]   ");
    const std::size_t expected = referenceEnd(text);
    ASSERT_EQ(expected, value.size());
    ASSERT_EQ(scanInPieces(text, random, true), expected) << text;
    ASSERT_EQ(scanInPieces(text, random, false), expected) << text;
    ++checked;
  }
  EXPECT_EQ(checked, 3000);
}

TEST(JsonValueEndTest, BackslashRunsAtTheBlockEdge) {
  // A string whose run of backslashes ends exactly at byte 63, 64 or 65, before a quote.
  for (std::size_t run = 1; run <= 6; ++run) {
    for (std::size_t lead = 55; lead <= 66; ++lead) {
      const std::string body = std::string(lead, 'a') + std::string(run, '\\') + "\"";
      const std::string text = "\"" + body + (run % 2 == 0 ? "" : "tail\"") + "}";
      std::mt19937 random(static_cast<unsigned>(run * 100 + lead));
      const std::size_t expected = referenceEnd(text);
      EXPECT_EQ(scanInPieces(text, random, true), expected) << "run " << run << " lead " << lead;
      EXPECT_EQ(scanInPieces(text, random, false), expected) << "run " << run << " lead " << lead;
    }
  }
}

TEST(JsonValueEndTest, AnUnfinishedValueAsksForMore) {
  const std::string text = "{\"a\": [1, \"}\"]" + std::string(JsonValueEnd::kReadAhead, '\0');
  JsonValueEnd end('{');
  EXPECT_EQ(end.scan(text.data(), 0, text.size() - JsonValueEnd::kReadAhead), JsonValueEnd::kNotYet);
}

bool nests(const std::string& text) {
  std::string padded = text + std::string(JsonValueEnd::kReadAhead, '\0');
  return bracketsNest(padded.data(), text.size());
}

TEST(BracketsNestTest, EachBracketMustCloseItsOwnKindInOrder) {
  EXPECT_TRUE(nests(""));
  EXPECT_TRUE(nests(R"([{"a": [1, {"b": []}]}, {}])"));
  EXPECT_FALSE(nests(R"([}])"));
  EXPECT_FALSE(nests(R"({"a": [1}])"));
  EXPECT_FALSE(nests(R"([{]})"));
  EXPECT_FALSE(nests(R"({"a": 1}})"));
  EXPECT_FALSE(nests(R"({"a": [1])"));
}

TEST(BracketsNestTest, BracketsInsideStringsDoNotCount) {
  EXPECT_TRUE(nests(R"({"a": "}]", "b": "[{"})"));
  EXPECT_TRUE(nests(R"({"a": "x\"}]"})"));      // an escaped quote does not end the string
  EXPECT_TRUE(nests(R"({"a": "x\\", "b": []})"));  // an escaped backslash does not escape the quote
  EXPECT_FALSE(nests(R"({"a": "open})"));         // a string left open
}

TEST(BracketsNestTest, HoldsAtEveryOffsetAroundTheBlockEdges) {
  // Strings, escapes and brackets at every offset around the 64-byte block edges.
  for (std::size_t pad = 0; pad < 130; ++pad) {
    const std::string filler(pad, ' ');
    EXPECT_TRUE(nests("[" + filler + R"({"k\"}": ["}"]}, [[]])" + filler + "]")) << pad;
    EXPECT_FALSE(nests("[" + filler + R"({"k\"}": ["}"]], [[]])" + filler + "]")) << pad;
  }
}

}  // namespace
}  // namespace ampscope::analyzer::import
