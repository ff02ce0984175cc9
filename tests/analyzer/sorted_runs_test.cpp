#include "analyzer/core/sorted_runs.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace ampscope::analyzer {
namespace {

TEST(SortMostlySorted, MergesAFewRuns) {
  std::vector<std::int64_t> values = {1, 4, 9, 2, 3, 10, 0, 5};  // three runs
  sortMostlySorted(values);
  EXPECT_EQ(values, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 9, 10}));
}

TEST(SortMostlySorted, SortsWhateverTheOrder) {
  std::mt19937 random(7);
  for (const std::size_t runs : {std::size_t{1}, std::size_t{2}, kMaxRunsToMerge, std::size_t{50}}) {
    std::vector<std::pair<std::int64_t, std::size_t>> values;
    for (std::size_t r = 0; r < runs; ++r) {
      std::int64_t t = static_cast<std::int64_t>(random() % 100);
      for (int i = 0; i < 20; ++i) values.emplace_back(t += static_cast<std::int64_t>(random() % 3), values.size());
    }
    auto expected = values;
    std::sort(expected.begin(), expected.end());
    sortMostlySorted(values);
    EXPECT_EQ(values, expected) << runs << " runs";
  }
}

TEST(SortMostlySorted, EmptyAndSortedStayAsTheyAre) {
  std::vector<int> empty;
  sortMostlySorted(empty);
  EXPECT_TRUE(empty.empty());
  std::vector<int> sorted = {1, 1, 2, 3};
  sortMostlySorted(sorted);
  EXPECT_EQ(sorted, (std::vector<int>{1, 1, 2, 3}));
}

}  // namespace
}  // namespace ampscope::analyzer
