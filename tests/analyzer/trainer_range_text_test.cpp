#include "analyzer/normalise/trainer_range_text.h"

#include <gtest/gtest.h>

#include "analyzer/core/gemm_shapes.h"
#include "analyzer/core/operator_labels.h"
#include "analyzer/correlate/correlator.h"
#include "analyzer/model/op_work.h"
#include "analyzer/normalise/range_normaliser.h"
#include "analyzer/normalise/range_values_reader.h"

namespace ampscope::analyzer {
namespace {

using trace::Phase;

constexpr const char* kNotUnderstood =
    "ampscope trainer layer ranges whose text is not understood (kept as annotations)";

// The three examples of docs/trainer_ranges.md.
constexpr const char* kLinear =
    "fc1 linear forward in=[64,784] params=[[100,784],[100]] out=[64,100] dtype=float16 gemm=64,100,784";
constexpr const char* kRelu = "act1 relu forward in=[64,100] params=[] out=[64,100] dtype=float16";
constexpr const char* kConv =
    "conv1 conv2d forward in=[64,1,28,28] params=[[16,1,3,3],[16]] out=[64,16,28,28] dtype=float16 "
    "conv=64,1,28,28,16,3,3,1,1 gemm=50176,16,9";

TEST(TrainerRangeTextTest, ReadsTheDocumentedLinearExample) {
  const auto parsed = parseTrainerRangeText(kLinear);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->layer, "fc1");
  EXPECT_EQ(parsed->op, "linear");
  EXPECT_EQ(parsed->phase, Phase::kForward);
  EXPECT_EQ(parsed->input, (std::vector<std::int64_t>{64, 784}));
  EXPECT_EQ(parsed->params, (Shapes{{100, 784}, {100}}));
  EXPECT_EQ(parsed->output, (std::vector<std::int64_t>{64, 100}));
  EXPECT_EQ(parsed->dtype, "float16");
  ASSERT_TRUE(parsed->gemm.has_value());
  EXPECT_EQ(*parsed->gemm, (std::array<std::int64_t, 3>{64, 100, 784}));
  EXPECT_FALSE(parsed->conv.has_value());
  EXPECT_EQ(parsed->shapesJson(), "[[64,784],[100,784],[100]]");
  EXPECT_EQ(parsed->dtypesJson(), "[\"float16\",\"float16\",\"float16\"]");
}

TEST(TrainerRangeTextTest, ShapesGiveTheGemmTheTextStates) {
  // The work model computes M, N, K from the shapes and arguments as for aten::linear and
  // aten::conv2d; they must agree with the trainer's own gemm= field.
  for (const char* text : {kLinear, kConv}) {
    const auto parsed = parseTrainerRangeText(text);
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    const auto shapes = parseShapes(parsed->shapesJson());
    ASSERT_TRUE(shapes.has_value()) << text;
    const trace::RangeArguments arguments = import::readRangeArguments(parsed->argumentsJson());
    OpCall call;
    call.op = parsed->op;
    call.shapes = &*shapes;
    call.arguments = &arguments;
    const auto dims = opWork(call).gemm;
    ASSERT_TRUE(dims.has_value()) << text;
    EXPECT_EQ(dims->m, (*parsed->gemm)[0]) << text;
    EXPECT_EQ(dims->n, (*parsed->gemm)[1]) << text;
    EXPECT_EQ(dims->k, (*parsed->gemm)[2]) << text;
    EXPECT_TRUE(isTensorCoreEligibleOp(parsed->op)) << text;
  }
}

TEST(TrainerRangeTextTest, ReadsALayerWithoutParametersAndAConvolutionsGeometry) {
  const auto relu = parseTrainerRangeText(kRelu);
  ASSERT_TRUE(relu.ok()) << relu.error().message;
  EXPECT_TRUE(relu->params.empty());
  EXPECT_EQ(relu->shapesJson(), "[[64,100]]");
  EXPECT_EQ(relu->dtypesJson(), "[\"float16\"]");
  EXPECT_FALSE(isTensorCoreEligibleOp(relu->op));

  const auto conv = parseTrainerRangeText(kConv);
  ASSERT_TRUE(conv.ok()) << conv.error().message;
  ASSERT_TRUE(conv->conv.has_value());
  EXPECT_EQ(*conv->conv, (std::array<std::int64_t, 9>{64, 1, 28, 28, 16, 3, 3, 1, 1}));
  EXPECT_EQ(conv->shapesJson(), "[[64,1,28,28],[16,1,3,3],[16]]");
}

TEST(TrainerRangeTextTest, ConvolutionArgumentsAreThoseOfAnAtenConv2dCall) {
  const auto conv = parseTrainerRangeText(kConv);
  ASSERT_TRUE(conv.ok()) << conv.error().message;
  EXPECT_EQ(conv->argumentsJson(), R"(["","","","[1, 1]","[1, 1]","[1, 1]","1"])");
  // Stride and padding come from their own fields of conv=, not from the kernel size.
  const auto strided = parseTrainerRangeText(
      "conv2 conv2d backward in=[32,16,28,28] params=[[32,16,5,5],[32]] out=[32,32,15,15] dtype=bfloat16 "
      "conv=32,16,28,28,32,5,5,2,3 gemm=7200,32,400");
  ASSERT_TRUE(strided.ok()) << strided.error().message;
  EXPECT_EQ(strided->argumentsJson(), R"(["","","","[2, 2]","[3, 3]","[1, 1]","1"])");
  // Other ops take no argument beyond their tensors.
  const auto linear = parseTrainerRangeText(kLinear);
  ASSERT_TRUE(linear.ok()) << linear.error().message;
  EXPECT_EQ(linear->argumentsJson(), "");
}

TEST(TrainerRangeTextTest, ReadsTheBackwardPassAndSkipsFieldsALaterTrainerMayAdd) {
  const auto parsed = parseTrainerRangeText(
      "fc2 linear backward in=[64,100] params=[[10,100],[10]] out=[64,10] dtype=bfloat16 gemm=64,10,100 "
      "groups=1");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->phase, Phase::kBackward);
  EXPECT_EQ(parsed->dtype, "bfloat16");
}

TEST(TrainerRangeTextTest, MalformedTextsGiveAnErrorNamingTheProblem) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "LAYER OP PASS"},
      {"fc1 linear", "LAYER OP PASS"},
      {"fc1 linear sideways in=[64,784] params=[] out=[64,100] dtype=float16", "neither forward nor backward"},
      {"fc1 linear forward params=[] out=[64,100] dtype=float16", "no in="},
      {"fc1 linear forward in=[64,784] out=[64,100] dtype=float16", "no params="},
      {"fc1 linear forward in=[64,784] params=[] dtype=float16", "no out="},
      {"fc1 linear forward in=[64,784] params=[] out=[64,100]", "no dtype="},
      {"fc1 linear forward in=[64,784 params=[] out=[64,100] dtype=float16", "in value"},
      {"fc1 linear forward in=[64,-1] params=[] out=[64,100] dtype=float16", "in value"},
      {"fc1 linear forward in=[64,784] params=[[100,784],] out=[64,100] dtype=float16", "params value"},
      {"fc1 linear forward in=[64,784] params=[[100,784]]] out=[64,100] dtype=float16", "params value"},
      {"fc1 linear forward in=[64,784] params=[] out=[64,100] dtype=float16 gemm=64,100", "gemm value"},
      {"fc1 linear forward in=[64,784] params=[] out=[64,100] dtype=float16 conv=1,2,3", "conv value"},
      {"fc1 linear forward in=[64,784] in=[1] params=[] out=[64,100] dtype=float16", "given twice"},
      {"fc1 linear forward in=[64,784] params=[] out=[64,100] dtype=", "dtype value"},
      {"fc1 linear forward in=[64,784] stray params=[] out=[64,100] dtype=float16", "not key=value"},
      {"fc1 lin\"ear forward in=[64,784] params=[] out=[64,100] dtype=float16", "not a word"},
  };
  for (const auto& [text, expected] : cases) {
    const auto parsed = parseTrainerRangeText(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_NE(parsed.error().message.find(expected), std::string::npos) << text << ": " << parsed.error().message;
  }
}

TEST(TrainerRangeTextTest, TheTrainersPhaseRangesAreNotLayerRanges) {
  for (const char* text : {"step 0", "step 1234", "data", "forward", "backward", "loss_scale", "optimizer",
                           "evaluate", "batch 7"}) {
    EXPECT_TRUE(isTrainerPhaseRangeText(text)) << text;
  }
  for (const char* text : {"step", "step x", "batch ", kLinear}) EXPECT_FALSE(isTrainerPhaseRangeText(text)) << text;
}

class ReadTrainerRangesTest : public ::testing::Test {
 protected:
  trace::Range& add(const char* text, const char* domain, std::int64_t start = 0) {
    trace::Range r;
    r.start_ns = start;
    r.end_ns = start + 100;
    r.name = trace_.strings.intern(text);
    r.domain = trace_.strings.intern(domain);
    r.kind = trace::RangeKind::kAnnotation;
    r.thread = trace_.threadIndex(1, 1);
    trace_.ranges.push_back(r);
    return trace_.ranges.back();
  }
  const trace::Range& at(std::size_t i) const { return trace_.ranges[i]; }

  trace::Trace trace_;
};

TEST_F(ReadTrainerRangesTest, LayerRangesOfTheTrainersDomainBecomeOperatorsWithTheirFields) {
  add(kLinear, "ampscope");
  add("step 0", "ampscope", 1000);
  import::normaliseRanges(trace_);
  EXPECT_EQ(at(0).kind, trace::RangeKind::kOperator);
  EXPECT_EQ(trace_.str(at(0).layer), "fc1");
  EXPECT_EQ(trace_.str(at(0).op), "linear");
  EXPECT_EQ(at(0).phase, Phase::kForward);
  EXPECT_EQ(trace_.str(at(0).shapes), "[[64,784],[100,784],[100]]");
  EXPECT_EQ(trace_.str(at(0).dtypes), "[\"float16\",\"float16\",\"float16\"]");
  EXPECT_EQ(trace_.str(at(0).name), kLinear);  // the text stays as recorded
  EXPECT_EQ(operatorLabel(trace_, at(0)), "fc1 linear forward");
  EXPECT_EQ(opName(trace_, at(0)), "linear");
  EXPECT_EQ(at(0).text_form, trace::RangeTextForm::kTrainerLayerOp);
  EXPECT_EQ(at(1).kind, trace::RangeKind::kAnnotation);
  EXPECT_EQ(operatorLabel(trace_, at(1)), "step 0");
  EXPECT_TRUE(trace_.import_stats.not_understood.empty());
}

TEST_F(ReadTrainerRangesTest, ConvolutionRangesCarryTheirArgumentsAsAnAtenConv2dCall) {
  add(kConv, "ampscope");
  add(kLinear, "ampscope", 200);
  import::normaliseRanges(trace_);
  EXPECT_EQ(trace_.str(at(0).op), "conv2d");
  EXPECT_EQ(trace_.str(at(0).arguments), R"(["","","","[1, 1]","[1, 1]","[1, 1]","1"])");
  EXPECT_EQ(at(1).arguments, trace::StringTable::kEmpty);
}

TEST_F(ReadTrainerRangesTest, MalformedTextStaysAPlainAnnotationAndIsCounted) {
  add("fc1 linear forward in=[64,784", "ampscope");
  add("something else entirely", "ampscope", 200);
  add("fc1 linear forward in=[64,784] params=[] out=[64,100]", "", 400);  // no domain, layer form
  import::normaliseRanges(trace_);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(at(i).kind, trace::RangeKind::kAnnotation) << i;
    EXPECT_EQ(at(i).layer, trace::StringTable::kEmpty) << i;
  }
  EXPECT_EQ(trace_.import_stats.not_understood.at(kNotUnderstood), 3u);
}

TEST_F(ReadTrainerRangesTest, TracesWithoutDomainsAreReadByTheTextsForm) {
  // Nsight Systems exports before domains were recorded, and other tools' plain NVTX ranges.
  add(kLinear, "");
  add("train_step", "", 200);
  add(kLinear, "SomeOtherLibrary", 400);  // another domain's text is its own business
  import::normaliseRanges(trace_);
  EXPECT_EQ(trace_.str(at(0).layer), "fc1");
  EXPECT_EQ(at(1).kind, trace::RangeKind::kAnnotation);
  EXPECT_EQ(at(2).layer, trace::StringTable::kEmpty);
  EXPECT_TRUE(trace_.import_stats.not_understood.empty());
}

TEST_F(ReadTrainerRangesTest, ReadingTwiceGivesTheSameTraceAndCount) {
  add(kLinear, "ampscope");
  add("fc1 linear forward in=[64,784", "ampscope", 200);
  import::normaliseRanges(trace_);
  const trace::Trace once = trace_;
  import::normaliseRanges(trace_);
  EXPECT_EQ(trace_.ranges, once.ranges);
  EXPECT_EQ(trace_.import_stats.not_understood.at(kNotUnderstood), 1u);
}

TEST_F(ReadTrainerRangesTest, TheCorrelatorAttributesHostOpsToTheLayerRange) {
  const trace::Index main = trace_.threadIndex(1, 1);
  add("forward", "ampscope", 0).end_ns = 1000;
  add(kLinear, "ampscope", 100).end_ns = 500;
  trace::LaunchCall launch;
  launch.start_ns = launch.end_ns = 150;  // the collector's zero-length launch at the op's start
  launch.correlation_id = 1;
  launch.thread = main;
  trace_.launches.push_back(launch);
  trace::Kernel kernel;
  kernel.start_ns = 150;
  kernel.end_ns = 450;
  kernel.correlation_id = 1;
  trace_.kernels.push_back(kernel);
  trace_.sortByTime();
  import::normaliseRanges(trace_);
  const CorrelationCounts counts = correlate(trace_);
  EXPECT_EQ(counts.kernels_attributed_to_op, 1u);
  const trace::Range& op = trace_.ranges[static_cast<std::size_t>(trace_.kernels[0].op_range)];
  EXPECT_EQ(trace_.str(op.layer), "fc1");
  EXPECT_EQ(op.phase, Phase::kForward);
}

}  // namespace
}  // namespace ampscope::analyzer
