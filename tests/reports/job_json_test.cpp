#include "reports/job_json.h"

#include <gtest/gtest.h>

#include <limits>

#include "reports/enum_values.h"
#include "reports/report_json.h"

namespace ampscope::reports {
namespace {

// The map step's output read back is the same rank, to the nanosecond and the byte: merge depends
// on it. Extremes included (the latest time accepted, 2^62 ns; unknown pid; counts past 2^53).
TEST(JobJsonTest, ARankResultSurvivesJsonExactly) {
  analyzer::RankResult rank;
  rank.rank = 5;
  rank.origin = analyzer::RankOrigin::kProcess;
  rank.recorded_world_size = 16;
  rank.backend = "nccl";
  rank.source = "run.sqlite (process 4242)";
  rank.file = "run.sqlite";
  rank.pid = trace::kUnknownPid;
  rank.device = "NVIDIA H100 80GB HBM3 (device 5)";
  rank.clock = std::string(analyzer::kUnixEpochClock);
  rank.steps_source = "step ranges (ProfilerStep#N)";
  rank.steps.push_back({.number = 7, .start_ns = 1'694'128'201'426'674'123, .end_ns = 1'694'128'201'441'129'999,
                        .warmup = true, .whole_window = false, .compute_ns = 3, .communication_ns = 4,
                        .exposed_communication_ns = 2, .data_ns = 1, .idle_ns = 9});
  rank.collectives.push_back({.kind = analyzer::CollectiveKind::kReduceScatter, .element = analyzer::MathPrecision::kBf16,
                              .name = "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL", .calls = 3, .time_ns = 99,
                              .calls_with_bytes = 2, .bytes = (std::uint64_t{1} << 60) + 1, .time_with_bytes_ns = 50,
                              .algbw_gbps = std::nullopt, .busbw_gbps = std::nullopt});
  rank.calls.push_back({analyzer::CollectiveKind::kReduceScatter, (std::int64_t{1} << 62) - 10, std::int64_t{1} << 62,
                        "3"});
  const std::string text = formatJsonDocument(nlohmann::ordered_json{{"rank_result", rankResultToJson(rank)}});
  auto back = rankResultsFromDocument(text, "r.json");
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ(back->front(), rank);
}

// A rank's findings and tables, every field set away from its default, with numbers that JSON
// must carry to the last bit (a third, 0.1, a subnormal, 2^53 + 2, a FLOP count past 2^64).
analyzer::RankResult rankWithFindings() {
  analyzer::RankResult rank;
  rank.rank = 1;
  rank.origin = analyzer::RankOrigin::kDistributedInfo;
  rank.source = rank.file = "rank1.json";
  rank.clock = std::string(analyzer::kUnixEpochClock);
  analyzer::RankFindings& f = rank.findings;
  f.tensor_core_share = 1.0 / 3.0;
  f.tensor_core_unknown_share = 0.1;
  f.amp_projected_speedup = 1.0137764571128303;
  f.amp_reachable_speedup = 1.0 + 1e-15;
  f.amp_ceiling = 4.9e-324;
  f.amp_per_step = false;
  f.memory_peak_allocated_bytes = 2'791'636'480;
  f.memory_amp_projected_peak_bytes = 1'449'000'000;
  f.amp_device = "H100 SXM";
  f.amp_note = "no steps found: projected over the trace's 960.5 ms of GPU work";
  f.tf32_projected_speedup = 2.0;
  f.tf32_matrix_speedup = 3.8428;
  analyzer::Recommendation rec;
  rec.rule = "enable-amp";
  rec.severity = analyzer::Severity::kMedium;
  rec.target = "model";
  rec.evidence = "9.969 ms \"FP32\" on CUDA cores\n";
  rec.action = "autocast";
  rec.estimated_gain_ns = 13'052'266;
  rec.estimated_gain_pct = 1.3463895873469218;
  f.recommendations = {rec, rec};
  f.recommendations[1].rule = "enable-tf32";
  f.recommendations[1].severity = analyzer::Severity::kInfo;

  analyzer::RankTables& t = rank.tables;
  t.recorded_on_cpu = true;
  t.layers_are_operators = true;
  const analyzer::RowPerformance perf{.flops = 1.8446744073709552e19 * 3, .bytes = 123456789.0,
                                      .work_known_share = 0.75, .achieved_tflops = 12.345678901234567,
                                      .peak_tflops = 67.0, .bound = analyzer::RooflineBound::kMemory,
                                      .predicted_amp_ns = std::int64_t{1} << 53};
  t.kernels.push_back({.name = "volta_sgemm_128x64_nn", .calls = (std::uint64_t{1} << 53) + 2, .time_ns = 15546072,
                       .tensor_core = analyzer::TensorCoreUse::kHost,
                       .precision = analyzer::MathPrecision::kBf16, .rule = "xmma-ffma-fp32",
                       .confidence = analyzer::Confidence::kMedium, .alignment = 8, .performance = perf});
  t.kernels.push_back({.name = "k2", .calls = 1, .time_ns = 2,
                       .tensor_core = analyzer::TensorCoreUse::kUnknown, .precision = analyzer::MathPrecision::kUnknown,
                       .rule = "", .confidence = analyzer::Confidence::kLow, .alignment = 0, .performance = {}});
  t.layers.push_back({.layer = "decoder",
                      .pass = trace::Phase::kBackward,
                      .ops = {"aten::linear", "aten::add"},
                      .calls = 3,
                      .time_ns = 9,
                      .tensor_core_time_ns = 4,
                      .eligible = true,
                      .precision = analyzer::MathPrecision::kFp32Simt,
                      .shapes = {"[[4096, 1024], [33278, 1024]]"},
                      .violations = {{.misaligned = {{.dimension = "N", .value = 33278, .padded = 33280},
                                                     {.dimension = "K", .value = 1023, .padded = 1024}},
                                      .required_multiple = 8}},
                      .state = analyzer::LayerState::kEligibleNotTensorCore,
                      .performance = perf,
                      .what_if_fp32_ns = 0.1,
                      .what_if_amp_ns = std::nullopt,
                      .what_if_padding_cost_ns = 2.5});
  t.ops.push_back({.op = "aten::mm", .shapes = "[[4096, 1024], [1024, 33278]]", .arguments = "[\"1\"]",
                   .layer = "decoder", .pass = trace::Phase::kForward, .op_class = analyzer::OpClass::kMatrix,
                   .calls = 66, .kernels = 122, .time_ns = 9916911, .precision = analyzer::MathPrecision::kFp32Simt,
                   .flops_per_call = 2.0 * 4096 * 1024 * 33278, .bytes_per_call = std::nullopt,
                   .work_basis = analyzer::WorkBasis::kConsumerInput, .work_note = "note",
                   .gemm = analyzer::GemmLine{.m = 4096, .n = 33278, .k = 1024, .batch = 2},
                   .achieved_tflops = 0.1 + 0.2, .achieved_gbs = 1e300, .peak_tflops = 67.0, .intensity = 1e-7,
                   .bound = analyzer::RooflineBound::kLatency, .rate_note = "rate",
                   .amp = analyzer::AmpChange::kTensorCoresUnknownWork, .predicted_amp_ns = 1824790,
                   .amp_speedup = 5.4345, .tf32_speedup = 3.8428, .amp_note = "amp"});
  t.ops.push_back({});
  return rank;
}

TEST(JobJsonTest, ARanksFindingsAndTablesSurviveJsonExactly) {
  const analyzer::RankResult rank = rankWithFindings();
  const std::string text = formatJsonDocument(nlohmann::ordered_json{{"rank_result", rankResultToJson(rank)}});
  auto back = rankResultsFromDocument(text, "r.json");
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ(back->front().findings, rank.findings);
  EXPECT_EQ(back->front().tables, rank.tables);
  EXPECT_EQ(back->front(), rank);
  // And written again, the same text: merge of a merge is the same document.
  EXPECT_EQ(formatJsonDocument(nlohmann::ordered_json{{"rank_result", rankResultToJson(back->front())}}), text);
}

// Every value of each enum a result holds reads back as itself (a value missing from
// reports/enum_values.h would be refused).
TEST(JobJsonTest, EveryEnumValueOfATableRowReadsBack) {
  analyzer::RankResult rank = rankWithFindings();
  // A default row with one member set.
  const auto with = [](auto row, auto member, auto value) {
    row.*member = value;
    return row;
  };
  using analyzer::KernelLine;
  using analyzer::LayerLine;
  using analyzer::OpLine;
  for (auto p : enum_values::kPrecisions) rank.tables.kernels.push_back(with(KernelLine{}, &KernelLine::precision, p));
  for (auto c : enum_values::kConfidences) rank.tables.kernels.push_back(with(KernelLine{}, &KernelLine::confidence, c));
  for (auto u : enum_values::kTensorCoreUses) rank.tables.kernels.push_back(with(KernelLine{}, &KernelLine::tensor_core, u));
  for (auto b : enum_values::kBounds) rank.tables.ops.push_back(with(OpLine{}, &OpLine::bound, b));
  for (auto c : enum_values::kOpClasses) rank.tables.ops.push_back(with(OpLine{}, &OpLine::op_class, c));
  for (auto w : enum_values::kWorkBases) rank.tables.ops.push_back(with(OpLine{}, &OpLine::work_basis, w));
  for (auto a : enum_values::kAmpChanges) rank.tables.ops.push_back(with(OpLine{}, &OpLine::amp, a));
  for (auto p : enum_values::kPhases) rank.tables.layers.push_back(with(LayerLine{}, &LayerLine::pass, p));
  for (auto l : enum_values::kLayerStates) rank.tables.layers.push_back(with(LayerLine{}, &LayerLine::state, l));
  for (auto v : enum_values::kSeverities) {
    rank.findings.recommendations.push_back(with(analyzer::Recommendation{}, &analyzer::Recommendation::severity, v));
  }
  auto back = rankResultsFromDocument(formatJsonDocument({{"rank_result", rankResultToJson(rank)}}), "r.json");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->front(), rank);
}

// A result written before ranks carried their findings and tables is read without them; a
// value of the wrong kind in them is still an error naming its key.
TEST(JobJsonTest, AResultWithoutFindingsIsReadWithoutThemAndABadOneRefusedNamingTheKey) {
  nlohmann::ordered_json doc = rankResultToJson(rankWithFindings());
  doc.erase("findings");
  doc.erase("tables");
  auto back = rankResultsFromDocument(formatJsonDocument({{"rank_result", doc}}), "old.json");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(back->front().findings.recommendations.empty());
  EXPECT_TRUE(back->front().tables.ops.empty());
  doc = rankResultToJson(rankWithFindings());
  doc["tables"]["ops"][0]["amp_speedup"] = "fast";
  back = rankResultsFromDocument(formatJsonDocument({{"rank_result", doc}}), "bad.json");
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().message, "bad.json: rank_result.tables.ops[0].amp_speedup is not a number");
}

// Every key written is read back: a result missing any one of them is refused naming it, save
// those that results of earlier versions lack.
TEST(JobJsonTest, EveryKeyWrittenIsReadBack) {
  const nlohmann::ordered_json written = rankResultToJson(rankWithFindings());
  std::vector<nlohmann::json::json_pointer> keys;
  const auto collect = [&](const auto& self, const nlohmann::ordered_json& value, const nlohmann::json::json_pointer& at) -> void {
    if (value.is_object()) {
      for (const auto& [key, member] : value.items()) {
        keys.push_back(at / key);
        self(self, member, at / key);
      }
    } else if (value.is_array()) {
      for (std::size_t i = 0; i < value.size(); ++i) self(self, value[i], at / i);
    }
  };
  collect(collect, written, nlohmann::json::json_pointer());
  ASSERT_GT(keys.size(), 100u);
  for (const auto& key : keys) {
    nlohmann::json doc = written;
    doc[key.parent_pointer()].erase(key.back());
    auto back = rankResultsFromDocument(formatJsonDocument({{"rank_result", doc}}), "r.json");
    const std::string name = key.to_string();
    // Members added later (kAddedLater) may be absent: results written before them still read.
    const bool measured = key.back() == "measured_tensor_active" || key.back() == "measured_tensor_ns";
    if (name == "/findings" || name == "/tables" || name == "/findings/memory_peak_allocated_bytes" ||
        name == "/findings/memory_amp_projected_peak_bytes" || measured) {
      EXPECT_TRUE(back) << key.to_string();
    } else {
      ASSERT_FALSE(back) << key.to_string() << " is written but not read";
      EXPECT_NE(back.error().message.find(key.back() + " is missing"), std::string::npos) << back.error().message;
    }
  }
}

// A host op is "tensor_core": "host"; results written before the verdict had that value said it
// with "host": true beside "not_tensor_core", and read the same.
TEST(JobJsonTest, AHostOpIsItsVerdictAndAnOlderResultsHostFlagReadsAsIt) {
  const analyzer::RankResult rank = rankWithFindings();
  nlohmann::ordered_json doc = rankResultToJson(rank);
  nlohmann::ordered_json& kernel = doc["tables"]["kernels"][0];
  EXPECT_EQ(kernel["tensor_core"], "host");
  EXPECT_FALSE(kernel.contains("host"));
  kernel["tensor_core"] = "not_tensor_core";
  kernel["host"] = true;
  doc["tables"]["kernels"][1]["host"] = false;
  auto back = rankResultsFromDocument(formatJsonDocument({{"rank_result", doc}}), "old.json");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->front().tables.kernels, rank.tables.kernels);
}

TEST(JobJsonTest, AbsurdTimesAreRefusedWithTheirPlace) {
  const std::string text = R"({"rank_result": {"rank": 0, "origin": "distributed_info", "recorded_world_size": 2,
      "backend": "", "source": "x", "file": "x", "pid": 1, "device": "d", "clock": "unix-epoch", "steps_source": "",
      "steps": [], "collectives": [], "calls": [["all_reduce", 9223372036854775000, 9223372036854775807]]}})";
  auto back = rankResultsFromDocument(text, "r.json");
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().message, "r.json: rank_result.calls[0].start_ns is 9223372036854775000, beyond 2^62 ns");
}

TEST(JobJsonTest, AnIntegerBeyondItsTypeIsRefused) {
  const std::string text = R"({"rank_result": {"rank": 0, "origin": "distributed_info", "recorded_world_size": 2,
      "backend": "", "source": "x", "file": "x", "pid": 9223372036854775808, "device": "d", "clock": "unix-epoch",
      "steps_source": "", "steps": [], "collectives": [], "calls": []}})";
  auto back = rankResultsFromDocument(text, "r.json");
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().message, "r.json: rank_result.pid is out of range");
}

TEST(JobJsonTest, AnUnknownKindIsNamedWithItsPlace) {
  const std::string text = R"({"rank_result": {"rank": 0, "origin": "distributed_info", "recorded_world_size": 2,
      "backend": "", "source": "x", "file": "x", "pid": 1, "device": "d", "clock": "unix-epoch", "steps_source": "",
      "steps": [], "collectives": [], "calls": [["all_reduce", 1, 2], ["teleport", 3, 4]]}})";
  auto back = rankResultsFromDocument(text, "r.json");
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().message, "r.json: rank_result.calls[1].kind is \"teleport\", not a value ampscope writes");
}

}  // namespace
}  // namespace ampscope::reports
