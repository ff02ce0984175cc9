// The backends' allocation reports (trainer/backend/allocation_observer.h), on the CPU backend.

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "trainer/backend/backend.h"
#include "trainer/backend/backend_decorator.h"

namespace ampscope::trainer {
namespace {

class RecordingObserver final : public AllocationObserver {
 public:
  void allocationEvent(const AllocationEvent& event) override { events.push_back(event); }
  std::vector<AllocationEvent> events;
};

TEST(AllocationObserverTest, ReportsEachTensorInTheBytesItsDtypeTakesOnAGpu) {
  auto backend = makeCpuBackend();
  RecordingObserver observer;
  backend->setAllocationObserver(&observer);
  Tensor fp32 = backend->allocate({10, 10}, DType::kFp32);
  Tensor fp16 = backend->allocate({10, 10}, DType::kFp16);
  Tensor bf16 = backend->allocate({3}, DType::kBf16);
  ASSERT_EQ(observer.events.size(), 3u);
  // The emulation holds all three as floats; a GPU would hold 400, 200 and 6 bytes.
  EXPECT_EQ(observer.events[0].bytes, 400);
  EXPECT_EQ(observer.events[1].bytes, 200);
  EXPECT_EQ(observer.events[2].bytes, 6);
  EXPECT_EQ(observer.events[2].total_allocated_bytes, 606);
  EXPECT_EQ(observer.events[0].address, reinterpret_cast<std::uintptr_t>(fp32.raw()));
  EXPECT_EQ(observer.events[1].address, reinterpret_cast<std::uintptr_t>(fp16.raw()));
  for (const AllocationEvent& event : observer.events) {
    EXPECT_EQ(event.device, DeviceKind::kCpu);
    EXPECT_EQ(event.device_index, 0);
  }
}

TEST(AllocationObserverTest, ReportsTheReleaseWhenTheLastReferenceGoesAndCountsThePooledBlockAsReserved) {
  auto backend = makeCpuBackend();
  RecordingObserver observer;
  backend->setAllocationObserver(&observer);
  Tensor kept = backend->allocate({100}, DType::kFp32);
  std::uintptr_t address = 0;
  {
    Tensor activation = backend->allocate({50}, DType::kFp16);
    address = reinterpret_cast<std::uintptr_t>(activation.raw());
    Tensor view = activation.reshaped({5, 10});  // the same memory: no report of its own
    EXPECT_EQ(observer.events.size(), 2u);
  }
  ASSERT_EQ(observer.events.size(), 3u);
  const AllocationEvent& freed = observer.events[2];
  EXPECT_EQ(freed.bytes, -100);
  EXPECT_EQ(freed.address, address);
  EXPECT_EQ(freed.total_allocated_bytes, 400);
  // The pool keeps the block for the next tensor of its size: held, in the same logical bytes.
  EXPECT_EQ(freed.total_reserved_bytes, 500);
  // Reused for an FP32 tensor of the same count: the block is live again, nothing cached.
  Tensor reuse = backend->allocate({50}, DType::kFp32);
  ASSERT_EQ(observer.events.size(), 4u);
  EXPECT_EQ(observer.events[3].address, address);
  EXPECT_EQ(observer.events[3].total_allocated_bytes, 600);
  EXPECT_EQ(observer.events[3].total_reserved_bytes, 600);
}

TEST(AllocationObserverTest, ReportsNothingWithoutAnObserverNorAfterItIsCleared) {
  auto backend = makeCpuBackend();
  RecordingObserver observer;
  Tensor before = backend->allocate({8}, DType::kFp32);
  backend->setAllocationObserver(&observer);
  before = Tensor();  // allocated unobserved: its release is not reported either
  EXPECT_TRUE(observer.events.empty());
  Tensor observed = backend->allocate({8}, DType::kFp32);
  backend->setAllocationObserver(nullptr);
  observed = Tensor();
  Tensor after = backend->allocate({8}, DType::kFp32);
  EXPECT_EQ(observer.events.size(), 1u);
}

TEST(AllocationObserverTest, AReleaseOnAnotherThreadAfterTheBackendIsGoneIsReported) {
  RecordingObserver observer;
  Tensor survivor;
  {
    auto backend = makeCpuBackend();
    backend->setAllocationObserver(&observer);
    survivor = backend->allocate({16}, DType::kBf16);
  }
  std::thread([tensor = std::move(survivor)]() mutable { tensor = Tensor(); }).join();
  ASSERT_EQ(observer.events.size(), 2u);
  EXPECT_EQ(observer.events[1].bytes, -32);
  EXPECT_EQ(observer.events[1].total_allocated_bytes, 0);
}

TEST(AllocationObserverTest, TheFaultInjectingBackendPassesTheObserverToTheBackendItWraps) {
  FaultInjectingBackend backend(makeCpuBackend(), FaultPlan{});
  RecordingObserver observer;
  backend.setAllocationObserver(&observer);
  Tensor t = backend.allocate({4}, DType::kFp16);
  ASSERT_EQ(observer.events.size(), 1u);
  EXPECT_EQ(observer.events[0].bytes, 8);
}

}  // namespace
}  // namespace ampscope::trainer
