// The CUDA backend's allocation reports: the same bytes as the CPU backend's for the same
// tensors, on the GPU's ordinal, with its scratch counted as reserved.
#include <vector>

#include "tests/trainer/cuda/cuda_backend_fixture.h"

namespace ampscope::trainer::cuda_test {
namespace {

class RecordingObserver final : public AllocationObserver {
 public:
  void allocationEvent(const AllocationEvent& event) override { events.push_back(event); }
  std::vector<AllocationEvent> events;
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
  RecordingObserver observer;
  gpu_->setAllocationObserver(&observer);
  const TensorPair x = random({256, 256}, DType::kFp16, 7);
  // The norm needs scratch on the device for its partial sums.
  (void)gpu_->squaredNorm(x.gpu);
  const Tensor after = gpu_->allocate({1}, DType::kFp32);
  gpu_->setAllocationObserver(nullptr);
  ASSERT_FALSE(observer.events.empty());
  const AllocationEvent& last = observer.events.back();
  EXPECT_GT(last.total_reserved_bytes, last.total_allocated_bytes);
}

}  // namespace
}  // namespace ampscope::trainer::cuda_test
