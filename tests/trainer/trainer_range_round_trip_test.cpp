// The trainer writes its NVTX range texts (trainer/instrumentation) and the analyzer reads them
// (analyzer/normalise/trainer_range_text.cpp, analyzer/normalise/phase_rules.cpp, through the range normaliser): the
// texts the trainer's own functions write, for the layers a real forward and backward pass
// meets, must read back as the layer, op, pass, shapes, dtype and GEMM/convolution figures the
// trainer meant.

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/normalise/phase_rules.h"
#include "analyzer/normalise/range_normaliser.h"
#include "analyzer/normalise/trainer_range_text.h"
#include "trace/trace_model.h"
#include "trainer/amp/mixed_precision.h"
#include "trainer/data/batch_pipeline.h"
#include "trainer/instrumentation/trainer_ranges.h"
#include "trainer/layers/layers.h"
#include "trainer/model/model.h"

namespace ampscope::trainer {
namespace {

using analyzer::TrainerRangeText;

// One layer range as the instrumentation would register it, with what the trainer knew.
struct WrittenRange {
  Layer* layer;
  Pass pass;
  Shape input_shape;
  DType compute;
  std::string text;
};

// Takes, for each layer a pass begins, the text LayerRanges registers for it.
class RecordingObserver final : public LayerObserver {
 public:
  RecordingObserver(const AutocastPolicy& policy, DType autocast)
      : policy_(policy), autocast_(autocast), ranges_(policy, autocast) {}

  void beginLayer(Layer& layer, Pass pass, const Shape& input_shape, DType input_dtype) override {
    written_.push_back({&layer, pass, input_shape, policy_.computeType(layer.op(), autocast_, input_dtype),
                        ranges_.text(layer, pass, input_shape, input_dtype)});
  }
  void endLayer(Layer& /*layer*/, Pass /*pass*/) override {}

  const std::vector<WrittenRange>& written() const { return written_; }

 private:
  const AutocastPolicy& policy_;
  DType autocast_;
  LayerRanges ranges_;
  std::vector<WrittenRange> written_;
};

std::vector<Shape> parameterShapes(Layer& layer) {
  std::vector<Shape> shapes;
  for (const Parameter* p : layer.parameters()) shapes.push_back(p->value.shape());
  return shapes;
}

std::string json(const Shape& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

// What the analyzer must read back from one written text.
void expectReadsBack(const WrittenRange& w) {
  SCOPED_TRACE(w.text);
  const auto parsed = analyzer::parseTrainerRangeText(w.text);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const TrainerRangeText& r = *parsed;
  Layer& layer = *w.layer;
  EXPECT_EQ(r.layer, layer.name());
  EXPECT_EQ(r.op, layer.op());
  EXPECT_EQ(r.phase, w.pass == Pass::kForward ? trace::Phase::kForward : trace::Phase::kBackward);
  EXPECT_EQ(r.input, w.input_shape);
  EXPECT_EQ(r.params, parameterShapes(layer));
  const Shape output = layer.outputShape(w.input_shape);
  EXPECT_EQ(r.output, output);
  EXPECT_EQ(r.dtype, dtypeName(w.compute));
  if (layer.op() == "linear") {
    // M, N, K: batch, out features, in features.
    const Shape& weight = r.params.at(0);
    ASSERT_TRUE(r.gemm.has_value());
    EXPECT_EQ(*r.gemm, (std::array<std::int64_t, 3>{w.input_shape.at(0), weight.at(0), weight.at(1)}));
    EXPECT_FALSE(r.conv.has_value());
  } else if (layer.op() == "conv2d") {
    const Shape& weight = r.params.at(0);  // K, C, R, S
    ASSERT_TRUE(r.conv.has_value());
    const auto& c = *r.conv;
    EXPECT_EQ(c[0], w.input_shape.at(0));  // N
    EXPECT_EQ(c[1], w.input_shape.at(1));  // C
    EXPECT_EQ(c[2], w.input_shape.at(2));  // H
    EXPECT_EQ(c[3], w.input_shape.at(3));  // W
    EXPECT_EQ(c[4], weight.at(0));         // K
    EXPECT_EQ(c[5], weight.at(2));         // R
    EXPECT_EQ(c[6], weight.at(3));         // S
    const std::int64_t stride = c[7];
    const std::int64_t pad = c[8];
    ASSERT_GT(stride, 0);
    EXPECT_EQ((c[2] + 2 * pad - c[5]) / stride + 1, output.at(2)) << "stride and padding give the output height";
    EXPECT_EQ((c[3] + 2 * pad - c[6]) / stride + 1, output.at(3)) << "and width";
    // M, N, K: N*P*Q, K, C*R*S.
    ASSERT_TRUE(r.gemm.has_value());
    EXPECT_EQ(*r.gemm, (std::array<std::int64_t, 3>{output.at(0) * output.at(2) * output.at(3), weight.at(0),
                                                    weight.at(1) * weight.at(2) * weight.at(3)}));
  } else {
    EXPECT_FALSE(r.gemm.has_value());
    EXPECT_FALSE(r.conv.has_value());
  }
}

// The same texts as ranges of a trace, in the trainer's NVTX domain, read by the normaliser as
// every importer has them read.
void expectNormalisedAsWritten(const std::vector<WrittenRange>& written) {
  trace::Trace t;
  const trace::StringId domain = t.strings.intern(analyzer::kTrainerDomain);
  for (const WrittenRange& w : written) {
    trace::Range& range = t.ranges.emplace_back();
    range.kind = trace::RangeKind::kAnnotation;
    range.name = t.strings.intern(w.text);
    range.domain = domain;
  }
  analyzer::import::normaliseRanges(t);
  EXPECT_TRUE(t.import_stats.not_understood.empty());
  ASSERT_EQ(t.ranges.size(), written.size());
  for (std::size_t i = 0; i < written.size(); ++i) {
    const WrittenRange& w = written[i];
    const trace::Range& range = t.ranges[i];
    SCOPED_TRACE(w.text);
    EXPECT_EQ(range.kind, trace::RangeKind::kOperator);
    EXPECT_EQ(range.text_form, trace::RangeTextForm::kTrainerLayerOp);
    EXPECT_EQ(t.str(range.layer), w.layer->name());
    EXPECT_EQ(t.str(range.op), w.layer->op());
    EXPECT_EQ(range.phase, w.pass == Pass::kForward ? trace::Phase::kForward : trace::Phase::kBackward);
    std::string shapes = "[" + json(w.input_shape);
    std::string dtypes = std::string("[\"") + dtypeName(w.compute) + "\"";
    for (const Shape& param : parameterShapes(*w.layer)) {
      shapes += "," + json(param);
      dtypes += std::string(",\"") + dtypeName(w.compute) + "\"";
    }
    EXPECT_EQ(t.str(range.shapes), shapes + "]");
    EXPECT_EQ(t.str(range.dtypes), dtypes + "]");
    // A convolution's stride and padding as the arguments of an aten::conv2d call; no others.
    const auto parsed = analyzer::parseTrainerRangeText(w.text);
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(t.str(range.arguments), parsed->argumentsJson());
    EXPECT_EQ(t.str(range.arguments).empty(), w.layer->op() != "conv2d");
    // A trace that records no domain (older Nsight exports) still tells it by its shape.
    EXPECT_TRUE(analyzer::isTrainerLayerOpText("", w.text));
  }
}

struct RoundTripCase {
  const char* model;
  PrecisionMode precision;
};

class TrainerRangeRoundTripTest : public testing::TestWithParam<RoundTripCase> {};

TEST_P(TrainerRangeRoundTripTest, EveryLayerRangeOfAForwardAndBackwardPassReadsBackAsWritten) {
  const RoundTripCase& c = GetParam();
  const PrecisionPlan plan = planFor(c.precision);
  const std::unique_ptr<Backend> backend = makeCpuBackend();
  ModelSpec spec;
  spec.kind = c.model;
  spec.hidden = {100, 36};  // sizes off the multiple of 8 on purpose, as the docs' example
  spec.channels = {6, 12};
  spec.fc = 20;
  spec.layer_norm = true;  // mlp: a layer norm after each hidden layer
  auto model = buildModel(*backend, spec, plan.parameters);
  ASSERT_TRUE(model.ok()) << model.error().message;
  (*model)->initialize(*backend, 7);

  const AutocastPolicy policy;
  RecordingObserver observer(policy, plan.autocast);
  LayerContext ctx{*backend, policy, plan.autocast, true};
  constexpr std::int64_t kBatch = 3;
  const Shape input_shape = {kBatch, spec.channels_in, spec.height, spec.width};
  Tensor x = backend->allocate(input_shape, plan.input);
  backend->upload(uniformValues(elementCount(input_shape), 1.0f, 11), x);
  const Tensor y = (*model)->forward(ctx, x, &observer);
  Tensor dy = backend->allocate(y.shape(), y.dtype());
  backend->upload(uniformValues(y.numel(), 1.0f, 12), dy);
  (*model)->backward(ctx, dy, &observer);

  const std::vector<WrittenRange>& written = observer.written();
  ASSERT_EQ(written.size(), 2 * (*model)->layers().size());
  for (const WrittenRange& w : written) expectReadsBack(w);
  expectNormalisedAsWritten(written);
}

INSTANTIATE_TEST_SUITE_P(Models, TrainerRangeRoundTripTest,
                         testing::Values(RoundTripCase{"mlp", PrecisionMode::kFp32},
                                         RoundTripCase{"mlp", PrecisionMode::kAmpFp16},
                                         RoundTripCase{"cnn", PrecisionMode::kAmpBf16},
                                         RoundTripCase{"cnn", PrecisionMode::kFp16Master}),
                         [](const testing::TestParamInfo<RoundTripCase>& param_info) {
                           std::string name = std::string(param_info.param.model) + "_" +
                                              precisionModeName(param_info.param.precision);
                           for (char& ch : name) {
                             if (ch == '-') ch = '_';
                           }
                           return name;
                         });

// The models the trainer builds convolve with stride 1 and padding 1; the text carries any.
TEST(TrainerConvolutionRangeRoundTripTest, AConvolutionsStrideAndPaddingReadBackAsItsArguments) {
  const std::unique_ptr<Backend> backend = makeCpuBackend();
  Conv2d conv(*backend, "stem", Conv2dShape{.in_channels = 3, .out_channels = 64, .kernel = 7, .stride = 2, .pad = 3},
              DType::kFp32);
  for (Pass pass : {Pass::kForward, Pass::kBackward}) {
    const WrittenRange w{&conv, pass, {8, 3, 224, 224}, DType::kFp16,
                         layerRangeText(conv, pass, {8, 3, 224, 224}, DType::kFp16)};
    expectReadsBack(w);
    const auto parsed = analyzer::parseTrainerRangeText(w.text);
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(parsed->argumentsJson(), R"(["","","","[2, 2]","[3, 3]","[1, 1]","1"])");
  }
}

// The loop's own ranges are no layer ops: they give the step, its number, and the phases.
TEST(TrainerRunRangeRoundTripTest, StepPhaseAndBatchRangesReadBackAsTheStepAndItsPhases) {
  const auto phaseOf = [](RunPhase phase) {
    switch (phase) {
      case RunPhase::kData: return trace::Phase::kData;
      case RunPhase::kForward: return trace::Phase::kForward;
      case RunPhase::kBackward: return trace::Phase::kBackward;
      case RunPhase::kLossScale: return trace::Phase::kLossScale;
      case RunPhase::kOptimizer: return trace::Phase::kOptimizer;
      case RunPhase::kEvaluate: return trace::Phase::kUnknown;  // outside the steps
    }
    return trace::Phase::kUnknown;
  };
  struct Written {
    std::string text;
    trace::Phase phase;
    std::int64_t step;  // -1: not a step range
  };
  std::vector<Written> written;
  for (RunPhase phase : kRunPhases) written.push_back({runPhaseRangeText(phase), phaseOf(phase), -1});
  for (std::int64_t step : {0, 7, 123'456}) written.push_back({stepRangeText(step), trace::Phase::kStep, step});
  written.push_back({dataWorkRangeText(kBatchWork, 3), trace::Phase::kUnknown, -1});

  trace::Trace t;
  const trace::StringId domain = t.strings.intern(analyzer::kTrainerDomain);
  for (const Written& w : written) {
    SCOPED_TRACE(w.text);
    EXPECT_TRUE(analyzer::isTrainerPhaseRangeText(w.text));
    EXPECT_FALSE(analyzer::isTrainerLayerOpText(analyzer::kTrainerDomain, w.text));
    EXPECT_EQ(analyzer::stepNumberFromName(w.text), w.step);
    trace::Range& range = t.ranges.emplace_back();
    range.kind = trace::RangeKind::kAnnotation;
    range.name = t.strings.intern(w.text);
    range.domain = domain;
  }
  analyzer::import::normaliseRanges(t);
  EXPECT_TRUE(t.import_stats.not_understood.empty()) << "no phase range is read as a malformed layer range";
  for (std::size_t i = 0; i < written.size(); ++i) {
    SCOPED_TRACE(written[i].text);
    EXPECT_EQ(t.ranges[i].phase, written[i].phase);
    EXPECT_EQ(t.ranges[i].text_form, trace::RangeTextForm::kPlain);
    EXPECT_EQ(t.ranges[i].op, trace::StringTable::kEmpty);
  }
}

}  // namespace
}  // namespace ampscope::trainer
