// Real CUDA failures, device memory running out, take the path the injected ones of
// training_run_test.cpp take: a BackendError with CUDA's own words, then an Error naming the step
// and the layer op. Label gpu; every test skips, saying why, without a usable device.
#include <gtest/gtest.h>

#include <string>

#include "trainer/backend/backend_error.h"
#include "trainer/engine/run_support.h"
#include "trainer/engine/training_run.h"

namespace ampscope::trainer {
namespace {

#define AMPSCOPE_REQUIRE_CUDA(var)                                 \
  auto var = selectBackend("cuda");                                \
  if (!var) GTEST_SKIP() << var.error().message

void expectOutOfDeviceMemory(const std::string& text) {
  // cudaMallocAsync where the device has memory pools, else cudaMalloc.
  EXPECT_NE(text.find("CUDA: out of memory (cudaErrorMemoryAllocation) in cudaMalloc"), std::string::npos)
      << text;
}

TEST(CudaTrainingFailureTest, DeviceOutOfMemoryIsABackendErrorAndTheBackendGoesOn) {
  AMPSCOPE_REQUIRE_CUDA(selected);
  Backend& backend = *selected->backend;
  try {
    static_cast<void>(backend.allocate({std::int64_t{1} << 40}, DType::kFp32));  // 4 TiB
    FAIL() << "allocating 4 TiB on the device should have failed";
  } catch (const BackendError& error) {
    EXPECT_EQ(error.source(), "CUDA");
    expectOutOfDeviceMemory(error.what());
  }
  // The failed allocation's error was taken back: the next launch's check does not report it again.
  Tensor t = backend.allocate({2}, DType::kFp32);
  backend.fill(t, 1.5f);
  EXPECT_EQ(backend.download(t), (std::vector<float>{1.5f, 1.5f}));
}

TEST(CudaTrainingFailureTest, RunOutOfDeviceMemoryNamesTheStepAndTheLayerOp) {
  AMPSCOPE_REQUIRE_CUDA(selected);
  // conv1's output, [1024, 65536, 28, 28] in FP32, is 192 GiB: more than any one GPU holds, while
  // the parameters (conv1 2 MiB, fc1 49 MiB) fit anywhere.
  TrainConfig config;
  config.model.kind = "cnn";
  config.model.channels = {65536};
  config.model.fc = 1;
  config.data.batch_size = 1024;
  config.data.augment = false;
  config.seed = 3;
  TrainingRun run(*selected->backend, config, makeSyntheticDataset(1024, 1), makeSyntheticDataset(16, 2));
  const auto result = run.run();
  ASSERT_FALSE(result.ok());
  const std::string& message = result.error().message;
  EXPECT_EQ(message.rfind("step 0, conv1 conv2d forward: CUDA: ", 0), 0u) << message;
  expectOutOfDeviceMemory(message);
}

}  // namespace
}  // namespace ampscope::trainer
