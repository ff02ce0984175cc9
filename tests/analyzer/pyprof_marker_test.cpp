#include "analyzer/normalise/pyprof_marker.h"

#include <gtest/gtest.h>

namespace ampscope::analyzer::import {
namespace {

TEST(PyProfMarkerTest, OperatorDictGivesOpShapesAndDtypesOfTensorArguments) {
  const PyProfMarker marker = parsePyProfMarker(
      "{'mod': 'torch.nn.functional', 'op': 'embedding', 'args': [{'name': '', 'type': 'tensor', "
      "'shape': (35, 20), 'dtype': 'int64'}, {'name': '', 'type': 'tensor', 'shape': (33278, 200), "
      "'dtype': 'float32'}, {'name': '', 'type': 'NoneType', 'value': None}, {'name': '', 'type': "
      "'float', 'value': 2.0}, {'name': '', 'type': 'bool', 'value': False}]}");
  EXPECT_EQ(marker.kind, PyProfMarker::Kind::kOperator);
  EXPECT_EQ(marker.module, "torch.nn.functional");
  EXPECT_EQ(marker.op, "embedding");
  EXPECT_EQ(marker.shapes_json, "[[35,20],[33278,200]]");
  EXPECT_EQ(marker.dtypes_json, "[\"int64\",\"float32\"]");
  EXPECT_EQ(marker.arguments_json, R"(["","","","2.0","False"])");
}

TEST(PyProfMarkerTest, ConvolutionArgumentsAreListedAsKinetoRecordsThem) {
  // nn.Conv2d's call: F.conv2d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups).
  const PyProfMarker marker = parsePyProfMarker(
      "{'mod': 'torch.nn.functional', 'op': 'conv2d', 'args': [{'name': '', 'type': 'tensor', 'shape': (32, 3, 224, 224), "
      "'dtype': 'float16'}, {'name': '', 'type': 'tensor', 'shape': (64, 3, 7, 7), 'dtype': 'float16'}, "
      "{'name': '', 'type': 'NoneType', 'value': None}, {'name': '', 'type': 'tuple', 'value': (2, 2)}, "
      "{'name': '', 'type': 'tuple', 'value': (3, 3)}, {'name': '', 'type': 'tuple', 'value': (1, 1)}, "
      "{'name': '', 'type': 'int', 'value': 1}]}");
  EXPECT_EQ(marker.kind, PyProfMarker::Kind::kOperator);
  EXPECT_EQ(marker.shapes_json, "[[32,3,224,224],[64,3,7,7]]");
  EXPECT_EQ(marker.arguments_json, R"(["","","","[2, 2]","[3, 3]","[1, 1]","1"])");
}

TEST(PyProfMarkerTest, ArgumentsListOnlyPositionalOnesWithBooleansStringsAndOneElementTuples) {
  // From the shared nvprof trace; 'reduction' and 'training' are keyword arguments, whose
  // position the marker does not give.
  const PyProfMarker layer_norm = parsePyProfMarker(
      "{'mod': 'torch', 'op': 'layer_norm', 'args': [{'name': '', 'type': 'tensor', 'shape': (35, 20, 200), "
      "'dtype': 'float32'}, {'name': '', 'type': 'tuple', 'value': (200,)}, {'name': '', 'type': 'tensor', 'shape': "
      "(200,), 'dtype': 'float32'}, {'name': '', 'type': 'tensor', 'shape': (200,), 'dtype': 'float32'}, {'name': '', "
      "'type': 'float', 'value': 1e-05}, {'name': '', 'type': 'bool', 'value': True}]}");
  EXPECT_EQ(layer_norm.arguments_json, R"(["","[200]","","","1e-05","True"])");
  const PyProfMarker nll = parsePyProfMarker(
      "{'mod': 'torch.nn.functional', 'op': 'nll_loss', 'args': [{'name': '', 'type': 'tensor', 'shape': (700, 33278), "
      "'dtype': 'float32'}, {'name': '', 'type': 'tensor', 'shape': (700,), 'dtype': 'int64'}, {'name': '', 'type': "
      "'NoneType', 'value': None}, {'name': '', 'type': 'int', 'value': -100}, {'name': '', 'type': 'str', 'value': "
      "'mean'}, {'name': 'training', 'type': 'bool', 'value': True}]}");
  EXPECT_EQ(nll.arguments_json, R"(["","","","-100","mean"])");
  EXPECT_EQ(nll.shapes_json, "[[700,33278],[700]]");
}

TEST(PyProfMarkerTest, OneElementTupleAndScalarTensorShapes) {
  const PyProfMarker marker = parsePyProfMarker(
      "{'mod': 'Tensor', 'op': 'sum', 'args': [{'name': '', 'type': 'tensor', 'shape': (7,), "
      "'dtype': 'float16'}, {'name': '', 'type': 'tensor', 'shape': (), 'dtype': 'float32'}]}");
  EXPECT_EQ(marker.shapes_json, "[[7],[]]");
  EXPECT_EQ(marker.dtypes_json, "[\"float16\",\"float32\"]");
}

TEST(PyProfMarkerTest, ModuleMarkerNamesTheModuleClass) {
  const PyProfMarker marker = parsePyProfMarker("{'mod': 'Linear', 'strRepr': 'in_features=200, out_features=33278, bias=True'}");
  EXPECT_EQ(marker.kind, PyProfMarker::Kind::kModule);
  EXPECT_EQ(marker.module, "Linear");
}

TEST(PyProfMarkerTest, TraceMarkerKeepsTheInnermostFrame) {
  const PyProfMarker marker = parsePyProfMarker(
      "{'traceMarker': ['profile2.py:314', '/x/torch/nn/modules/sparse.py:114']}");
  EXPECT_EQ(marker.kind, PyProfMarker::Kind::kTraceMarker);
  EXPECT_EQ(marker.innermost_frame, "/x/torch/nn/modules/sparse.py:114");
  EXPECT_TRUE(marker.func_stack.empty());
}

TEST(PyProfMarkerTest, TraceMarkerKeepsTheFunctionStack) {
  const PyProfMarker marker = parsePyProfMarker(
      "{'traceMarker': ['net.py:40'], 'funcStack': '/dummy_network::forward/Linear::_call_impl[4]/Linear::forward/linear'}");
  EXPECT_EQ(marker.kind, PyProfMarker::Kind::kTraceMarker);
  EXPECT_EQ(marker.func_stack, "/dummy_network::forward/Linear::_call_impl[4]/Linear::forward/linear");
}

TEST(PyProfMarkerTest, MalformedOrPlainTextStaysText) {
  EXPECT_EQ(parsePyProfMarker("{'op': 'mm', 'args': [").kind, PyProfMarker::Kind::kText);
  EXPECT_EQ(parsePyProfMarker("forward").kind, PyProfMarker::Kind::kText);
  EXPECT_EQ(parsePyProfMarker("NllLossBackward, seq = 228").kind, PyProfMarker::Kind::kText);
  EXPECT_EQ(parsePyProfMarker("{'a': " + std::string(200, '[')).kind, PyProfMarker::Kind::kText);
}

}  // namespace
}  // namespace ampscope::analyzer::import
