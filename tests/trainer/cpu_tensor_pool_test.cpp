#include "trainer/backend/cpu/cpu_tensor_pool.h"

#include <algorithm>
#include <thread>

#include <gtest/gtest.h>

namespace ampscope::trainer {
namespace {

TEST(CpuTensorPoolTest, AFreedBlockServesTheNextTensorOfItsSizeZeroedAgain) {
  CpuTensorPool pool;
  float* first = nullptr;
  {
    std::shared_ptr<float[]> block = pool.allocate(1000);
    first = block.get();
    std::fill(block.get(), block.get() + 1000, 7.0f);
  }
  EXPECT_EQ(pool.cachedBytes(), 1000 * sizeof(float));
  std::shared_ptr<float[]> other_size = pool.allocate(999);
  EXPECT_NE(other_size.get(), first);
  std::shared_ptr<float[]> again = pool.allocate(1000);
  EXPECT_EQ(again.get(), first);
  EXPECT_EQ(pool.cachedBytes(), 0u);
  EXPECT_TRUE(std::all_of(again.get(), again.get() + 1000, [](float v) { return v == 0.0f; }));
}

TEST(CpuTensorPoolTest, CountsACachedBlockInTheLogicalBytesOfTheTensorThatFreedIt) {
  CpuTensorPool pool;
  { std::shared_ptr<float[]> fp16_tensor = pool.allocate(1000, 2000); }
  EXPECT_EQ(pool.cachedBytes(), 1000 * sizeof(float));
  EXPECT_EQ(pool.cachedLogicalBytes(), 2000u);
  std::shared_ptr<float[]> reused = pool.allocate(1000, 4000);
  EXPECT_EQ(pool.cachedLogicalBytes(), 0u);
  reused.reset();
  EXPECT_EQ(pool.cachedLogicalBytes(), 4000u);
}

TEST(CpuTensorPoolTest, KeepsNoMoreThanItsLimitAndFreesTheRest) {
  CpuTensorPool pool(3000 * sizeof(float));
  {
    std::shared_ptr<float[]> a = pool.allocate(2000);
    std::shared_ptr<float[]> b = pool.allocate(2000);
  }
  EXPECT_EQ(pool.cachedBytes(), 2000 * sizeof(float));  // the second did not fit
}

TEST(CpuTensorPoolTest, ATensorMayOutliveThePoolAndBeFreedOnAnotherThread) {
  std::shared_ptr<float[]> survivor;
  {
    CpuTensorPool pool;
    survivor = pool.allocate(64);
    survivor[63] = 1.0f;
  }
  float seen = 0.0f;
  std::thread([&seen, moved = std::move(survivor)]() mutable {
    seen = moved[63];  // still the tensor's memory
    moved.reset();     // released with the pool gone: no crash (and no leak under sanitizers)
  }).join();
  EXPECT_EQ(seen, 1.0f);
}

}  // namespace
}  // namespace ampscope::trainer
