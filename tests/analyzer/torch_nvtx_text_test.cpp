#include "analyzer/normalise/torch_nvtx_text.h"

#include <gtest/gtest.h>

namespace ampscope::analyzer::import {
namespace {

TEST(TorchNvtxTextTest, OpIdFormOfPyTorch2) {
  const auto text = parseTorchNvtxText("aten::mm, op_id = 318133");
  ASSERT_TRUE(text);
  EXPECT_EQ(text->op, "aten::mm");
  EXPECT_EQ(text->op_id, 318133);
  EXPECT_EQ(text->sequence_number, -1);
  EXPECT_TRUE(text->shapes_json.empty());
}

TEST(TorchNvtxTextTest, SequenceFormOfOlderReleasesAndPyProf) {
  const auto text = parseTorchNvtxText("aten::addmm, seq = 12");
  ASSERT_TRUE(text);
  EXPECT_EQ(text->op, "aten::addmm");
  EXPECT_EQ(text->sequence_number, 12);
  EXPECT_EQ(text->op_id, -1);
}

TEST(TorchNvtxTextTest, EveryFieldWithRecordedShapes) {
  const auto text = parseTorchNvtxText(
      "aten::linear, seq = 3, op_id = 11, sizes = [[64, 784], [100, 784], [100]], input_op_ids = [(9,0), (10,0)]");
  ASSERT_TRUE(text);
  EXPECT_EQ(text->op, "aten::linear");
  EXPECT_EQ(text->sequence_number, 3);
  EXPECT_EQ(text->op_id, 11);
  EXPECT_EQ(text->shapes_json, "[[64,784],[100,784],[100]]");
}

TEST(TorchNvtxTextTest, ScalarArgumentsHaveEmptyShapes) {
  const auto text = parseTorchNvtxText("aten::add, op_id = 5, sizes = [[8, 16], [], []]");
  ASSERT_TRUE(text);
  EXPECT_EQ(text->shapes_json, "[[8,16],[],[]]");
}

TEST(TorchNvtxTextTest, BackwardNodesKeepTheirFullName) {
  const auto node = parseTorchNvtxText("autograd::engine::evaluate_function: MmBackward0, seq = 5, op_id = 90");
  ASSERT_TRUE(node);
  EXPECT_EQ(node->op, "autograd::engine::evaluate_function: MmBackward0");
  EXPECT_EQ(node->sequence_number, 5);
  const auto pyprof = parseTorchNvtxText("NllLossBackward, seq = 228");
  ASSERT_TRUE(pyprof);
  EXPECT_EQ(pyprof->op, "NllLossBackward");
}

TEST(TorchNvtxTextTest, TextsThatAreNotPyTorchsStayUnread) {
  for (const char* text : {"aten::mm", "forward", "", ", seq = 3", "x, seq = twelve", "x, seq = 3 and more",
                           "x, op_id = 4, seq = 3", "x, seq = 3, seq = 4", "x, sizes = [[1, 2]", "x, sizes = [[a]]",
                           "{'op': 'mm'}, seq = 1", "x, seq = -2"}) {
    EXPECT_FALSE(parseTorchNvtxText(text)) << text;
  }
}

}  // namespace
}  // namespace ampscope::analyzer::import
