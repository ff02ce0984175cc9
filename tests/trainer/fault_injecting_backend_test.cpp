#include "trainer/backend/backend_decorator.h"

#include <gtest/gtest.h>

#include "trainer/backend/backend_error.h"

namespace ampscope::trainer {
namespace {

TEST(FaultInjectingBackendTest, ParsesAnOpAndTheCallThatFails) {
  const auto plan = parseFaultPlan("gemm:13");
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->op, BackendOp::kGemm);
  EXPECT_EQ(plan->call, 13);
  const auto first = parseFaultPlan("allocate");
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->op, BackendOp::kAllocate);
  EXPECT_EQ(first->call, 1);
}

TEST(FaultInjectingBackendTest, RefusesUnknownOpsAndCallsThatAreNotFromOne) {
  const auto unknown = parseFaultPlan("gem:2");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown op 'gem'"), std::string::npos) << unknown.error().message;
  EXPECT_NE(unknown.error().message.find("gemm"), std::string::npos) << "lists the ops: " << unknown.error().message;
  for (const char* bad : {"gemm:0", "gemm:-1", "gemm:x", "gemm:", "gemm:2x"}) {
    const auto plan = parseFaultPlan(bad);
    ASSERT_FALSE(plan.ok()) << bad;
    EXPECT_NE(plan.error().message.find("not a whole number from 1"), std::string::npos) << plan.error().message;
  }
}

TEST(FaultInjectingBackendTest, FailsOnlyThePlannedCallAndPassesTheOthersOn) {
  FaultInjectingBackend backend(makeCpuBackend(), FaultPlan{BackendOp::kFill, 2});
  EXPECT_EQ(backend.device(), DeviceKind::kCpu);
  Tensor t = backend.allocate({2}, DType::kFp32);
  backend.fill(t, 3.0f);
  EXPECT_EQ(backend.download(t), (std::vector<float>{3.0f, 3.0f}));
  try {
    backend.fill(t, 5.0f);
    FAIL() << "the second fill should have failed";
  } catch (const BackendError& error) {
    EXPECT_EQ(error.source(), "fault injection");
    EXPECT_STREQ(error.what(), "fault injection: fill call 2 failed as planned");
  }
  EXPECT_EQ(backend.download(t), (std::vector<float>{3.0f, 3.0f})) << "the failed call did nothing";
  backend.fill(t, 7.0f);
  EXPECT_EQ(backend.download(t), (std::vector<float>{7.0f, 7.0f}));
}

}  // namespace
}  // namespace ampscope::trainer
