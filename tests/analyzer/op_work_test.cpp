// Tests of analyzer/model/op_work.h: the FLOPs and bytes of one op call from its recorded shapes,
// dtypes and arguments. Expected numbers are worked out by hand in the comments.

#include "analyzer/model/op_work.h"

#include <gtest/gtest.h>

#include "analyzer/normalise/range_values_reader.h"

namespace ampscope::analyzer {
namespace {

struct Recorded {
  std::string op;
  Shapes shapes;
  std::string dtypes;
  std::string arguments;
  std::vector<std::int64_t> output_shape = {};
  WorkBasis output_basis = WorkBasis::kUnknown;
  int fallback = 0;
  bool backward_pass = false;
};

// The recorded dtypes and arguments read as the range normaliser reads them at import.
OpWork work(const Recorded& r) {
  const trace::RangeDtypes dtypes = import::readRangeDtypes(r.dtypes);
  const trace::RangeArguments arguments = import::readRangeArguments(r.arguments);
  OpCall call;
  call.op = r.op;
  call.shapes = &r.shapes;
  call.dtypes = &dtypes;
  call.arguments = &arguments;
  call.output_shape = r.output_shape;
  call.output_basis = r.output_basis;
  call.element_bytes_fallback = r.fallback;
  call.backward_pass = r.backward_pass;
  return opWork(call);
}

std::optional<ConvGeometry> geometry(std::string_view op, std::string_view arguments, std::size_t spatial_dims) {
  return convGeometry(op, import::readRangeArguments(arguments), spatial_dims);
}

constexpr const char* kFloat2 = R"(["float","float"])";
constexpr const char* kFloat3 = R"(["float","float","float"])";

// ---- Convolutions ------------------------------------------------------------------------------

TEST(OpWorkConvolutionTest, StrideAndPaddingFromConv2dArgumentsGiveTheImplicitGemm) {
  // [8,16,32,32] * [32,16,3,3], stride 2, padding 1: out = floor((32 + 2 - 2 - 1) / 2) + 1 = 16.
  const OpWork w = work({"aten::conv2d", {{8, 16, 32, 32}, {32, 16, 3, 3}, {}}, R"(["float","float",""])",
                         R"(["","","","[2, 2]","[1, 1]","[1, 1]","1"])"});
  EXPECT_EQ(w.basis, WorkBasis::kArguments);
  ASSERT_TRUE(w.gemm && w.flops && w.bytes && w.conv);
  EXPECT_TRUE(w.matrix);
  EXPECT_TRUE(w.gemm->convolution);
  EXPECT_EQ(w.gemm->m, 8 * 16 * 16);
  EXPECT_EQ(w.gemm->n, 32);
  EXPECT_EQ(w.gemm->k, 16 * 9);
  EXPECT_EQ(w.gemm->input_channels, 16);
  EXPECT_DOUBLE_EQ(*w.flops, 2.0 * 2048 * 32 * 144);
  // input 131072 + weight 4608 + output 8*32*256 = 65536 elements, 4 bytes each.
  EXPECT_DOUBLE_EQ(*w.bytes, (131072.0 + 4608 + 65536) * 4);
  EXPECT_EQ(w.conv->stride, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(w.conv->padding, (std::vector<std::int64_t>{1, 1}));
}

TEST(OpWorkConvolutionTest, DilationWidensTheFilter) {
  // 3x3 filter with dilation 2 spans 5: 20 - 5 + 1 = 16 positions per dimension.
  const OpWork w =
      work({"aten::conv2d", {{1, 4, 20, 20}, {4, 4, 3, 3}}, kFloat2, R"(["","","","[1, 1]","[0, 0]","[2, 2]","1"])"});
  ASSERT_TRUE(w.gemm && w.flops);
  EXPECT_EQ(w.gemm->m, 16 * 16);
  EXPECT_DOUBLE_EQ(*w.flops, 2.0 * 256 * 4 * 36);
}

TEST(OpWorkConvolutionTest, DepthwiseGroupsCountEachChannelsOwnFilterOnly) {
  // 32 groups of one channel: K = C/groups x 3 x 3 = 9 per output channel.
  const OpWork w = work({"aten::convolution", {{2, 32, 56, 56}, {32, 1, 3, 3}, {}}, kFloat3,
                         R"(["","","","[1, 1]","[1, 1]","[1, 1]","False","[0, 0]","32"])"});
  ASSERT_TRUE(w.gemm && w.flops && w.conv);
  EXPECT_EQ(w.conv->groups, 32);
  EXPECT_EQ(w.gemm->m, 2 * 56 * 56);
  EXPECT_EQ(w.gemm->n, 32);
  EXPECT_EQ(w.gemm->k, 9);
  EXPECT_EQ(w.gemm->input_channels, 32);
  EXPECT_DOUBLE_EQ(*w.flops, 2.0 * 2 * 3136 * 32 * 9);
}

TEST(OpWorkConvolutionTest, CudnnConvolutionReadsPaddingBeforeStride) {
  // The H100 TimeSformer patch embedding, as its four nested ops recorded it: 224 / 16 = 14.
  const Shapes shapes = {{128, 3, 224, 224}, {768, 3, 16, 16}};
  const char* dtypes = R"(["c10::BFloat16","c10::BFloat16"])";
  const OpWork conv2d = work({"aten::conv2d", shapes, dtypes, R"(["", "", "", "[16, 16]", "[0, 0]", "[1, 1]", "1"])"});
  const OpWork convolution = work({"aten::convolution", shapes, dtypes,
                                   R"(["", "", "", "[16, 16]", "[0, 0]", "[1, 1]", "False", "[0, 0]", "1"])"});
  const OpWork underscore = work({"aten::_convolution", shapes, dtypes,
                                  R"(["","","","[16, 16]","[0, 0]","[1, 1]","False","[0, 0]","1","False","False","True","True"])"});
  const OpWork cudnn = work({"aten::cudnn_convolution", shapes, dtypes,
                             R"(["", "", "[0, 0]", "[16, 16]", "[1, 1]", "1", "False", "False", "True"])"});
  for (const OpWork* w : {&conv2d, &convolution, &underscore, &cudnn}) {
    ASSERT_TRUE(w->gemm && w->flops);
    EXPECT_EQ(w->basis, WorkBasis::kArguments);
    EXPECT_EQ(w->gemm->m, 128 * 14 * 14);
    EXPECT_EQ(w->gemm->k, 768);
    EXPECT_DOUBLE_EQ(*w->flops, 2.0 * 25088 * 768 * 768);
  }
}

TEST(OpWorkConvolutionTest, OneIntegerStandsForEverySpatialDimension) {
  const auto g = geometry("aten::conv3d", R"(["","","","2","1","1","1"])", 3);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->stride, (std::vector<std::int64_t>{2, 2, 2}));
  EXPECT_EQ(g->padding, (std::vector<std::int64_t>{1, 1, 1}));
  EXPECT_EQ(g->dilation, (std::vector<std::int64_t>{1, 1, 1}));
  EXPECT_FALSE(g->transposed);
}

TEST(OpWorkConvolutionTest, GeometryFollowsEachSignaturesArgumentOrder) {
  const auto backward = geometry("aten::convolution_backward",
                                     R"(["","","","[64]","[2, 2]","[3, 3]","[1, 1]","True","[1, 1]","4","[True, True, False]"])", 2);
  ASSERT_TRUE(backward);
  EXPECT_EQ(backward->stride, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(backward->padding, (std::vector<std::int64_t>{3, 3}));
  EXPECT_EQ(backward->output_padding, (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(backward->groups, 4);
  EXPECT_TRUE(backward->transposed);
  // conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation).
  const auto transpose = geometry("aten::conv_transpose2d", R"(["","","","[2, 2]","[1, 1]","[1, 1]","2","[3, 3]"])", 2);
  ASSERT_TRUE(transpose);
  EXPECT_EQ(transpose->output_padding, (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(transpose->groups, 2);
  EXPECT_EQ(transpose->dilation, (std::vector<std::int64_t>{3, 3}));
  EXPECT_TRUE(transpose->transposed);
  // mkldnn_convolution(self, weight, bias, padding, stride, dilation, groups).
  const auto mkldnn = geometry("aten::mkldnn_convolution", R"(["","","","[1, 1]","[2, 2]","[1, 1]","1"])", 2);
  ASSERT_TRUE(mkldnn);
  EXPECT_EQ(mkldnn->stride, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(mkldnn->padding, (std::vector<std::int64_t>{1, 1}));
  EXPECT_FALSE(geometry("aten::conv2d", "", 2));
  EXPECT_FALSE(geometry("aten::conv2d", R"(["","","","[2, 2, 2]","[0, 0]","[1, 1]","1"])", 2));
  EXPECT_FALSE(geometry("aten::relu", R"(["",""])", 2));
}

TEST(OpWorkConvolutionTest, TransposedConvolutionGrowsTheOutputAndCountsInputPositions) {
  // Input [1,16,8,8], weight [16, 8, 4, 4] (C_in, K_out/groups, filter), stride 2, padding 1:
  // out = (8 - 1) * 2 - 2 + 3 + 0 + 1 = 16. Each input position meets every tap once.
  const OpWork w = work({"aten::conv_transpose2d", {{1, 16, 8, 8}, {16, 8, 4, 4}}, kFloat2,
                         R"(["","","","[2, 2]","[1, 1]","[0, 0]","1","[1, 1]"])"});
  ASSERT_TRUE(w.flops && w.bytes && w.gemm);
  EXPECT_DOUBLE_EQ(*w.flops, 2.0 * 64 * (16 * 8 * 16));
  EXPECT_DOUBLE_EQ(*w.flops, 2.0 * static_cast<double>(w.gemm->m * w.gemm->n * w.gemm->k));
  EXPECT_EQ(w.gemm->n, 8);
  EXPECT_DOUBLE_EQ(*w.bytes, (1024.0 + 2048 + 8 * 16 * 16) * 4);
  // The same call through aten::convolution's transposed flag.
  const OpWork flagged = work({"aten::convolution", {{1, 16, 8, 8}, {16, 8, 4, 4}}, kFloat2,
                               R"(["","","","[2, 2]","[1, 1]","[1, 1]","True","[0, 0]","1"])"});
  ASSERT_TRUE(flagged.flops && flagged.bytes);
  EXPECT_DOUBLE_EQ(*flagged.flops, *w.flops);
  EXPECT_DOUBLE_EQ(*flagged.bytes, *w.bytes);
}

TEST(OpWorkConvolutionTest, WithoutArgumentsOrOutputShapeTheFlopsAreUnknownNotStrideOne) {
  // The V100 ResNet-50 stem as PyTorch 1.8 recorded it: shapes only.
  const OpWork w = work({"aten::cudnn_convolution", {{32, 3, 224, 224}, {64, 3, 7, 7}, {}, {}, {}, {}, {}, {}, {}},
                         R"(["float","float","GenericList","GenericList","GenericList","Int","Bool","Bool","Bool"])", ""});
  EXPECT_EQ(w.basis, WorkBasis::kUnknown);
  EXPECT_FALSE(w.flops);
  EXPECT_FALSE(w.bytes);
  EXPECT_FALSE(w.gemm);
  EXPECT_TRUE(w.matrix);
  EXPECT_NE(w.note.find("stride"), std::string::npos) << w.note;
}

TEST(OpWorkConvolutionTest, AnOutputShapeFoundElsewhereGivesTheOutputPositions) {
  const OpWork w = work({"aten::conv2d", {{32, 3, 224, 224}, {64, 3, 7, 7}}, kFloat2, "", {32, 64, 112, 112},
                         WorkBasis::kConsumerInput});
  EXPECT_EQ(w.basis, WorkBasis::kConsumerInput);
  ASSERT_TRUE(w.gemm && w.flops);
  EXPECT_EQ(w.gemm->m, 401408);
  EXPECT_DOUBLE_EQ(*w.flops, 2.0 * 401408 * 64 * 147);
  // An output that cannot be this call's (other channels) is not taken.
  const OpWork wrong = work({"aten::conv2d", {{32, 3, 224, 224}, {64, 3, 7, 7}}, kFloat2, "", {32, 128, 112, 112},
                             WorkBasis::kConsumerInput});
  EXPECT_FALSE(wrong.flops);
}

TEST(OpWorkConvolutionTest, SamePaddingKeepsTheInputSizeEvenForAnEvenFilter) {
  const OpWork w = work({"aten::conv2d", {{1, 8, 10, 10}, {8, 8, 4, 4}}, kFloat2, R"(["","","","[1, 1]","same","[1, 1]","1"])"});
  ASSERT_TRUE(w.gemm);
  EXPECT_EQ(w.gemm->m, 100);
}

TEST(OpWorkConvolutionTest, TheTrainersConv2dReadsLikeAten) {
  const OpWork w = work({"conv2d", {{64, 1, 28, 28}, {32, 1, 5, 5}, {32}}, R"(["float16","float16","float16"])",
                         R"(["","","","[1, 1]","[2, 2]","[1, 1]","1"])"});
  ASSERT_TRUE(w.flops && w.bytes);
  // 28 + 4 - 4 - 1 + 1 = 28; the bias adds one FLOP per output element.
  const double out = 64.0 * 32 * 28 * 28;
  EXPECT_DOUBLE_EQ(*w.flops, 2.0 * 64 * 784 * 32 * 25 + out);
  EXPECT_DOUBLE_EQ(*w.bytes, (64.0 * 784 + 800 + 32 + out) * 2);
}

// ---- Backward ops ------------------------------------------------------------------------------

TEST(OpWorkBackwardTest, ConvolutionBackwardDoesTwiceTheForwardPerOutputMask) {
  const Shapes shapes = {{8, 32, 16, 16}, {8, 16, 32, 32}, {32, 16, 3, 3}, {}};
  const double forward = 2.0 * 2048 * 32 * 144;
  const OpWork both = work({"aten::convolution_backward", shapes, R"(["float","float","float","GenericList"])",
                            R"(["","","","[32]","[2, 2]","[1, 1]","[1, 1]","False","[0, 0]","1","[True, True, True]"])"});
  ASSERT_TRUE(both.flops && both.bytes && both.gemm);
  EXPECT_DOUBLE_EQ(*both.flops, 2 * forward);
  EXPECT_EQ(both.gemm->m, 2048);
  // grad_output, input and weight read; grad input, grad weight and grad bias written.
  EXPECT_DOUBLE_EQ(*both.bytes, (65536.0 + 131072 + 4608 + 131072 + 4608 + 32) * 4);
  const OpWork weight_only = work({"aten::convolution_backward", shapes, "",
                                   R"(["","","","[32]","[2, 2]","[1, 1]","[1, 1]","False","[0, 0]","1","[False, True, False]"])", {},
                                   WorkBasis::kUnknown, 4});
  ASSERT_TRUE(weight_only.flops);
  EXPECT_DOUBLE_EQ(*weight_only.flops, forward);
  // No arguments: the shapes still give the work; both gradients are assumed and said so.
  const OpWork unrecorded = work({"aten::convolution_backward", shapes, "", "", {}, WorkBasis::kUnknown, 4});
  ASSERT_TRUE(unrecorded.flops);
  EXPECT_DOUBLE_EQ(*unrecorded.flops, 2 * forward);
  EXPECT_NE(unrecorded.note.find("output_mask"), std::string::npos);
}

TEST(OpWorkBackwardTest, CudnnBackwardOpsOfPyTorch18ReadGradOutputFromTheirSecondInput) {
  // From the V100 ResNet-50 trace: a 1x1 conv, 512 -> 2048 channels on 7x7.
  const double forward = 2.0 * 32 * 49 * 2048 * 512;
  const OpWork both = work({"aten::cudnn_convolution_backward",
                            {{32, 512, 7, 7}, {32, 2048, 7, 7}, {2048, 512, 1, 1}, {}, {}, {}, {}, {}, {}, {}, {}},
                            R"(["float","float","float","GenericList","GenericList","GenericList","Int","Bool","Bool","Bool","GenericList"])",
                            ""});
  ASSERT_TRUE(both.flops && both.gemm);
  EXPECT_DOUBLE_EQ(*both.flops, 2 * forward);
  EXPECT_EQ(both.gemm->m, 32 * 49);
  EXPECT_EQ(both.gemm->input_channels, 512);
  const OpWork input = work({"aten::cudnn_convolution_backward_input", {{}, {32, 2048, 7, 7}, {2048, 512, 1, 1}},
                             R"(["GenericList","float","float"])", ""});
  ASSERT_TRUE(input.flops);
  EXPECT_DOUBLE_EQ(*input.flops, forward);
  EXPECT_FALSE(input.bytes);  // the grad input's size is an int list, not recorded
  // The weight's size is not recorded by backward_weight: its filter is unknown...
  const OpWork weight = work({"aten::cudnn_convolution_backward_weight", {{}, {32, 2048, 7, 7}, {32, 512, 7, 7}},
                              R"(["GenericList","float","float"])", ""});
  EXPECT_FALSE(weight.flops);
  EXPECT_FALSE(weight.note.empty());
  // ... unless the caller knows the gradient's (the weight's) shape.
  const OpWork known = work({"aten::cudnn_convolution_backward_weight", {{}, {32, 2048, 7, 7}, {32, 512, 7, 7}},
                             R"(["GenericList","float","float"])", "", {2048, 512, 1, 1}});
  ASSERT_TRUE(known.flops && known.bytes);
  EXPECT_DOUBLE_EQ(*known.flops, forward);
  EXPECT_DOUBLE_EQ(*known.bytes, (32.0 * 2048 * 49 + 32 * 512 * 49 + 2048 * 512) * 4);
}

TEST(OpWorkBackwardTest, AutogradNodesLeaveTheWorkToTheirAtenOps) {
  for (const char* node : {"MmBackward0", "AddmmBackward", "CudnnConvolutionBackward", "ConvolutionBackward0",
                           "autograd::engine::evaluate_function: BmmBackward0"}) {
    const OpWork w = work({node, {{1024, 32, 32}}, R"(["float"])", ""});
    EXPECT_FALSE(w.flops) << node;
    EXPECT_FALSE(w.bytes) << node;
    EXPECT_TRUE(w.matrix) << node;
    EXPECT_NE(w.note.find("autograd"), std::string::npos) << node;
  }
  EXPECT_FALSE(work({"ReluBackward0", {{1024, 128}}, R"(["float"])", ""}).matrix);
}

TEST(OpWorkBackwardTest, ABackwardPassOfForwardShapesDoublesTheMatrixWork) {
  const Recorded forward{"linear", {{64, 784}, {100, 784}, {100}}, R"(["float16","float16","float16"])", ""};
  Recorded backward = forward;
  backward.backward_pass = true;
  const OpWork f = work(forward);
  const OpWork b = work(backward);
  ASSERT_TRUE(f.flops && b.flops && f.bytes && b.bytes);
  EXPECT_DOUBLE_EQ(*b.flops, 2 * *f.flops);
  // Every input's gradient written besides the forward's traffic.
  EXPECT_DOUBLE_EQ(*b.bytes, *f.bytes + (64.0 * 784 + 100 * 784 + 100) * 2);
}

// ---- GEMMs -------------------------------------------------------------------------------------

TEST(OpWorkGemmTest, LinearAndAddmmAndMm) {
  // TimeSformer's qkv projection: [3136, 8, 768] x [2304, 768]^T + [2304]: M = 25088.
  const char* bf16 = R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16"])";
  const OpWork linear = work({"aten::linear", {{3136, 8, 768}, {2304, 768}, {2304}}, bf16, ""});
  const OpWork addmm = work({"aten::addmm", {{2304}, {25088, 768}, {768, 2304}, {}, {}}, bf16, ""});
  const double flops = 2.0 * 25088 * 2304 * 768 + 25088.0 * 2304;
  const double bytes = (25088.0 * 768 + 2304 * 768 + 2304 + 25088.0 * 2304) * 2;
  for (const OpWork* w : {&linear, &addmm}) {
    ASSERT_TRUE(w->gemm && w->flops && w->bytes);
    EXPECT_EQ(w->basis, WorkBasis::kShapes);
    EXPECT_EQ(w->gemm->m, 25088);
    EXPECT_EQ(w->gemm->n, 2304);
    EXPECT_EQ(w->gemm->k, 768);
    EXPECT_DOUBLE_EQ(*w->flops, flops);
    EXPECT_DOUBLE_EQ(*w->bytes, bytes);
  }
  const OpWork mm = work({"aten::mm", {{64, 784}, {784, 100}}, kFloat2, ""});
  ASSERT_TRUE(mm.flops && mm.bytes);
  EXPECT_DOUBLE_EQ(*mm.flops, 2.0 * 64 * 100 * 784);
  EXPECT_DOUBLE_EQ(*mm.bytes, (64.0 * 784 + 784 * 100 + 64 * 100) * 4);
  EXPECT_FALSE(work({"aten::mm", {{64, 784}}, kFloat2, ""}).flops);
}

TEST(OpWorkGemmTest, MatmulBroadcastsBatchDimensions) {
  // [8,1,64,32] @ [4,32,16]: batch [8,1] with [4] broadcasts to [8,4] = 32 products of 64x32x16.
  const OpWork w = work({"aten::matmul", {{8, 1, 64, 32}, {4, 32, 16}}, kFloat2, ""});
  ASSERT_TRUE(w.gemm && w.flops && w.bytes);
  EXPECT_EQ(w.gemm->batch, 32);
  EXPECT_EQ(w.gemm->m, 64);
  EXPECT_DOUBLE_EQ(*w.flops, 2.0 * 32 * 64 * 16 * 32);
  EXPECT_DOUBLE_EQ(*w.bytes, (8.0 * 64 * 32 + 4 * 32 * 16 + 32 * 64 * 16) * 4);
  EXPECT_FALSE(work({"aten::matmul", {{2, 3, 4}, {5, 4, 6}}, kFloat2, ""}).flops);
  EXPECT_FALSE(work({"aten::matmul", {{3, 4}, {5, 6}}, kFloat2, ""}).flops);
}

TEST(OpWorkGemmTest, MatmulWithOneDimensionalOperands) {
  const OpWork dot = work({"aten::matmul", {{32}, {32}}, kFloat2, ""});
  ASSERT_TRUE(dot.flops);
  EXPECT_DOUBLE_EQ(*dot.flops, 64);
  const OpWork vector_matrix = work({"aten::matmul", {{32}, {4, 32, 16}}, kFloat2, ""});
  ASSERT_TRUE(vector_matrix.flops && vector_matrix.gemm);
  EXPECT_DOUBLE_EQ(*vector_matrix.flops, 2.0 * 4 * 16 * 32);
  EXPECT_EQ(vector_matrix.gemm->m, 1);
  EXPECT_EQ(vector_matrix.gemm->batch, 4);
  // A batch of matrices times a vector (or one matrix) is one GEMM with the batch folded into M.
  const OpWork matrix_vector = work({"aten::matmul", {{8, 64, 32}, {32}}, kFloat2, ""});
  ASSERT_TRUE(matrix_vector.flops && matrix_vector.gemm);
  EXPECT_DOUBLE_EQ(*matrix_vector.flops, 2.0 * 8 * 64 * 32);
  EXPECT_EQ(matrix_vector.gemm->m, 512);
  EXPECT_EQ(matrix_vector.gemm->n, 1);
  const OpWork folded = work({"aten::matmul", {{8, 64, 32}, {32, 16}}, kFloat2, ""});
  ASSERT_TRUE(folded.gemm);
  EXPECT_EQ(folded.gemm->m, 512);
  EXPECT_EQ(folded.gemm->batch, 1);
}

TEST(OpWorkGemmTest, BmmAndBaddbmm) {
  const OpWork bmm = work({"aten::bmm", {{37632, 8, 64}, {37632, 64, 8}}, R"(["c10::BFloat16","c10::BFloat16"])", ""});
  ASSERT_TRUE(bmm.flops && bmm.gemm && bmm.bytes);
  EXPECT_DOUBLE_EQ(*bmm.flops, 2.0 * 37632 * 8 * 8 * 64);
  EXPECT_EQ(bmm.gemm->batch, 37632);
  EXPECT_DOUBLE_EQ(*bmm.bytes, 37632.0 * (512 + 512 + 64) * 2);
  const OpWork baddbmm = work({"aten::baddbmm", {{10, 4, 5}, {10, 4, 3}, {10, 3, 5}}, kFloat3, ""});
  ASSERT_TRUE(baddbmm.flops);
  EXPECT_DOUBLE_EQ(*baddbmm.flops, 2.0 * 10 * 4 * 5 * 3 + 10 * 4 * 5);
  const OpWork einsum = work({"aten::einsum", {}, "", R"(["bij,bjk->bik",""])"});
  EXPECT_FALSE(einsum.flops);
  EXPECT_TRUE(einsum.matrix);
}

// ---- Attention ---------------------------------------------------------------------------------

TEST(OpWorkAttentionTest, SdpaCountsBothMatrixProductsAndHalvesForCausal) {
  // q [2,8,128,64], k [2,8,256,64], v [2,8,256,32]: 2 B H Lq Lk (E + Ev).
  const Shapes shapes = {{2, 8, 128, 64}, {2, 8, 256, 64}, {2, 8, 256, 32}, {}, {}, {}, {}};
  const char* half = R"(["c10::Half","c10::Half","c10::Half","","Scalar","Scalar",""])";
  const OpWork full = work({"aten::scaled_dot_product_attention", shapes, half, R"(["","","","","0.","False",""])"});
  ASSERT_TRUE(full.flops && full.bytes && full.gemm);
  EXPECT_DOUBLE_EQ(*full.flops, 2.0 * 16 * 128 * 256 * (64 + 32));
  EXPECT_EQ(full.gemm->batch, 16);
  EXPECT_EQ(full.gemm->m, 128);
  EXPECT_EQ(full.gemm->n, 256);
  EXPECT_EQ(full.gemm->k, 64);
  // Q, K and V are rows of E elements, O of Ev: the sequence lengths never lead, so an odd
  // length does not price the fused kernel as a misaligned GEMM.
  EXPECT_EQ(full.gemm->leading, (LeadingDims{false, false, true}));
  // Q, K, V read and O [2,8,128,32] written; no attention matrix.
  EXPECT_DOUBLE_EQ(*full.bytes, (16.0 * 128 * 64 + 16 * 256 * 64 + 16 * 256 * 32 + 16 * 128 * 32) * 2);
  const OpWork causal = work({"aten::scaled_dot_product_attention", shapes, half, R"(["","","","","0.","True",""])"});
  ASSERT_TRUE(causal.flops);
  EXPECT_DOUBLE_EQ(*causal.flops, *full.flops / 2);
  EXPECT_NE(causal.note.find("causal"), std::string::npos);
  const OpWork unrecorded = work({"aten::scaled_dot_product_attention", shapes, half, ""});
  ASSERT_TRUE(unrecorded.flops);
  EXPECT_DOUBLE_EQ(*unrecorded.flops, *full.flops);
  EXPECT_NE(unrecorded.note.find("upper bound"), std::string::npos);
}

TEST(OpWorkAttentionTest, FlashAndEfficientKernelOpsTakeSequenceBeforeHeads) {
  // _flash_attention_forward: [B, L, H, E]; is_causal is argument 8.
  const Shapes flash_shapes = {{2, 128, 8, 64}, {2, 256, 8, 64}, {2, 256, 8, 64}, {}, {}, {}, {}, {}, {}, {}};
  const OpWork flash = work({"aten::_flash_attention_forward", flash_shapes, "",
                             R"(["","","","","","128","256","0.","True","False"])", {}, WorkBasis::kUnknown, 2});
  ASSERT_TRUE(flash.flops && flash.bytes && flash.gemm);
  EXPECT_DOUBLE_EQ(*flash.flops, 4.0 * 16 * 128 * 256 * 64 / 2);
  EXPECT_EQ(flash.gemm->batch, 16);
  // Q, K, V, O and the float logsumexp of every query row.
  EXPECT_DOUBLE_EQ(*flash.bytes, (16.0 * 128 * 64 * 2 + 16 * 256 * 64 * 2) * 2 + 16.0 * 128 * 4);
  // _efficient_attention_forward: custom_mask_type (argument 9) 1 is causal from the top left.
  const OpWork efficient = work({"aten::_efficient_attention_forward", flash_shapes, "",
                                 R"(["","","","","","","","","0.","1","False"])", {}, WorkBasis::kUnknown, 2});
  ASSERT_TRUE(efficient.flops);
  EXPECT_DOUBLE_EQ(*efficient.flops, *flash.flops);
  // Variable-length: [total tokens, H, E]; the longest sequences bound the pairs.
  const OpWork varlen = work({"aten::_flash_attention_forward", {{300, 8, 64}, {300, 8, 64}, {300, 8, 64}, {3}, {3}},
                              "", R"(["","","","","","200","200","0.","False","False"])", {}, WorkBasis::kUnknown, 2});
  ASSERT_TRUE(varlen.flops);
  EXPECT_DOUBLE_EQ(*varlen.flops, 4.0 * 8 * 300 * 200 * 64);
  EXPECT_NE(varlen.note.find("upper bound"), std::string::npos);
}

TEST(OpWorkAttentionTest, BackwardIsTwoAndAHalfTimesTheForward) {
  const std::vector<std::int64_t> q = {2, 8, 128, 64};
  const OpWork forward = work({"aten::_scaled_dot_product_flash_attention", {q, q, q}, "",
                               R"(["","","","0.","False","False",""])", {}, WorkBasis::kUnknown, 2});
  // grad_out, query, key, value, out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal.
  const OpWork backward = work({"aten::_scaled_dot_product_flash_attention_backward",
                                {q, q, q, q, q, {2, 8, 128}, {}, {}, {}, {}, {}, {}},
                                R"(["c10::Half","c10::Half","c10::Half","c10::Half","c10::Half","float"])",
                                R"(["","","","","","","","","128","128","0.","False","",""])", {}, WorkBasis::kUnknown, 2});
  ASSERT_TRUE(forward.flops && backward.flops && backward.bytes);
  EXPECT_DOUBLE_EQ(*backward.flops, 2.5 * *forward.flops);
  // dO, Q, K, V, O and logsumexp read; dQ, dK, dV written.
  const double tensor = 2.0 * 8 * 128 * 64;
  EXPECT_DOUBLE_EQ(*backward.bytes, 5 * tensor * 2 + 2.0 * 8 * 128 * 4 + 3 * tensor * 2);
}

// ---- Bytes -------------------------------------------------------------------------------------

TEST(OpWorkBytesTest, ElementSizeComesFromDtypesElseTheFallbackElseUnknown) {
  const Shapes shapes = {{64, 784}, {784, 100}};
  const OpWork recorded = work({"aten::mm", shapes, R"(["c10::Half","c10::Half"])", ""});
  const OpWork fallback = work({"aten::mm", shapes, "", "", {}, WorkBasis::kUnknown, 2});
  const OpWork unknown = work({"aten::mm", shapes, "", ""});
  ASSERT_TRUE(recorded.bytes && fallback.bytes);
  EXPECT_DOUBLE_EQ(*recorded.bytes, (64.0 * 784 + 784 * 100 + 6400) * 2);
  EXPECT_DOUBLE_EQ(*fallback.bytes, *recorded.bytes);
  EXPECT_FALSE(unknown.bytes);
  EXPECT_TRUE(unknown.flops);  // FLOPs do not need element sizes
  EXPECT_NE(unknown.note.find("dtypes"), std::string::npos);
}

TEST(OpWorkBytesTest, ElementWiseOpsReadTheirInputsAndWriteTheLargest) {
  // aten::add [128,197,768] + [1,197,768] in BF16; the scalar alpha adds nothing.
  const OpWork add =
      work({"aten::add", {{128, 197, 768}, {1, 197, 768}, {}}, R"(["c10::BFloat16","c10::BFloat16","Scalar"])", ""});
  ASSERT_TRUE(add.bytes);
  EXPECT_FALSE(add.flops);
  EXPECT_FALSE(add.matrix);
  EXPECT_EQ(add.basis, WorkBasis::kShapes);
  EXPECT_DOUBLE_EQ(*add.bytes, (2 * 128.0 * 197 * 768 + 197 * 768) * 2);
  const OpWork fill = work({"aten::fill_", {{45310188}, {}}, R"(["float","Scalar"])", ""});
  ASSERT_TRUE(fill.bytes);
  EXPECT_DOUBLE_EQ(*fill.bytes, 45310188.0 * 4);
  EXPECT_FALSE(work({"aten::zeros", {{}, {}, {}}, R"(["","",""])", ""}).bytes);
  // A 0-dim tensor ("[]" with a tensor dtype: num_batches_tracked += 1) is one element; "Int" is
  // a Python scalar.
  const OpWork counter = work({"aten::add", {{}, {}, {}}, R"(["long int","long int","Int"])", ""});
  ASSERT_TRUE(counter.bytes);
  EXPECT_DOUBLE_EQ(*counter.bytes, 3 * 8);
  // copy_(self, src) reads src and writes self, each in its own dtype.
  const OpWork copy = work({"aten::copy_", {{3, 224, 224}, {3, 224, 224}, {}}, R"(["float","unsigned char","Bool"])", ""});
  ASSERT_TRUE(copy.bytes);
  EXPECT_DOUBLE_EQ(*copy.bytes, 3.0 * 224 * 224 * (4 + 1));
  EXPECT_FALSE(work({"aten::relu", {}, "", ""}).bytes);
}

TEST(OpWorkBytesTest, ViewsAndAllocationsMoveNoBytes) {
  for (const char* op : {"aten::view", "aten::reshape", "aten::as_strided", "aten::t", "aten::transpose", "aten::permute",
                         "aten::expand", "aten::squeeze", "aten::unsqueeze", "aten::detach", "aten::alias", "aten::slice",
                         "aten::select", "aten::resize_", "aten::empty", "aten::empty_strided", "detach_"}) {
    const OpWork w = work({op, {{1, 128, 3, 224, 224}, {}}, R"(["c10::BFloat16","ScalarList"])", ""});
    ASSERT_TRUE(w.bytes) << op;
    EXPECT_EQ(*w.bytes, 0) << op;
    EXPECT_FALSE(w.flops) << op;
  }
  EXPECT_STREQ(workBasisName(WorkBasis::kBackwardGradient), "backward gradient");
}

}  // namespace
}  // namespace ampscope::analyzer
