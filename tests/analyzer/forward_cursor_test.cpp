#include "analyzer/core/forward_cursor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace ampscope::analyzer {
namespace {

TEST(ForwardCursor, GivesWhatUpperBoundGivesForKeysInAnyOrder) {
  const std::vector<std::int64_t> sorted = {1, 3, 3, 5, 8, 8, 8, 13};
  ForwardCursor cursor(sorted.size(), [&](std::size_t i) { return sorted[i]; });
  // Increasing, repeated, then going back and forward again.
  for (const std::int64_t key : {0, 1, 2, 3, 3, 8, 20, 4, -5, 8, 13, 12, 14}) {
    const auto expected = static_cast<std::size_t>(std::upper_bound(sorted.begin(), sorted.end(), key) - sorted.begin());
    EXPECT_EQ(cursor.upTo(key), expected) << "key " << key;
  }
}

TEST(ForwardCursor, AnEmptySequenceHasNothingBeforeAnyKey) {
  ForwardCursor cursor(0, [](std::size_t) { return std::int64_t{0}; });
  EXPECT_EQ(cursor.upTo(5), 0u);
  EXPECT_EQ(cursor.upTo(-5), 0u);
}

}  // namespace
}  // namespace ampscope::analyzer
