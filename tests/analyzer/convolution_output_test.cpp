// Tests of analyzer/model/convolution_output.h: a convolution's output shape from its backward op's
// grad_output or from the op that consumed it, on small traces and on the V100 ResNet-50 trace.

#include "analyzer/model/convolution_output.h"

#include <gtest/gtest.h>

#include "../test_support.h"
#include "analyzer/correlate/correlator.h"
#include "analyzer/import/trace_importer.h"
#include "tests/analyzer/imported_trace.h"

namespace ampscope::analyzer {
namespace {

using trace::Index;
using Dims = std::vector<std::int64_t>;

class ConvolutionOutputTest : public ::testing::Test {
 protected:
  Index addOp(const char* name, std::int64_t start, std::int64_t end, Index thread, const char* shapes = "") {
    trace::Range range;
    range.name = trace_.strings.intern(name);
    range.start_ns = start;
    range.end_ns = end;
    range.thread = thread;
    if (*shapes != '\0') range.shapes = trace_.strings.intern(shapes);
    trace_.ranges.push_back(range);
    return static_cast<Index>(trace_.ranges.size() - 1);
  }
  // The forward call as PyTorch records it: aten::conv2d > convolution > _convolution > cudnn_convolution,
  // all with the same shapes and sequence number.
  void addForwardConv(std::int64_t start, std::int64_t sequence, const char* shapes) {
    const Index outer = addOp("aten::conv2d", start, start + 100, main_, shapes);
    addOp("aten::convolution", start + 10, start + 90, main_, shapes);
    addOp("aten::_convolution", start + 20, start + 80, main_, shapes);
    addOp("aten::cudnn_convolution", start + 30, start + 70, main_, shapes);
    for (Index i = outer; i < outer + 4; ++i) trace_.ranges[static_cast<std::size_t>(i)].sequence_number = sequence;
  }
  Index addBackwardNode(const char* name, std::int64_t start, std::int64_t sequence, const char* shapes) {
    const Index node = addOp(name, start, start + 100, autograd_, shapes);
    trace_.ranges[static_cast<std::size_t>(node)].sequence_number = sequence;
    trace_.ranges[static_cast<std::size_t>(node)].fwd_thread_tid = 1;
    return node;
  }
  Index find(const char* name, int nth = 0) const {
    for (std::size_t i = 0; i < trace_.ranges.size(); ++i) {
      if (trace_.str(trace_.ranges[i].name) == name && nth-- == 0) return static_cast<Index>(i);
    }
    return trace::kNone;
  }
  void correlate() {
    trace_.sortByTime();
    test::correlateAsImported(trace_);
  }

  trace::Trace trace_;
  Index main_ = trace_.threadIndex(1, 1);
  Index autograd_ = trace_.threadIndex(1, 2);
};

constexpr const char* kStem = "[[32,3,224,224],[64,3,7,7],[],[],[],[],[]]";

TEST_F(ConvolutionOutputTest, BackwardGradOutputGivesTheOutputOfEveryOpOfTheCall) {
  addForwardConv(100, 890, kStem);
  addOp("aten::batch_norm", 300, 400, main_, "[[32,64,112,112],[64],[64],[64],[64],[],[],[],[]]");
  addBackwardNode("CudnnConvolutionBackward", 5000, 890, "[[32,64,112,112]]");
  addOp("aten::cudnn_convolution_backward", 5010, 5090, autograd_, "[[32,3,224,224],[32,64,112,112],[64,3,7,7]]");
  correlate();
  for (const char* op : {"aten::conv2d", "aten::convolution", "aten::_convolution", "aten::cudnn_convolution"}) {
    const auto out = inferConvolutionOutput(trace_, find(op));
    ASSERT_TRUE(out) << op;
    EXPECT_EQ(out->shape, (Dims{32, 64, 112, 112})) << op;
    EXPECT_EQ(out->basis, WorkBasis::kBackwardGradient) << op;
  }
}

TEST_F(ConvolutionOutputTest, GradOutputMayBeOnTheAtenOpInsideTheAutogradNode) {
  addForwardConv(100, 7, "[[8,16,32,32],[32,16,3,3],[]]");
  addBackwardNode("autograd::engine::evaluate_function: ConvolutionBackward0", 5000, 7, "");
  addBackwardNode("ConvolutionBackward0", 5005, 7, "");
  addOp("aten::convolution_backward", 5010, 5090, autograd_, "[[8,32,16,16],[8,16,32,32],[32,16,3,3],[]]");
  correlate();
  const auto out = inferConvolutionOutput(trace_, find("aten::cudnn_convolution"));
  ASSERT_TRUE(out);
  EXPECT_EQ(out->shape, (Dims{8, 32, 16, 16}));
  EXPECT_EQ(out->basis, WorkBasis::kBackwardGradient);
}

TEST_F(ConvolutionOutputTest, TheSequenceNumberFindsTheBackwardWhereTheLinkWentToAnEarlierOp) {
  // PyTorch 1.8 records the counter's current value on ops that create no autograd node: the
  // data loader's aten::to before the stem carries the stem's number, and the link goes to it.
  const Index to = addOp("aten::to", 50, 60, main_, "[[3,224,224],[],[],[],[]]");
  trace_.ranges[static_cast<std::size_t>(to)].sequence_number = 890;
  addForwardConv(100, 890, kStem);
  addBackwardNode("CudnnConvolutionBackward", 5000, 890, "[[32,64,112,112]]");
  correlate();
  trace_.ranges[static_cast<std::size_t>(find("CudnnConvolutionBackward"))].forward_range = to;
  const auto out = inferConvolutionOutput(trace_, find("aten::convolution"));
  ASSERT_TRUE(out);
  EXPECT_EQ(out->shape, (Dims{32, 64, 112, 112}));
  EXPECT_EQ(out->basis, WorkBasis::kBackwardGradient);
  const auto indexed = ConvolutionOutputInference(trace_).infer(find("aten::convolution"));
  ASSERT_TRUE(indexed);
  EXPECT_EQ(indexed->basis, WorkBasis::kBackwardGradient);
}

TEST_F(ConvolutionOutputTest, WithoutBackwardTheConsumersInputOnTheSameThreadIsTaken) {
  addForwardConv(100, -1, kStem);
  addOp("aten::empty", 210, 220, main_, "[[],[],[],[],[],[]]");
  addOp("aten::relu", 230, 240, autograd_, "[[32,64,112,112]]");   // another thread
  addOp("aten::view", 250, 260, main_, "[[32,64,300,300],[]]");   // spatially implausible
  addOp("aten::batch_norm", 300, 400, main_, "[[32,64,112,112],[64],[64],[64],[64],[],[],[],[]]");
  correlate();
  const auto out = inferConvolutionOutput(trace_, find("aten::cudnn_convolution"));
  ASSERT_TRUE(out);
  EXPECT_EQ(out->shape, (Dims{32, 64, 112, 112}));
  EXPECT_EQ(out->basis, WorkBasis::kConsumerInput);
  // The class that indexes the links once says the same.
  const ConvolutionOutputInference inference(trace_);
  const auto indexed = inference.infer(find("aten::conv2d"));
  ASSERT_TRUE(indexed);
  EXPECT_EQ(indexed->shape, out->shape);
}

TEST_F(ConvolutionOutputTest, TheSearchStopsAtTheNextConvolution) {
  addForwardConv(100, -1, kStem);
  addForwardConv(300, -1, "[[32,64,112,112],[64,64,3,3],[]]");
  correlate();
  EXPECT_FALSE(inferConvolutionOutput(trace_, find("aten::conv2d", 0)));
}

TEST_F(ConvolutionOutputTest, AGradientOfOtherChannelsIsNotTheOutput) {
  addForwardConv(100, 3, kStem);
  addBackwardNode("CudnnConvolutionBackward", 5000, 3, "[[32,128,112,112]]");
  correlate();
  EXPECT_FALSE(inferConvolutionOutput(trace_, find("aten::conv2d")));
  EXPECT_FALSE(inferConvolutionOutput(trace_, trace::kNone));
}

// ---- The V100 ResNet-50 trace (PyTorch 1.8: shapes without arguments) --------------------------

struct ResNetConv {
  std::int64_t filter;
  std::int64_t stride;
};

// torchvision's ResNet-50 in forward order: the 7x7 stem, then bottlenecks (1x1, 3x3 carrying the
// stage's stride, 1x1) with a 1x1 downsample after the first block's third conv.
std::vector<ResNetConv> resnet50Convolutions() {
  std::vector<ResNetConv> convs{{7, 2}};
  const std::pair<int, std::int64_t> stages[] = {{3, 1}, {4, 2}, {6, 2}, {3, 2}};
  for (const auto& [blocks, stride] : stages) {
    for (int b = 0; b < blocks; ++b) {
      const std::int64_t s = b == 0 ? stride : 1;
      convs.push_back({1, 1});
      convs.push_back({3, s});
      convs.push_back({1, 1});
      if (b == 0) convs.push_back({1, s});
    }
  }
  return convs;
}

struct ResNetCheck {
  std::size_t convolutions = 0;
  std::size_t inferred = 0;
  std::size_t mismatched = 0;
};

// Every forward convolution op (all four nested ops of each call) against the arithmetic of
// ResNet-50's strides and paddings, padding (filter - 1) / 2.
template <typename Infer>
ResNetCheck checkResNet(const trace::Trace& trace, Infer infer) {
  const std::vector<ResNetConv> architecture = resnet50Convolutions();
  ResNetCheck check;
  std::size_t call = 0;
  for (std::size_t i = 0; i < trace.ranges.size(); ++i) {
    const trace::Range& range = trace.ranges[i];
    if (!isForwardConvolutionOp(trace.str(range.op)) || range.phase == trace::Phase::kBackward) continue;
    const bool outermost = range.parent == trace::kNone ||
                           !isForwardConvolutionOp(trace.str(trace.ranges[static_cast<std::size_t>(range.parent)].op));
    if (outermost) ++call;
    const ResNetConv& expected = architecture[(call - 1) % architecture.size()];
    const Shapes shapes = parseShapes(trace.str(range.shapes)).value();
    const Dims& input = shapes[0];
    const Dims& weight = shapes[1];
    EXPECT_EQ(weight[2], expected.filter) << "call " << call << ": the architecture table is out of step";
    ++check.convolutions;
    const auto out = infer(static_cast<Index>(i));
    if (!out) continue;
    ++check.inferred;
    const std::int64_t padding = (expected.filter - 1) / 2;
    const std::int64_t size = (input[2] + 2 * padding - expected.filter) / expected.stride + 1;
    if (out->shape != Dims{input[0], weight[0], size, size}) ++check.mismatched;
  }
  EXPECT_EQ(call % architecture.size(), 0u) << "whole forward passes";
  return check;
}

trace::Trace importWorkers0(const std::string& path) {
  auto result = import::importTrace(path);
  EXPECT_TRUE(result.ok());
  trace::Trace trace = result.ok() ? std::move(result).value() : trace::Trace{};
  correlate(trace);
  return trace;
}

constexpr const char* kWorkers0 = "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz";

TEST(ConvolutionOutputSharedTraceTest, ResNet50OutputsMatchTheStrideAndPaddingArithmetic) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, kWorkers0);
  const trace::Trace trace = importWorkers0(path);
  const ConvolutionOutputInference inference(trace);
  const ResNetCheck check = checkResNet(trace, [&](Index i) { return inference.infer(i); });
  EXPECT_EQ(check.convolutions, 318u * 4);  // six forward passes of 53 calls, four ops each
  EXPECT_EQ(check.inferred, check.convolutions);
  EXPECT_EQ(check.mismatched, 0u);

  // The stem: [32,3,224,224] * [64,3,7,7] -> [32,64,112,112], the implicit GEMM's M = 401,408.
  for (std::size_t i = 0; i < trace.ranges.size(); ++i) {
    if (trace.str(trace.ranges[i].op) != "aten::conv2d") continue;
    const auto out = inference.infer(static_cast<Index>(i));
    ASSERT_TRUE(out);
    EXPECT_EQ(out->shape, (Dims{32, 64, 112, 112}));
    EXPECT_EQ(out->basis, WorkBasis::kBackwardGradient);
    const Shapes shapes = parseShapes(trace.str(trace.ranges[i].shapes)).value();
    OpCall call;
    call.op = "aten::conv2d";
    call.shapes = &shapes;
    call.output_shape = out->shape;
    call.output_basis = out->basis;
    const OpWork work = opWork(call);
    ASSERT_TRUE(work.gemm);
    EXPECT_EQ(work.gemm->m, 401408);
    EXPECT_EQ(work.basis, WorkBasis::kBackwardGradient);
    break;
  }
}

TEST(ConvolutionOutputSharedTraceTest, ResNet50ConsumersAloneGiveTheSameOutputs) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, kWorkers0);
  trace::Trace trace = importWorkers0(path);
  for (trace::Range& range : trace.ranges) {
    range.forward_range = trace::kNone;
    range.sequence_number = -1;
  }
  std::size_t from_consumer = 0;
  const ResNetCheck check = checkResNet(trace, [&](Index i) {
    auto out = inferConvolutionOutput(trace, i);
    from_consumer += out && out->basis == WorkBasis::kConsumerInput;
    return out;
  });
  // Every ResNet convolution feeds a batch norm next.
  EXPECT_EQ(check.inferred, check.convolutions);
  EXPECT_EQ(from_consumer, check.inferred);
  EXPECT_EQ(check.mismatched, 0u);
}

}  // namespace
}  // namespace ampscope::analyzer
