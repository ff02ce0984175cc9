#include "analyzer/steps/amdahl.h"

#include <set>
#include <string>

#include <gtest/gtest.h>

#include "../test_support.h"
#include "analyzer/correlate/correlator.h"
#include "analyzer/import/trace_importer.h"
#include "analyzer/summary/trace_summary.h"

namespace ampscope::analyzer {
namespace {

AmdahlProjection projectionOf(const std::string& path) {
  auto imported = import::importTrace(path);
  EXPECT_TRUE(imported.ok());
  const CorrelationCounts counts = correlate(*imported);
  return summarizeTrace(*imported, counts).amdahl;
}

double fractionOf(const AmdahlProjection& p, StepPartKind kind) {
  if (const StepPart* part = p.part(kind)) return part->fraction;
  ADD_FAILURE() << "no part " << stepPartKindName(kind);
  return 0;
}

TEST(StepPartTest, EveryKindHasItsOwnNameAndLabel) {
  std::set<std::string> names, labels;
  for (StepPartKind kind : kStepPartKinds) {
    names.insert(stepPartKindName(kind));
    labels.insert(stepPartLabel(kind));
  }
  EXPECT_EQ(names.size(), kStepPartKinds.size());
  EXPECT_EQ(labels.size(), kStepPartKinds.size());
  EXPECT_STREQ(stepPartKindName(StepPartKind::kEligibleFp32Math), "eligible_fp32_math");
  EXPECT_TRUE(isMatrixMath(StepPartKind::kEligibleTf32Math));
  EXPECT_FALSE(isMatrixMath(StepPartKind::kMemoryBound));
}

TEST(AmdahlTest, Fp32ResNetOnV100ProjectsASpeedupBelowItsCeiling) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-v100-resnet50-workers4/worker0.1623212756351.pt.trace.json.gz");
  const AmdahlProjection p = projectionOf(path);
  EXPECT_EQ(p.device.name, "V100 SXM2");
  double total = 0;
  for (const StepPart& part : p.parts) total += part.fraction;
  EXPECT_NEAR(total, 1.0, 1e-6);  // the parts add up to the step
  ASSERT_EQ(p.parts.size(), kStepPartKinds.size());
  for (std::size_t i = 0; i < p.parts.size(); ++i) EXPECT_EQ(p.parts[i].kind, kStepPartKinds[i]);
  EXPECT_GT(fractionOf(p, StepPartKind::kEligibleFp32Math), 0.3);
  EXPECT_EQ(fractionOf(p, StepPartKind::kTensorCoreMath), 0.0);
  EXPECT_GT(p.projected_speedup, 1.5);
  EXPECT_LT(p.projected_speedup, p.ceiling);
}

TEST(AmdahlTest, TheInputPipelineCapsWhatAmpCanGive) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(workers0, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  AMPSCOPE_REQUIRE_SHARED_TRACE(workers4, "kineto-v100-resnet50-workers4/worker0.1623212756351.pt.trace.json.gz");
  // The same model: with the loader exposed, idle GPU time holds the projection down.
  EXPECT_LT(projectionOf(workers0).ceiling, projectionOf(workers4).ceiling);
}

TEST(AmdahlTest, ModelAlreadyInBf16HasNothingLeftForAmp) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(
      path, "kineto-h100-timesformer-bf16/facebook_timesformer-base-finetuned-k400__1016002.json.gz");
  const AmdahlProjection p = projectionOf(path);
  EXPECT_GT(fractionOf(p, StepPartKind::kTensorCoreMath), 0.1);
  EXPECT_NEAR(p.projected_speedup, 1.0, 0.01);
}

// TF32 to FP16/BF16 is 2x at the A100's peaks; the DLRM's GEMMs are small enough that the shape
// model gives less, never more, and never nothing.
TEST(AmdahlTest, Tf32ModelOnA100GainsLessThanThePeakRatioInHalfPrecision) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-a100-dlrm-tf32/control.json.gz");
  const AmdahlProjection p = projectionOf(path);
  EXPECT_GT(fractionOf(p, StepPartKind::kEligibleTf32Math), 0.05);
  EXPECT_GT(p.part(StepPartKind::kEligibleTf32Math)->speedup, 1.1);
  EXPECT_LE(p.part(StepPartKind::kEligibleTf32Math)->speedup, 2.0);
  // Its NCCL collectives reduce FP32 gradients: unchanged under AMP.
  EXPECT_GT(fractionOf(p, StepPartKind::kCommunication), 0.05);
  EXPECT_DOUBLE_EQ(p.part(StepPartKind::kCommunication)->speedup, 1.0);
}

TEST(AmdahlTest, NoGpuWorkMeansNoProjectionAndSaysWhy) {
  trace::Trace trace;
  trace::Device device;
  device.compute_major = 8;
  trace.devices.push_back(device);
  const AmdahlProjection p = summarizeTrace(trace, CorrelationCounts{}).amdahl;
  EXPECT_TRUE(p.parts.empty());
  EXPECT_FALSE(p.note.empty());
}

}  // namespace
}  // namespace ampscope::analyzer
