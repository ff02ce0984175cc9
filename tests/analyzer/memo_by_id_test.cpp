#include "analyzer/core/memo_by_id.h"

#include <gtest/gtest.h>

namespace ampscope::analyzer {
namespace {

TEST(MemoByIdTest, DecidesEachIdOnceInWhateverOrderIdsCome) {
  IndexById memo;
  int decided = 0;
  const auto indexOf = [&](std::size_t id) {
    return memo.get(id, [&] {
      ++decided;
      return static_cast<std::int32_t>(id * 2);
    });
  };
  for (const std::size_t id : {5u, 0u, 5u, 1000u, 0u, 3u, 1000u}) EXPECT_EQ(indexOf(id), static_cast<std::int32_t>(id * 2));
  EXPECT_EQ(decided, 4);
}

TEST(MemoByIdTest, ADecisionMayAskForOtherIds) {
  // The slot is found after decide() returns: asking for a larger id inside it grows the vector
  // without leaving the outer call a dangling slot.
  IndexById memo;
  const std::int32_t outer = memo.get(1, [&] { return memo.get(1u << 20, [] { return 7; }) + 1; });
  EXPECT_EQ(outer, 8);
  EXPECT_EQ(memo.get(1, [] { return -5; }), 8);
  EXPECT_EQ(memo.get(1u << 20, [] { return -5; }), 7);
}

TEST(MemoByIdTest, ANameTestKeepsNoAsWellAsYes) {
  NameTest test;
  int decided = 0;
  const auto isEven = [&](std::size_t id) {
    return test(id, [&] {
      ++decided;
      return id % 2 == 0;
    });
  };
  EXPECT_TRUE(isEven(4));
  EXPECT_FALSE(isEven(7));
  EXPECT_TRUE(isEven(4));
  EXPECT_FALSE(isEven(7));
  EXPECT_EQ(decided, 2);
}

}  // namespace
}  // namespace ampscope::analyzer
