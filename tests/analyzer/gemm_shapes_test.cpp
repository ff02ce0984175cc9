#include "analyzer/core/gemm_shapes.h"

#include <gtest/gtest.h>

#include "../test_support.h"
#include "analyzer/correlate/eligible_ops.h"
#include "analyzer/run_analysis.h"
#include "analyzer/tables/shape_checks.h"

namespace ampscope::analyzer {
namespace {

GemmDims dimsOf(std::string_view op, std::string_view shapes) {
  const auto parsed = parseShapes(shapes);
  EXPECT_TRUE(parsed.has_value()) << shapes;
  const auto dims = gemmDims(op, *parsed);
  EXPECT_TRUE(dims.has_value()) << op << " " << shapes;
  return dims.value_or(GemmDims{});
}

TEST(GemmShapesTest, ParsesRecordedShapesWithScalarsAndEmptyLists) {
  const auto shapes = parseShapes("[[96], [1024, 512], [512, 96], [], []]");
  ASSERT_TRUE(shapes);
  ASSERT_EQ(shapes->size(), 5u);
  EXPECT_EQ((*shapes)[1], (std::vector<std::int64_t>{1024, 512}));
  EXPECT_TRUE((*shapes)[4].empty());
  EXPECT_EQ(parseShapes("[[2,3],\"x, y\",[4]]")->size(), 3u);
  EXPECT_FALSE(parseShapes("not shapes"));
  EXPECT_FALSE(parseShapes("[[1,2"));
}

TEST(GemmShapesTest, GemmDimensionsOfEachMatrixOp) {
  const GemmDims addmm = dimsOf("aten::addmm", "[[96],[1024,512],[512,96],[],[]]");
  EXPECT_EQ(addmm.m, 1024);
  EXPECT_EQ(addmm.n, 96);
  EXPECT_EQ(addmm.k, 512);
  const GemmDims linear = dimsOf("torch.nn.functional.linear", "[[35,20,200],[33278,200],[33278]]");
  EXPECT_EQ(linear.m, 700);
  EXPECT_EQ(linear.n, 33278);
  EXPECT_EQ(linear.k, 200);
  const GemmDims bmm = dimsOf("aten::bmm", "[[1024,647,96],[1024,96,30]]");
  EXPECT_EQ(bmm.batch, 1024);
  EXPECT_EQ(bmm.m, 647);
  EXPECT_EQ(bmm.n, 30);
  const GemmDims matmul = dimsOf("Tensor.matmul", "[[35,20,200],[200,33278]]");
  EXPECT_EQ(matmul.m, 700);
  EXPECT_EQ(matmul.batch, 1);
  const GemmDims conv = dimsOf("aten::cudnn_convolution", "[[32,256,14,14],[1024,256,1,1],[],[]]");
  EXPECT_TRUE(conv.convolution);
  EXPECT_EQ(conv.n, 1024);
  EXPECT_EQ(conv.k, 256);
  EXPECT_EQ(conv.m, 0);  // the output positions need the stride and padding: op_work.h
  EXPECT_EQ(conv.input_channels, 256);
  EXPECT_FALSE(gemmDims("aten::relu", {{4, 4}}));
}

TEST(GemmShapesTest, EligibilityCoversForwardAndBackwardMatrixOps) {
  for (const char* op : {"aten::mm", "aten::addmm", "aten::linear", "aten::conv2d", "aten::cudnn_convolution",
                         "torch.nn.functional.linear", "AddmmBackward0", "CudnnConvolutionBackward",
                         "aten::scaled_dot_product_attention"}) {
    EXPECT_TRUE(isTensorCoreEligibleOp(op)) << op;
  }
  for (const char* op : {"aten::relu", "aten::add", "torch.nn.functional.embedding", "aten::softmax"}) {
    EXPECT_FALSE(isTensorCoreEligibleOp(op)) << op;
  }
}

TEST(GemmShapesTest, MisalignedDimensionsComeWithTheirPaddedSize) {
  GemmDims vocabulary;
  vocabulary.m = 700;
  vocabulary.n = 33278;
  vocabulary.k = 200;
  const auto findings = misalignedDimensions(vocabulary, requiredMultiple(MathPrecision::kFp16));
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].dimension, "M");
  EXPECT_EQ(findings[0].padded, 704);
  EXPECT_EQ(findings[1].value, 33278);
  EXPECT_EQ(findings[1].padded, 33280);
  EXPECT_EQ(requiredMultiple(MathPrecision::kTf32), 4);
  EXPECT_EQ(requiredMultiple(MathPrecision::kFp8), 16);
  EXPECT_TRUE(misalignedDimensions(vocabulary, 2).empty());
}

std::optional<LeadingDims> leadingOf(std::string_view op, std::string_view shapes, std::string_view strides) {
  const auto parsed_shapes = parseShapes(shapes);
  const auto parsed_strides = parseShapes(strides);
  EXPECT_TRUE(parsed_shapes && parsed_strides);
  const auto dims = gemmDims(op, *parsed_shapes, &*parsed_strides);
  EXPECT_TRUE(dims.has_value());
  return dims ? dims->leading : std::nullopt;
}

TEST(GemmShapesTest, StridesTellWhichDimensionsAreLeadingOnes) {
  using L = LeadingDims;
  // Row-major A (M x K) and B (K x N): rows of K and of N, and the result's rows of N.
  EXPECT_EQ(leadingOf("aten::mm", "[[4096,1024],[1024,50257]]", "[[1024,1],[50257,1]]"), (L{false, true, true}));
  // The weight gradient of a linear layer: A is the output gradient transposed (N x M,
  // column-major), so the tokens M of the forward pass are its K here and lead nowhere.
  EXPECT_EQ(leadingOf("aten::mm", "[[1024,4095],[4095,512]]", "[[1,1024],[512,1]]"), (L{true, true, false}));
  // A transposed B (x @ W.t() with W [N, K] row-major): B is column-major, so K leads.
  EXPECT_EQ(leadingOf("aten::mm", "[[64,784],[784,256]]", "[[784,1],[1,784]]"), (L{false, true, true}));
  EXPECT_EQ(leadingOf("aten::addmm", "[[256],[64,784],[784,256]]", "[[1],[784,1],[1,784]]"), (L{false, true, true}));
  // linear's weight is given as [N, K]: row-major, it is a column-major B.
  EXPECT_EQ(leadingOf("aten::linear", "[[8,512,1024],[50257,1024],[]]", "[[524288,1024,1],[1024,1],[]]"),
            (L{false, true, true}));
  // A column-major weight [N, K] (a transposed view) is a row-major B: N leads, K does not.
  EXPECT_EQ(leadingOf("aten::linear", "[[8,1024],[512,1024],[]]", "[[1024,1],[1,512],[]]"), (L{false, true, true}));
  EXPECT_EQ(leadingOf("aten::linear", "[[1024,8],[512,1024],[]]", "[[1,1024],[1,512],[]]"), (L{true, true, false}));
  // Batched: the last two axes.
  EXPECT_EQ(leadingOf("aten::bmm", "[[16,3137,64],[16,64,3137]]", "[[200768,64,1],[200768,1,64]]"), (L{false, true, true}));
  EXPECT_EQ(leadingOf("aten::bmm", "[[16,3137,64],[16,64,3137]]", "[[200768,1,3137],[200768,3137,1]]"), (L{true, true, false}));
  // Strides not recorded, or not for a tensor of the recorded rank: unknown.
  const auto shapes = parseShapes("[[4096,1024],[1024,50257]]");
  EXPECT_FALSE(gemmDims("aten::mm", *shapes)->leading);
  const auto short_strides = parseShapes("[[1],[50257,1]]");
  EXPECT_FALSE(gemmDims("aten::mm", *shapes, &*short_strides)->leading);
}

TEST(GemmShapesTest, OnlyLeadingDimensionsAreMisalignedWhereTheLayoutIsKnown) {
  GemmDims tokens;  // 4095 tokens through a 1024 x 512 layer
  tokens.m = 4095;
  tokens.n = 512;
  tokens.k = 1024;
  const int multiple = requiredMultiple(MathPrecision::kBf16);
  ASSERT_EQ(misalignedDimensions(tokens, multiple).size(), 1u);  // unknown layout: M counts
  tokens.leading = LeadingDims{false, true, true};
  EXPECT_TRUE(misalignedDimensions(tokens, multiple).empty());
  tokens.leading = LeadingDims{true, true, false};  // M leads (a transposed A)
  const auto findings = misalignedDimensions(tokens, multiple);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].dimension, "M");
  EXPECT_EQ(findings[0].padded, 4096);
}

TEST(ShapeChecksTest, NvprofTransformerVocabularyIsFlaggedWithItsPaddedSize) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "nvprof-v100-transformer-lm/net.sql");
  auto run = analyzeFile(path);
  ASSERT_TRUE(run.ok()) << run.error().message;
  const std::vector<ShapeCheck>& checks = run->summary.shape_checks;
  ASSERT_FALSE(checks.empty());
  // The decoder's projection onto the 33,278-word vocabulary is the largest matrix op.
  const ShapeCheck& decoder = checks.front();
  EXPECT_EQ(decoder.dims.n, 33278);
  EXPECT_EQ(decoder.precision, MathPrecision::kFp32Simt);
  bool vocabulary_flagged = false;
  for (const DimensionFinding& f : decoder.misaligned) vocabulary_flagged |= f.value == 33278 && f.padded == 33280;
  EXPECT_TRUE(vocabulary_flagged);
}

TEST(ShapeChecksTest, A100Align1KernelsAreTiedToTheDimensionsThatCausedThem) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-a100-dlrm-tf32/control.json.gz");
  auto run = analyzeFile(path);
  ASSERT_TRUE(run.ok()) << run.error().message;
  std::size_t tf32_align1_with_finding = 0;
  for (const ShapeCheck& check : run->summary.shape_checks) {
    if (check.precision != MathPrecision::kTf32) continue;
    EXPECT_EQ(check.required_multiple, 4);
    // Every TF32 op whose kernels were align1 has a dimension that is not a multiple of 4...
    if (check.smallest_kernel_alignment == 1) {
      EXPECT_FALSE(check.misaligned.empty()) << check.op << " " << check.shapes;
      ++tf32_align1_with_finding;
    }
    // ...and every op with all dimensions aligned ran align4 kernels or better.
    if (check.misaligned.empty() && check.smallest_kernel_alignment > 0) {
      EXPECT_GE(check.smallest_kernel_alignment, 4) << check.op << " " << check.shapes;
    }
  }
  EXPECT_GT(tf32_align1_with_finding, 3u);
}

// linear (with shapes) > addmm (without) > copy_: the innermost eligible op, with and without
// shapes, found by name once per name and the same as the one-off walk.
TEST(ShapeChecksTest, EligibleOpsFindTheSameEnclosingOpsAsTheWalk) {
  trace::Trace trace;
  const auto range = [&](const char* op, const char* shapes, trace::Index parent) {
    trace::Range& r = trace.ranges.emplace_back();
    r.op = trace.strings.intern(op);
    r.shapes = trace.strings.intern(shapes);
    r.parent = parent;
    return static_cast<trace::Index>(trace.ranges.size() - 1);
  };
  const trace::Index linear = range("aten::linear", "[[8, 16], [32, 16], [32]]", trace::kNone);
  const trace::Index addmm = range("aten::addmm", "", linear);
  const trace::Index copy = range("aten::copy_", "[[8, 32]]", addmm);
  const trace::Index relu = range("aten::relu", "[[8, 32]]", trace::kNone);
  EligibleOps eligible(trace);
  for (const trace::Index r : {linear, addmm, copy, relu}) {
    for (const bool with_shapes : {false, true}) {
      EXPECT_EQ(eligible.enclosing(r, with_shapes), enclosingEligibleOp(trace, r, with_shapes)) << r << with_shapes;
    }
  }
  EXPECT_EQ(eligible.enclosing(copy, false), addmm);
  EXPECT_EQ(eligible.enclosing(copy, true), linear);
  EXPECT_EQ(eligible.enclosing(relu, false), trace::kNone);
  EXPECT_TRUE(eligible.isEligible(trace.ranges[static_cast<std::size_t>(addmm)]));
  EXPECT_FALSE(eligible.isEligible(trace.ranges[static_cast<std::size_t>(copy)]));
}

}  // namespace
}  // namespace ampscope::analyzer
