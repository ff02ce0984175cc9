#include "analyzer/normalise/range_normaliser.h"

#include <string>

#include <gtest/gtest.h>

#include "analyzer/core/gemm_shapes.h"
#include "analyzer/core/operator_labels.h"
#include "analyzer/normalise/phase_rules.h"

namespace ampscope::analyzer::import {
namespace {

using trace::Phase;
using trace::RangeKind;
using trace::RangeTextForm;

// A trace of ranges on one thread, as an importer leaves them before normalising.
class RangeNormaliserTest : public ::testing::Test {
 protected:
  std::size_t add(std::string_view text, RangeKind kind = RangeKind::kAnnotation, std::string_view domain = "") {
    trace::Range r;
    r.start_ns = static_cast<std::int64_t>(trace_.ranges.size()) * 100;
    r.end_ns = r.start_ns + 50;
    r.name = trace_.strings.intern(text);
    r.domain = trace_.strings.intern(domain);
    r.kind = kind;
    r.thread = trace_.threadIndex(1, 1);
    trace_.ranges.push_back(r);
    return trace_.ranges.size() - 1;
  }
  const trace::Range& at(std::size_t i) const { return trace_.ranges[i]; }
  std::string_view str(trace::StringId id) const { return trace_.str(id); }

  trace::Trace trace_;
};

TEST_F(RangeNormaliserTest, TorchEmitNvtxOpIdFormIsOneOperatorWhateverTheId) {
  const std::size_t a = add("aten::mm, op_id = 318133");
  const std::size_t b = add("aten::mm, op_id = 318135");
  normaliseRanges(trace_);
  for (std::size_t i : {a, b}) {
    EXPECT_EQ(at(i).kind, RangeKind::kOperator);
    EXPECT_EQ(at(i).text_form, RangeTextForm::kTorchNvtx);
    EXPECT_EQ(str(at(i).op), "aten::mm");
    EXPECT_EQ(operatorLabel(trace_, at(i)), "aten::mm");
  }
  EXPECT_EQ(at(a).op_id, 318133);
  EXPECT_EQ(at(b).op_id, 318135);
  EXPECT_EQ(str(at(a).name), "aten::mm, op_id = 318133");  // the name stays what the file said
  EXPECT_TRUE(isTensorCoreEligibleOp(opName(trace_, at(a))));
}

TEST_F(RangeNormaliserTest, TorchEmitNvtxSequenceFormIsEligibleWithItsNumber) {
  const std::size_t addmm = add("aten::addmm, seq = 12");
  normaliseRanges(trace_);
  EXPECT_EQ(str(at(addmm).op), "aten::addmm");
  EXPECT_EQ(at(addmm).sequence_number, 12);
  EXPECT_TRUE(isTensorCoreEligibleOp(opName(trace_, at(addmm))));
}

TEST_F(RangeNormaliserTest, TorchEmitNvtxShapesBecomeTheRangesShapes) {
  const std::size_t linear =
      add("aten::linear, seq = 3, op_id = 11, sizes = [[64, 784], [100, 784], [100]], input_op_ids = [(9,0)]");
  normaliseRanges(trace_);
  EXPECT_EQ(str(at(linear).shapes), "[[64,784],[100,784],[100]]");
  EXPECT_EQ(at(linear).dtypes, trace::StringTable::kEmpty);  // emit_nvtx records no dtypes
  const auto shapes = parseShapes(str(at(linear).shapes));
  ASSERT_TRUE(shapes);
  const auto dims = gemmDims(opName(trace_, at(linear)), *shapes);
  ASSERT_TRUE(dims);
  EXPECT_EQ(dims->m, 64);
  EXPECT_EQ(dims->n, 100);
  EXPECT_EQ(dims->k, 784);
}

TEST_F(RangeNormaliserTest, TorchEmitNvtxBackwardRangesAreBackward) {
  const std::size_t node = add("autograd::engine::evaluate_function: MmBackward0, seq = 5, op_id = 90");
  const std::size_t pyprof = add("MmBackward, seq = 5");
  normaliseRanges(trace_);
  EXPECT_EQ(at(node).phase, Phase::kBackward);
  EXPECT_EQ(at(node).sequence_number, 5);
  EXPECT_EQ(at(pyprof).phase, Phase::kBackward);
  EXPECT_EQ(str(at(pyprof).op), "MmBackward");
}

TEST_F(RangeNormaliserTest, PyProfOperatorMarkerGivesOpShapesAndDtypes) {
  const std::size_t op = add(
      "{'mod': 'torch.nn.functional', 'op': 'linear', 'args': [{'name': '', 'type': 'tensor', 'shape': (35, 20, 200), "
      "'dtype': 'float32'}, {'name': '', 'type': 'tensor', 'shape': (33278, 200), 'dtype': 'float32'}]}");
  normaliseRanges(trace_);
  EXPECT_EQ(at(op).kind, RangeKind::kOperator);
  EXPECT_EQ(at(op).text_form, RangeTextForm::kPyProfOperator);
  EXPECT_EQ(str(at(op).op), "torch.nn.functional.linear");
  EXPECT_EQ(str(at(op).shapes), "[[35,20,200],[33278,200]]");
  EXPECT_EQ(str(at(op).dtypes), "[\"float32\",\"float32\"]");
  EXPECT_EQ(str(at(op).arguments), R"(["",""])");
  EXPECT_TRUE(isTensorCoreEligibleOp(opName(trace_, at(op))));
}

TEST_F(RangeNormaliserTest, PyProfOperatorMarkerGivesTheArgumentValues) {
  const std::size_t op = add(
      "{'mod': 'torch.nn.functional', 'op': 'conv2d', 'args': [{'name': '', 'type': 'tensor', 'shape': (8, 64, 56, 56), "
      "'dtype': 'float16'}, {'name': '', 'type': 'tensor', 'shape': (128, 64, 3, 3), 'dtype': 'float16'}, {'name': '', "
      "'type': 'NoneType', 'value': None}, {'name': '', 'type': 'tuple', 'value': (2, 2)}, {'name': '', 'type': 'tuple', "
      "'value': (1, 1)}, {'name': '', 'type': 'tuple', 'value': (1, 1)}, {'name': '', 'type': 'int', 'value': 1}]}");
  normaliseRanges(trace_);
  EXPECT_EQ(str(at(op).op), "torch.nn.functional.conv2d");
  EXPECT_EQ(str(at(op).arguments), R"(["","","","[2, 2]","[1, 1]","[1, 1]","1"])");
}

TEST_F(RangeNormaliserTest, RecordedArgumentsAndDtypesAreReadOnceIntoTheTracesValues) {
  // Kineto operators as the importer leaves them: the arguments and dtypes as recorded text.
  const auto op = [&](std::string_view name, std::string_view arguments, std::string_view dtypes) {
    const std::size_t i = add(name, RangeKind::kOperator);
    trace_.ranges[i].arguments = trace_.strings.intern(arguments);
    trace_.ranges[i].dtypes = trace_.strings.intern(dtypes);
    return i;
  };
  const std::size_t conv = op("aten::conv2d", R"(["","","","[2, 2]","[3, 3]","[1, 1]","1"])", R"(["float","float",""])");
  const std::size_t again = op("aten::conv2d", R"(["","","","[2, 2]","[3, 3]","[1, 1]","1"])", R"(["float","float",""])");
  const std::size_t sdpa = op("aten::scaled_dot_product_attention", R"(["","","","","0.0","True"])",
                              R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","","Scalar","Scalar"])");
  const std::size_t relu = add("aten::relu", RangeKind::kOperator);
  normaliseRanges(trace_);
  const trace::RangeValues& values = trace_.range_values;
  const trace::RangeArguments& conv_arguments = values.arguments(at(conv).arguments);
  ASSERT_EQ(conv_arguments.values.size(), 7u);
  EXPECT_EQ(conv_arguments.at(3).integers, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(conv_arguments.at(6).integer(), 1);
  EXPECT_EQ(&values.arguments(at(again).arguments), &conv_arguments);  // one string, read once
  EXPECT_EQ(values.dtypes(at(conv).dtypes).element_bytes, (std::vector<std::uint8_t>{4, 4, 0}));
  EXPECT_EQ(values.arguments(at(sdpa).arguments).at(5).flag, true);
  EXPECT_EQ(values.dtypes(at(sdpa).dtypes).elementBytes(0), 2);
  // A range that recorded none reads as having none.
  EXPECT_TRUE(values.arguments(at(relu).arguments).values.empty());
  EXPECT_TRUE(values.dtypes(at(relu).dtypes).names.empty());
  // The text stays what the file said; reading it again changes nothing.
  EXPECT_EQ(str(at(conv).arguments), R"(["","","","[2, 2]","[3, 3]","[1, 1]","1"])");
  const trace::RangeArguments before = conv_arguments;
  normaliseRanges(trace_);
  EXPECT_EQ(values.arguments(at(conv).arguments), before);
}

TEST_F(RangeNormaliserTest, TextFormsThatCarryArgumentsHaveThemRead) {
  // PyProf's marker and the trainer's text become the same argument values as Kineto's.
  const std::size_t pyprof = add(
      "{'mod': 'torch.nn.functional', 'op': 'conv2d', 'args': [{'name': '', 'type': 'tensor', 'shape': (8, 64, 56, 56), "
      "'dtype': 'float16'}, {'name': '', 'type': 'tensor', 'shape': (128, 64, 3, 3), 'dtype': 'float16'}, {'name': '', "
      "'type': 'NoneType', 'value': None}, {'name': '', 'type': 'tuple', 'value': (2, 2)}, {'name': '', 'type': 'tuple', "
      "'value': (1, 1)}, {'name': '', 'type': 'tuple', 'value': (1, 1)}, {'name': '', 'type': 'int', 'value': 1}]}");
  const std::size_t trainer =
      add("conv1 conv2d forward in=[64,1,28,28] params=[[16,1,3,3],[16]] out=[64,16,14,14] dtype=float16 "
          "conv=64,1,28,28,16,3,3,2,1 gemm=12544,16,9",
          RangeKind::kAnnotation, "ampscope");
  normaliseRanges(trace_);
  ASSERT_EQ(at(pyprof).text_form, RangeTextForm::kPyProfOperator);
  const trace::RangeArguments& a = trace_.range_values.arguments(at(pyprof).arguments);
  EXPECT_EQ(a.at(3).integers, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(a.at(6).integer(), 1);
  EXPECT_EQ(trace_.range_values.dtypes(at(pyprof).dtypes).element_bytes, (std::vector<std::uint8_t>{2, 2}));
  ASSERT_EQ(at(trainer).text_form, RangeTextForm::kTrainerLayerOp);
  const trace::RangeArguments& t = trace_.range_values.arguments(at(trainer).arguments);
  EXPECT_EQ(t.at(3).integers, (std::vector<std::int64_t>{2, 2}));  // stride
  EXPECT_EQ(t.at(4).integers, (std::vector<std::int64_t>{1, 1}));  // padding
  EXPECT_EQ(trace_.range_values.dtypes(at(trainer).dtypes).elementBytes(0), 2);
}

TEST_F(RangeNormaliserTest, PyProfCallStackGivesModulePathAndLayer) {
  const std::size_t linear = add(
      "{'traceMarker': ['net.py:40'], 'funcStack': '/dummy_network::forward/Linear::_call_impl[4]/Linear::forward/linear'}");
  const std::size_t conv = add(
      "{'traceMarker': ['net.py:31'], 'funcStack': '/dummy_network::forward/Conv2d::_call_impl/Conv2d::forward/"
      "Conv2d::_conv_forward/conv2d'}");
  const std::size_t top = add("{'traceMarker': ['net.py:50'], 'funcStack': '/train::step/dummy_network::forward/flatten'}");
  normaliseRanges(trace_);
  EXPECT_EQ(at(linear).text_form, RangeTextForm::kPyProfCallStack);
  EXPECT_EQ(at(linear).kind, RangeKind::kAnnotation);  // it encloses the operator; it is not one
  EXPECT_EQ(str(at(linear).layer), "dummy_network/Linear[4]");
  EXPECT_EQ(str(at(linear).module_path), "/dummy_network::forward/Linear::_call_impl[4]/Linear::forward/linear");
  EXPECT_EQ(str(at(conv).layer), "dummy_network/Conv2d");
  EXPECT_EQ(str(at(top).layer), "dummy_network");
}

TEST_F(RangeNormaliserTest, PyProfModuleMarkerNamesTheModuleClassWhereNoStackNamesTheInstance) {
  const std::size_t lstm = add("{'mod': 'LSTM', 'strRepr': '200, 200, num_layers=2'}");
  normaliseRanges(trace_);
  EXPECT_EQ(at(lstm).text_form, RangeTextForm::kPyProfModule);
  EXPECT_EQ(str(at(lstm).layer), "LSTM");
  EXPECT_EQ(at(lstm).op, trace::StringTable::kEmpty);
}

TEST_F(RangeNormaliserTest, TrainerLayerOpTextGivesLayerOpPassAndShapes) {
  const std::size_t op = add(
      "fc1 linear forward in=[64,784] params=[[100,784],[100]] out=[64,100] dtype=float16", RangeKind::kAnnotation,
      "ampscope");
  normaliseRanges(trace_);
  EXPECT_EQ(at(op).text_form, RangeTextForm::kTrainerLayerOp);
  EXPECT_EQ(str(at(op).layer), "fc1");
  EXPECT_EQ(str(at(op).op), "linear");
  EXPECT_EQ(at(op).phase, Phase::kForward);
  EXPECT_EQ(operatorLabel(trace_, at(op)), "fc1 linear forward");
}

TEST_F(RangeNormaliserTest, KinetoOperatorsKeepTheirNameAndReadTheModuleHierarchy) {
  const std::size_t conv = add("aten::conv2d", RangeKind::kOperator);
  trace_.ranges[conv].module_path =
      trace_.strings.intern("TOP(ResNet)::forward.SELF(ResNet)::_forward_impl.layer1(Sequential)::forward."
                            "0(Bottleneck)::forward.conv1(Conv2d)::forward");
  const std::size_t step = add("ProfilerStep#3", RangeKind::kOperator);
  const std::size_t frame = add("nn.Module: Conv2d_0", RangeKind::kPython);
  normaliseRanges(trace_);
  EXPECT_EQ(at(conv).text_form, RangeTextForm::kFrameworkOperator);
  EXPECT_EQ(str(at(conv).op), "aten::conv2d");
  EXPECT_EQ(str(at(conv).layer), "layer1.0.conv1");
  EXPECT_EQ(at(step).phase, Phase::kStep);
  EXPECT_EQ(at(frame).text_form, RangeTextForm::kModuleFrame);
  EXPECT_EQ(str(at(frame).layer), "Conv2d_0");
}

TEST_F(RangeNormaliserTest, ModuleRangesPushedAsNvtxNameTheirInstance) {
  const std::size_t first = add("nn.Module: Linear_0");
  const std::size_t second = add("nn.Module: Linear_1");
  normaliseRanges(trace_);
  EXPECT_EQ(at(first).text_form, RangeTextForm::kModuleFrame);
  EXPECT_EQ(at(first).kind, RangeKind::kAnnotation);
  EXPECT_EQ(str(at(first).layer), "Linear_0");
  EXPECT_EQ(str(at(second).layer), "Linear_1");
}

TEST_F(RangeNormaliserTest, PlainTextStaysAnAnnotationWithThePhaseItsNameSays) {
  const std::size_t data = add("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  const std::size_t user = add("my block");
  normaliseRanges(trace_);
  EXPECT_EQ(at(user).kind, RangeKind::kAnnotation);
  EXPECT_EQ(at(user).text_form, RangeTextForm::kPlain);
  EXPECT_EQ(at(user).op, trace::StringTable::kEmpty);
  EXPECT_EQ(at(data).phase, Phase::kData);
}

TEST_F(RangeNormaliserTest, NormalisingTwiceChangesNothing) {
  add("aten::mm, op_id = 4, sizes = [[2, 3], [3, 4]]");
  add("{'traceMarker': [], 'funcStack': '/Net::forward/Linear::forward'}");
  add("fc1 linear forward in=[64,784", RangeKind::kAnnotation, "ampscope");
  add("aten::relu", RangeKind::kOperator);
  normaliseRanges(trace_);
  const trace::Trace once = trace_;
  normaliseRanges(trace_);
  EXPECT_EQ(trace_.ranges, once.ranges);
  EXPECT_EQ(trace_.import_stats, once.import_stats);
}

TEST_F(RangeNormaliserTest, RangesReadInPartsSideBySideGiveTheTraceReadOneByOne) {
  // Every text form, in an order that makes later parts meet strings earlier parts add first (and
  // the other way round), with strings the trace already has: the strings must be numbered as a
  // one-by-one reading numbers them, and every field must be the same.
  for (int i = 0; i < 60000; ++i) {
    const int n = (i * 7919) % 60000;
    switch (i % 9) {
      case 0: add("aten::mm, op_id = " + std::to_string(n) + ", sizes = [[" + std::to_string(n % 13) + ", 3]]"); break;
      case 1: add("aten::addmm_" + std::to_string(n % 97) + ", seq = " + std::to_string(n)); break;
      case 2: add("{'traceMarker': [], 'funcStack': '/Net::forward/Linear::_call_impl[" + std::to_string(n % 31) +
                  "]/Linear::forward/linear'}");
        break;
      case 3:
        add("fc" + std::to_string(n % 17) + " linear forward in=[64,784] params=[[256,784]] out=[64,256] dtype=float16",
            RangeKind::kAnnotation, "ampscope");
        break;
      case 4: add("nn.Module: Linear_" + std::to_string(n % 23)); break;
      case 5: add("aten::relu", RangeKind::kOperator); break;
      case 6: add("ProfilerStep#" + std::to_string(n % 5)); break;
      case 7: add("fc linear forward in=[64", RangeKind::kAnnotation, "ampscope"); break;  // not understood
      default: add("my block " + std::to_string(n % 11)); break;
    }
  }
  trace::Trace one_by_one = trace_;
  normaliseRanges(one_by_one, 1);
  for (unsigned threads : {2u, 3u, 8u}) {
    trace::Trace in_parts = trace_;
    normaliseRanges(in_parts, threads);
    ASSERT_EQ(in_parts.strings.size(), one_by_one.strings.size()) << threads << " threads";
    for (trace::StringId id = 0; id < one_by_one.strings.size(); ++id) {
      ASSERT_EQ(in_parts.str(id), one_by_one.str(id)) << "string " << id << ", " << threads << " threads";
    }
    EXPECT_EQ(in_parts.ranges, one_by_one.ranges) << threads << " threads";
    EXPECT_EQ(in_parts.import_stats, one_by_one.import_stats) << threads << " threads";
    for (const trace::Range& r : one_by_one.ranges) {
      ASSERT_EQ(in_parts.range_values.dtypes(r.dtypes), one_by_one.range_values.dtypes(r.dtypes));
      ASSERT_EQ(in_parts.range_values.arguments(r.arguments), one_by_one.range_values.arguments(r.arguments));
    }
  }
  EXPECT_EQ(one_by_one.import_stats.not_understood.size(), 1u);
}

TEST(StepNumberFromNameTest, StepMarkersCarryTheirNumber) {
  EXPECT_EQ(stepNumberFromName("ProfilerStep#12"), 12);
  EXPECT_EQ(stepNumberFromName("step 7"), 7);
  EXPECT_EQ(stepNumberFromName("ProfilerStep#"), -1);
  EXPECT_EQ(stepNumberFromName("step 7x"), -1);
  EXPECT_EQ(stepNumberFromName("aten::mm"), -1);
}

TEST(LayerFromFunctionStackTest, TheModuleInstancesOnTheStackNameTheLayer) {
  EXPECT_EQ(layerFromFunctionStack("/Net::forward/Linear::_call_impl[4]/Linear::forward/linear"), "Net/Linear[4]");
  EXPECT_EQ(layerFromFunctionStack("/Net::forward/Block::forward(2)/LayerNorm::forward/layer_norm"),
            "Net/Block(2)/LayerNorm");
  EXPECT_EQ(layerFromFunctionStack("/train::step/Net::forward/flatten"), "Net");
  EXPECT_EQ(layerFromFunctionStack("/main/train/step"), "");
  EXPECT_EQ(layerFromFunctionStack(""), "");
}

// DLProf's funcStack: a second call site of a frame name in one parent gets a suffix, so two
// Conv2d modules of one network are two layers (DLProf's report: CONV2D_1, CONV2D_2), and a
// module entered again inside one of its own class (nested Sequentials) is another instance.
TEST(LayerFromFunctionStackTest, InstancesOfOneClassAreApartByTheirCallSuffix) {
  const std::string first = layerFromFunctionStack(
      "/Net::forward/Conv2d::_call_impl/Conv2d::forward/Conv2d::_conv_forward/conv2d");
  const std::string second = layerFromFunctionStack(
      "/Net::forward/Conv2d::_call_impl[2]/Conv2d::forward/Conv2d::_conv_forward/conv2d");
  EXPECT_EQ(first, "Net/Conv2d");
  EXPECT_EQ(second, "Net/Conv2d[2]");
  EXPECT_EQ(layerFromFunctionStack("/Net::forward/Linear::_call_impl(3)/Linear::forward/linear"), "Net/Linear(3)");
  EXPECT_EQ(layerFromFunctionStack(
                "/Net::forward/Sequential::_call_impl/Sequential::forward/Sequential::_call_impl(2)/Sequential::forward/"
                "ReLU::_call_impl/ReLU::forward/relu"),
            "Net/Sequential/Sequential(2)/ReLU");
}

TEST(LayerFromModuleHierarchyTest, InstanceNamesBelowTheTop) {
  EXPECT_EQ(layerFromModuleHierarchy("TOP(Net)::forward.fc(Linear)::forward"), "fc");
  EXPECT_EQ(layerFromModuleHierarchy("TOP(__torch__.models.Net)::forward"), "Net");
  EXPECT_EQ(layerFromModuleHierarchy("TOP(Net)::forward.SELF(Net)::helper"), "Net");
  EXPECT_EQ(layerFromModuleHierarchy(""), "");
}

}  // namespace
}  // namespace ampscope::analyzer::import
