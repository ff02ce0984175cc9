// The CUDA backend's allocation reports: the same bytes as the CPU backend's for the same
// tensors, on the GPU's ordinal, with its scratch counted as reserved.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "tests/trainer/cuda/cuda_backend_fixture.h"

namespace ampscope::trainer::cuda_test {
namespace {

class RecordingObserver final : public AllocationObserver {
 public:
  void allocationEvent(const AllocationEvent& event) override {
    events.push_back(event);
    pool_cached.push_back(poolCachedNow());
  }
  std::vector<AllocationEvent> events;
  // What the device's memory pool and its graphs held for reuse at each event, as the CUDA API
  // says: the part of "reserved" that is the process's pool, not the backend's own buffers.
  std::vector<std::int64_t> pool_cached;

 private:
  static std::int64_t poolCachedNow() {
    int device = 0;
    cudaMemPool_t pool = nullptr;
    std::uint64_t reserved = 0, used = 0, graphs = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetDefaultMemPool(&pool, device) != cudaSuccess ||
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) != cudaSuccess ||
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess ||
        cudaDeviceGetGraphMemAttribute(device, cudaGraphMemAttrReservedMemCurrent, &graphs) != cudaSuccess) {
      return 0;
    }
    return static_cast<std::int64_t>(reserved - used + graphs);
  }
};

TEST_F(CudaBackendTest, ReportsTheSameTensorBytesAsTheCpuBackendAndTheirRelease) {
  RecordingObserver on_gpu, on_cpu;
  gpu_->setAllocationObserver(&on_gpu);
  cpu_->setAllocationObserver(&on_cpu);
  {
    const TensorPair weights = zeros({64, 32}, DType::kFp32);
    const TensorPair activations = zeros({128, 64}, DType::kFp16);
    const TensorPair norms = zeros({7}, DType::kBf16);
  }
  gpu_->setAllocationObserver(nullptr);
  cpu_->setAllocationObserver(nullptr);
  ASSERT_EQ(on_gpu.events.size(), 6u);
  ASSERT_EQ(on_cpu.events.size(), 6u);
  for (std::size_t i = 0; i < on_gpu.events.size(); ++i) {
    const AllocationEvent& g = on_gpu.events[i];
    EXPECT_EQ(g.bytes, on_cpu.events[i].bytes) << "event " << i;
    EXPECT_EQ(g.total_allocated_bytes, on_cpu.events[i].total_allocated_bytes) << "event " << i;
    EXPECT_EQ(g.device, DeviceKind::kCuda);
    EXPECT_EQ(g.device_index, 0);
    EXPECT_GE(g.total_reserved_bytes, g.total_allocated_bytes);
  }
  EXPECT_EQ(on_gpu.events[0].bytes, 64 * 32 * 4);
  EXPECT_EQ(on_gpu.events[1].bytes, 128 * 64 * 2);
  EXPECT_EQ(on_gpu.events[2].bytes, 7 * 2);
  EXPECT_EQ(on_gpu.events.back().total_allocated_bytes, 0);
}

TEST_F(CudaBackendTest, CountsItsScratchAsReservedBeyondTheTensors) {
  const TensorPair x = random({256, 256}, DType::kFp16, 7);
  const TensorPair labels = zeros({256}, DType::kFp32);
  RecordingObserver observer;
  gpu_->setAllocationObserver(&observer);
  // The count converts FP16 logits into FP32 rows in scratch on the device.
  (void)gpu_->countCorrect(x.gpu, labels.gpu);
  const Tensor after = gpu_->allocate({1}, DType::kFp32);
  gpu_->setAllocationObserver(nullptr);
  ASSERT_FALSE(observer.events.empty());
  const AllocationEvent& last = observer.events.back();
  EXPECT_GE(last.total_reserved_bytes, last.total_allocated_bytes + 256 * 256 * 4);
}

TEST_F(CudaBackendTest, CountsItsStepStateAsReservedUntilItIsReleased) {
  RecordingObserver observer;
  gpu_->setAllocationObserver(&observer);
  const StepStateLayout layout{8, 1000};
  ScalerState initial;
  initial.slots = 8;
  const Tensor before = gpu_->allocate({1}, DType::kFp32);
  {
    const StepStateMemory state = gpu_->allocateStepState(layout, initial);
    const Tensor during = gpu_->allocate({1}, DType::kFp32);
  }
  const Tensor after = gpu_->allocate({1}, DType::kFp32);
  gpu_->setAllocationObserver(nullptr);
  // before, during, its release (the state still held: it goes last at the end of the block), after.
  ASSERT_EQ(observer.events.size(), 4u);
  // Reserved beyond the tensors also holds what the device's memory pool keeps for reuse, which
  // tensor allocations move: that part is taken off, leaving the backend's own buffers.
  const auto held = [&](std::size_t i) {
    const AllocationEvent& e = observer.events[i];
    return e.total_reserved_bytes - e.total_allocated_bytes - observer.pool_cached[i];
  };
  EXPECT_EQ(held(1) - held(0), static_cast<std::int64_t>(layout.bytes()));
  EXPECT_EQ(held(3), held(0));
}

}  // namespace
}  // namespace ampscope::trainer::cuda_test
