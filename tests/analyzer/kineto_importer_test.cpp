// The Kineto importer on small traces written by the test: what it keeps of an operator event's
// args. (Real traces: shared_traces_test.cpp.)

#include "analyzer/import/kineto/kineto_importer.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "../test_support.h"
#include "analyzer/import/trace_importer.h"

namespace ampscope::analyzer::import {
namespace {

trace::Result<trace::Trace> importText(const test::ScratchDir& dir, const std::string& json) {
  return importTrace(dir.write("trace.json", json));
}

const trace::Range* rangeNamed(const trace::Trace& trace, std::string_view name) {
  for (const trace::Range& range : trace.ranges) {
    if (trace.str(range.name) == name) return &range;
  }
  return nullptr;
}

// As PyTorch 2.x writes operator events: "Concrete Inputs" holds one string per argument.
constexpr const char* kConvTrace = R"({"schemaVersion": 1, "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 7, "tid": 7, "ts": 100.0, "dur": 50.5,
   "args": {"External id": 3, "Record function id": 0,
            "Input Dims": [[8, 3, 224, 224], [64, 3, 7, 7], [64], [], [], [], []],
            "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "ScalarList", "ScalarList", "ScalarList", "Scalar"],
            "Input Strides": [[150528, 50176, 224, 1], [147, 49, 7, 1], [1], [], [], [], []],
            "Concrete Inputs": ["", "", "", "[2, 2]", "[3, 3]", "[1, 1]", "1"],
            "Ev Idx": 2}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::scaled_dot_product_attention", "pid": 7, "tid": 7, "ts": 200.0, "dur": 10,
   "args": {"Input Dims": [[1, 12, 196, 64], [1, 12, 196, 64], [1, 12, 196, 64], [], [], []],
            "Concrete Inputs": ["", "", "", "", "0.", "True"]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 7, "tid": 7, "ts": 300.0, "dur": 5,
   "args": {"Input Dims": [[8, 64, 112, 112]], "Input type": ["c10::BFloat16"]}}
]})";

TEST(KinetoImporterTest, ConcreteInputsBecomeTheArgumentsAsCompactJson) {
  test::ScratchDir dir;
  auto trace = importText(dir, kConvTrace);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const trace::Range* conv = rangeNamed(*trace, "aten::conv2d");
  ASSERT_NE(conv, nullptr);
  // Whitespace between the strings goes; inside them ("[2, 2]") it is part of the value.
  EXPECT_EQ(trace->str(conv->arguments), R"(["","","","[2, 2]","[3, 3]","[1, 1]","1"])");
  EXPECT_EQ(trace->str(conv->shapes), "[[8,3,224,224],[64,3,7,7],[64],[],[],[],[]]");
  const trace::Range* attention = rangeNamed(*trace, "aten::scaled_dot_product_attention");
  ASSERT_NE(attention, nullptr);
  EXPECT_EQ(trace->str(attention->arguments), R"(["","","","","0.","True"])");
}

TEST(KinetoImporterTest, OperatorWithoutConcreteInputsHasNoArguments) {
  test::ScratchDir dir;
  auto trace = importText(dir, kConvTrace);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const trace::Range* relu = rangeNamed(*trace, "aten::relu");
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(relu->arguments, trace::StringTable::kEmpty);
  EXPECT_EQ(trace->str(relu->dtypes), R"(["c10::BFloat16"])");
}

TEST(KinetoImporterTest, ConcreteInputsThatAreNoArrayAreCountedAndTheOpKept) {
  test::ScratchDir dir;
  const std::string json = R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 1, "tid": 1, "ts": 1, "dur": 1,
     "args": {"Concrete Inputs": "[2, 2]", "Input Dims": [[1, 2]]}}]})";
  auto trace = importText(dir, json);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_EQ(trace->ranges.size(), 1u);
  EXPECT_EQ(trace->ranges[0].arguments, trace::StringTable::kEmpty);
  EXPECT_EQ(trace->str(trace->ranges[0].shapes), "[[1,2]]");
  const std::string reason =
      "args.\"Concrete Inputs\" holding a value of another type than documented (the value is left out, the event kept)";
  EXPECT_EQ(trace->import_stats.not_understood.at(reason), 1u);
  EXPECT_EQ(trace->import_stats.first_place.at(reason),
            fmt::format("traceEvents element at byte offset {}", json.find("{\"ph\"")));
}

// Found by the kineto fuzz harness: ts and dur each fit 64-bit nanoseconds, their sum (the end)
// did not, and overflowed. Such an event cannot be placed in time: it is counted and left out.
TEST(KinetoImporterTest, AnEventEndingPastTheLargestTimestampIsCountedAndLeftOut) {
  test::ScratchDir dir;
  auto trace = importText(dir, R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 9000000000000000,
     "dur": 9000000000000000, "args": {"device": 0, "stream": 7, "correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 5, "dur": -1},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 5, "dur": 2}]})");
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  EXPECT_EQ(trace->kernels.size(), 1u);
  EXPECT_EQ(trace->import_stats.not_understood.at("'kernel' events ending past the largest timestamp (left out)"), 1u);
  EXPECT_EQ(trace->import_stats.not_understood.at("'kernel' events with a negative \"dur\" (left out)"), 1u);
}

// Found by the kineto fuzz harness: an integer field holding 2.2e60 was converted to 64 bits,
// which is undefined behaviour; now such a value is counted and left out, as is a pid beyond 2^63.
TEST(KinetoImporterTest, IntegerFieldsBeyond64BitsAreCountedAndLeftOut) {
  test::ScratchDir dir;
  auto trace = importText(dir, R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1,
     "args": {"device": 0, "stream": 7, "correlation": 2.2e60}},
    {"ph": "X", "cat": "cpu_op", "name": "op", "pid": -1e19, "tid": 7, "ts": 1, "dur": 1}]})");
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_EQ(trace->kernels.size(), 1u);
  EXPECT_EQ(trace->kernels[0].correlation_id, 0u);
  ASSERT_EQ(trace->ranges.size(), 1u);
  const auto& stats = trace->import_stats.not_understood;
  EXPECT_EQ(stats.at("args.\"correlation\" holding a number out of range (the value is left out, the event kept)"), 1u);
  EXPECT_EQ(stats.at("\"pid\" holding a number out of range (the value is left out, the event kept)"), 1u);
}

// Recording tools write numbers as strings: ROCm's hipMemcpy events ("bytes": "616", "stream":
// "0x0"), timestamps in quotes.
TEST(KinetoImporterTest, NumbersWrittenAsStringsAreReadAsNumbers) {
  test::ScratchDir dir;
  auto trace = importText(dir, R"({"traceEvents": [
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": "12.5", "dur": "3",
     "args": {"device": "0", "stream": "0x1f", "correlation": " 42 ", "bytes": "616"}},
    {"ph": "X", "cat": "cuda_runtime", "name": "hipMemcpyWithStream", "pid": 1, "tid": 1, "ts": 10, "dur": 2,
     "args": {"correlation": "42", "stream": "0x0", "bytes": "616", "kind": "1"}}]})");
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_EQ(trace->memory_ops.size(), 1u);
  const trace::MemoryOp& copy = trace->memory_ops[0];
  EXPECT_EQ(copy.start_ns, 12500);
  EXPECT_EQ(copy.end_ns, 15500);
  EXPECT_EQ(copy.bytes, 616u);
  EXPECT_EQ(copy.stream, 31u);
  EXPECT_EQ(copy.correlation_id, 42u);
  ASSERT_EQ(trace->launches.size(), 1u);
  EXPECT_EQ(trace->launches[0].correlation_id, 42u);
  EXPECT_TRUE(trace->import_stats.not_understood.empty());
}

// Inductor's launcher ops (torch.compile) carry the Triton grid as text: "grid": "grid(100,)".
TEST(KinetoImporterTest, AGridWrittenAsTextIsCountedAndTheOpKept) {
  test::ScratchDir dir;
  auto trace = importText(dir, R"json({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "triton_poi_fused_add_cos_sin_0", "pid": 1, "tid": 1, "ts": 1, "dur": 95,
     "args": {"External id": 3, "kernel_hash": "cqaokwf2", "grid": "grid(100,)", "stream": 0}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 2, "dur": 1,
     "args": {"grid": [100, 1], "block": [1.5, 1, 1]}}]})json");
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_EQ(trace->ranges.size(), 1u);
  EXPECT_EQ(trace->str(trace->ranges[0].name), "triton_poi_fused_add_cos_sin_0");
  ASSERT_EQ(trace->kernels.size(), 1u);
  EXPECT_EQ(trace->kernels[0].grid, (std::array<std::uint32_t, 3>{100, 1, 0}));
  const auto& stats = trace->import_stats.not_understood;
  EXPECT_EQ(stats.at("args.\"grid\" holding a value of another type than documented (the value is left out, the event kept)"),
            1u);
  EXPECT_EQ(stats.at("args.\"block\" holding a value of another type than documented (the value is left out, the event kept)"),
            1u);
}

TEST(KinetoImporterTest, IntegerFieldsAreExactPastDoublePrecisionAndFractionsTruncate) {
  test::ScratchDir dir;
  // 2^53 + 1 has no double of its own; a fractional correlation id is cut to its whole part.
  auto trace = importText(dir, R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1,
     "args": {"device": 0, "stream": 7, "correlation": 9007199254740993}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 2, "dur": 1,
     "args": {"device": 0, "stream": 7.9, "correlation": 1.5e1}}]})");
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_EQ(trace->kernels.size(), 2u);
  EXPECT_EQ(trace->kernels[0].correlation_id, 9007199254740993u);
  EXPECT_EQ(trace->kernels[1].correlation_id, 15u);
  EXPECT_EQ(trace->kernels[1].stream, 7u);
}

TEST(KinetoImporterTest, ShapesWrittenAlikeOrWithOtherSpacingShareOneCompactString) {
  test::ScratchDir dir;
  auto trace = importText(dir, R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 1,
     "args": {"Input Dims": [[2, 3], [3, 4]], "Input type": ["float", "float"]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 3, "dur": 1,
     "args": {"Input Dims": [[2,3],[3,4]], "Input type": [ "float" , "float" ]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5, "dur": 1,
     "args": {"Input Dims": [[2, 3], [3, 4]], "Input type": ["float", "float"]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 7, "dur": 1,
     "args": {"Input Dims": [[2, 3], [3, 5]], "Input type": ["float", "float"]}}]})");
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_EQ(trace->ranges.size(), 4u);
  EXPECT_EQ(trace->str(trace->ranges[0].shapes), "[[2,3],[3,4]]");
  EXPECT_EQ(trace->str(trace->ranges[0].dtypes), "[\"float\",\"float\"]");
  for (std::size_t i : {1u, 2u}) {
    EXPECT_EQ(trace->ranges[i].shapes, trace->ranges[0].shapes) << i;
    EXPECT_EQ(trace->ranges[i].dtypes, trace->ranges[0].dtypes) << i;
  }
  EXPECT_EQ(trace->str(trace->ranges[3].shapes), "[[2,3],[3,5]]");
}

TEST(KinetoImporterTest, InputStridesAreKeptWithTheShapes) {
  // PyTorch 2.1 and later record each input's strides with its shapes: they tell a transposed
  // operand (here the weight of x @ W.t()) from a contiguous one.
  test::ScratchDir dir;
  auto trace = importText(dir, R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 1,
     "args": {"Input Dims": [[64, 784], [784, 256]], "Input Strides": [[784, 1], [1, 784]], "Input type": ["float", "float"]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 3, "dur": 1,
     "args": {"Input Dims": [[64, 784], [784, 256]], "Input type": ["float", "float"]}}]})");
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_EQ(trace->ranges.size(), 2u);
  EXPECT_EQ(trace->str(trace->ranges[0].strides), "[[784,1],[1,784]]");
  EXPECT_EQ(trace->ranges[1].strides, trace::StringTable::kEmpty);
}

// A Chrome trace of another tool holds trace events, none a PyTorch profiler writes: refused, naming
// what it holds, rather than read as an empty run. A session that recorded no activity is read.
TEST(KinetoImporterTest, AChromeTraceOfAnotherToolIsRefusedNamingWhatItHolds) {
  test::ScratchDir dir;
  auto other = importText(dir, R"({"traceEvents": [
    {"ph": "X", "cat": "Op", "name": "MatMul", "pid": 1, "tid": 1, "ts": 1, "dur": 4},
    {"ph": "X", "cat": "Op", "name": "Relu", "pid": 1, "tid": 1, "ts": 6, "dur": 1},
    {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "/job:localhost"}}]})");
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message.find("none of its 3 trace events is one a PyTorch profiler (Kineto) trace holds"),
            std::string::npos)
      << other.error().message;
  EXPECT_NE(other.error().message.find("2 events of category 'Op'"), std::string::npos) << other.error().message;
  auto idle = importText(dir, R"({"traceEvents": [
    {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}}]})");
  ASSERT_TRUE(idle.ok()) << idle.error().message;
  EXPECT_EQ(idle->import_stats.events_imported, 0u);
}

// PyTorch's execution trace (what param's et_replay reads) is a graph of ops without their GPU
// times: refused, saying what it is and what to record instead.
TEST(KinetoImporterTest, AnExecutionTraceIsRefusedSayingWhatItIs) {
  test::ScratchDir dir;
  auto et = importText(dir, R"({"schema": "1.0.1", "pid": 7, "start_ts": 100,
    "nodes": [{"name": "[pytorch|profiler|execution_trace|process]", "id": 1, "parent": 1, "inputs": []}]})");
  ASSERT_FALSE(et.ok());
  EXPECT_NE(et.error().message.find("without a \"traceEvents\" array (a PyTorch execution trace"), std::string::npos)
      << et.error().message;
}

}  // namespace
}  // namespace ampscope::analyzer::import
