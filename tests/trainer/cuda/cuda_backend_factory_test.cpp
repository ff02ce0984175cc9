// makeCudaBackend either gives a working backend or says why not, and never crashes: the CLI's
// --device auto relies on it on machines without a GPU. Runs (does not skip) everywhere.
#include <gtest/gtest.h>

#include <string>

#include "trainer/cuda/cuda_backend.h"

namespace ampscope::trainer {
namespace {

TEST(CudaBackendFactoryTest, GivesABackendOrSaysWhyNot) {
  std::string why_not;
  const std::unique_ptr<Backend> backend = makeCudaBackend(&why_not);
  if (backend) {
    EXPECT_EQ(backend->device(), DeviceKind::kCuda);
    EXPECT_FALSE(backend->description().empty());
    EXPECT_GT(cudaDeviceCountOrZero(), 0);
  } else {
    EXPECT_FALSE(why_not.empty());
    EXPECT_NE(why_not.find("GPU"), std::string::npos) << why_not;
  }
}

TEST(CudaBackendFactoryTest, SaysNoDeviceWhenTheRuntimeSeesNone) {
  if (cudaDeviceCountOrZero() > 0) GTEST_SKIP() << "this machine has a CUDA device";
  std::string why_not;
  EXPECT_EQ(makeCudaBackend(&why_not), nullptr);
  EXPECT_NE(why_not.find("no GPU"), std::string::npos) << why_not;
}

TEST(CudaBackendFactoryTest, AcceptsANullReason) {
  const std::unique_ptr<Backend> backend = makeCudaBackend(nullptr);
  if (cudaDeviceCountOrZero() == 0) {
    EXPECT_EQ(backend, nullptr);
  }
}

}  // namespace
}  // namespace ampscope::trainer
