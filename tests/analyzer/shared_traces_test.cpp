// The importers and the correlator on real traces recorded by other people's tools
// (../shared/traces, see its SOURCES.md). Expected counts are computed independently here, with a
// different JSON parser (nlohmann) or plain SQL, and compared with what ampscope reports.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>
#include <set>

#include "../test_support.h"
#include "gunzip_file.h"
#include "../trace_equality.h"
#include "analyzer/core/gemm_shapes.h"
#include "analyzer/correlate/correlator.h"
#include "analyzer/import/trace_importer.h"
#include "analyzer/summary/trace_summary.h"
#include "trace/db/profile_reader.h"
#include "trace/db/profile_writer.h"

namespace ampscope::analyzer {
namespace {

struct IndependentCounts {
  std::uint64_t kernels = 0;
  std::uint64_t kernels_with_launch = 0;
  std::uint64_t launches = 0;
  std::uint64_t ranges = 0;
  std::uint64_t memory_ops = 0;
};

IndependentCounts countKineto(const std::string& path) {
  const nlohmann::json doc = nlohmann::json::parse(test::gunzipFile(path));
  IndependentCounts counts;
  std::set<std::int64_t> launch_ids;
  std::vector<std::int64_t> kernel_ids;
  for (const auto& event : doc.at("traceEvents")) {
    if (event.value("ph", "") != "X") continue;
    const std::string cat = event.value("cat", "");
    if (cat == "kernel" || cat == "Kernel") {
      ++counts.kernels;
      kernel_ids.push_back(event.at("args").at("correlation").get<std::int64_t>());
    } else if (cat == "cuda_runtime" || cat == "Runtime" || cat == "cuda_driver") {
      ++counts.launches;
      launch_ids.insert(event.at("args").at("correlation").get<std::int64_t>());
    } else if (cat == "cpu_op" || cat == "Operator" || cat == "user_annotation" ||
               cat == "python_function" || cat == "gpu_user_annotation") {
      ++counts.ranges;
    } else if (cat == "gpu_memcpy" || cat == "Memcpy" || cat == "gpu_memset" || cat == "Memset") {
      ++counts.memory_ops;
    }
  }
  for (std::int64_t id : kernel_ids) counts.kernels_with_launch += launch_ids.count(id);
  return counts;
}

std::int64_t sqlCount(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
  std::int64_t value = -1;
  if (sqlite3_step(stmt) == SQLITE_ROW) value = sqlite3_column_int64(stmt, 0);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return value;
}

struct Imported {
  trace::Trace trace;
  CorrelationCounts counts;
};

Imported importAndCorrelate(const std::string& path) {
  auto result = import::importTrace(path);
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  Imported out{result.ok() ? std::move(result).value() : trace::Trace{}, {}};
  out.counts = correlate(out.trace);
  return out;
}

// Every attributed record's operator encloses its launch call on the launching thread: the
// attribution is by time containment, whatever Kineto's "External id" says.
void expectAttributionByContainment(const trace::Trace& trace) {
  for (const trace::Kernel& kernel : trace.kernels) {
    if (kernel.op_range == trace::kNone) continue;
    const trace::LaunchCall& launch = trace.launches[static_cast<std::size_t>(kernel.launch)];
    const trace::Range& op = trace.ranges[static_cast<std::size_t>(kernel.op_range)];
    ASSERT_EQ(op.thread, launch.thread);
    ASSERT_LE(op.start_ns, launch.start_ns);
    ASSERT_GE(op.end_ns, launch.start_ns);
  }
}

struct KinetoCase {
  const char* name;  // the test's name
  const char* file;
  std::uint64_t kernels;  // checked against the independent count too
  const char* device;
  const char* detail;
};

void PrintTo(const KinetoCase& kinetoCase, std::ostream* os) { *os << kinetoCase.file; }

class KinetoSharedTraceTest : public ::testing::TestWithParam<KinetoCase> {};

TEST_P(KinetoSharedTraceTest, CountsLinksAndAttributesEveryKernel) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, GetParam().file);
  const IndependentCounts expected = countKineto(path);
  const Imported imported = importAndCorrelate(path);
  const trace::Trace& trace = imported.trace;
  EXPECT_EQ(trace.format, trace::TraceFormat::kKineto);
  EXPECT_NE(trace.format_detail.find(GetParam().detail), std::string::npos) << trace.format_detail;
  EXPECT_EQ(expected.kernels, GetParam().kernels);
  EXPECT_EQ(imported.counts.kernels, expected.kernels);
  EXPECT_EQ(trace.launches.size(), expected.launches);
  EXPECT_EQ(trace.ranges.size(), expected.ranges);
  EXPECT_EQ(trace.memory_ops.size(), expected.memory_ops);
  // Every GPU event in these files carries the correlation id of a runtime or driver call.
  EXPECT_EQ(expected.kernels_with_launch, expected.kernels);
  EXPECT_EQ(imported.counts.kernels_linked_to_launch, expected.kernels_with_launch);
  // PyTorch launches every kernel of these runs from inside an aten operator (the forward
  // thread's ops, or the autograd thread's backward ops), so all are attributed.
  EXPECT_EQ(imported.counts.kernels_attributed_to_op, expected.kernels);
  EXPECT_EQ(trace.import_stats.not_understood.size(), 0u);
  expectAttributionByContainment(trace);
  bool device_found = false;
  for (const trace::Device& device : trace.devices) device_found |= trace.str(device.name) == GetParam().device;
  EXPECT_TRUE(device_found) << GetParam().device;
}

INSTANTIATE_TEST_SUITE_P(
    SharedTraces, KinetoSharedTraceTest,
    ::testing::Values(
        KinetoCase{"V100ResNetWorkers0", "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz", 8772,
                   "Tesla V100-DGXS-32GB", "2021 schema"},
        KinetoCase{"V100ResNetWorkers4", "kineto-v100-resnet50-workers4/worker0.1623212756351.pt.trace.json.gz", 8868,
                   "Tesla V100-DGXS-32GB", "2021 schema"},
        KinetoCase{"A100DlrmTf32", "kineto-a100-dlrm-tf32/control.json.gz", 8568, "NVIDIA A100-PG509-200", "2022 schema"},
        KinetoCase{"H100TimesformerBf16", "kineto-h100-timesformer-bf16/facebook_timesformer-base-finetuned-k400__1016002.json.gz",
                   446, "NVIDIA H100 80GB HBM3", "baseTimeNanoseconds"}),
    [](const ::testing::TestParamInfo<KinetoCase>& param_info) { return std::string(param_info.param.name); });

TEST(KinetoSharedTraceFactsTest, FractionalTimestampsAreOffsetByBaseTimeExactly) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(
      path, "kineto-h100-timesformer-bf16/facebook_timesformer-base-finetuned-k400__1016002.json.gz");
  const Imported imported = importAndCorrelate(path);
  // The nchwToNhwc kernel has "ts": 1420179707342.621 and "dur": 281.343 in the file, and the
  // file's baseTimeNanoseconds is 1751410836000000000.
  bool found = false;
  for (const trace::Kernel& kernel : imported.trace.kernels) {
    if (kernel.start_ns != 1751410836000000000 + 1420179707342621) continue;
    found = true;
    EXPECT_EQ(kernel.end_ns - kernel.start_ns, 281343);
    EXPECT_NE(imported.trace.str(kernel.name).find("nchwToNhwcKernel"), std::string::npos);
  }
  EXPECT_TRUE(found);
}

TEST(KinetoSharedTraceFactsTest, H100OperatorsCarryTheirConcreteInputsAsArguments) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(
      path, "kineto-h100-timesformer-bf16/facebook_timesformer-base-finetuned-k400__1016002.json.gz");
  const Imported imported = importAndCorrelate(path);
  const trace::Trace& trace = imported.trace;
  // The patch embedding: a 16x16 convolution of stride 16, no padding. In the file:
  // "Concrete Inputs": ["", "", "", "[16, 16]", "[0, 0]", "[1, 1]", "1"].
  const trace::Range* conv = nullptr;
  for (const trace::Range& range : trace.ranges) {
    if (trace.str(range.op) == "aten::conv2d") {
      conv = &range;
      break;
    }
  }
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(trace.str(conv->arguments), R"(["","","","[16, 16]","[0, 0]","[1, 1]","1"])");
  EXPECT_EQ(trace.str(conv->shapes), "[[128,3,224,224],[768,3,16,16],[768],[],[],[],[]]");
  // Every operator of this PyTorch 2.x trace recorded them, one per input dimension entry.
  const nlohmann::json doc = nlohmann::json::parse(test::gunzipFile(path));
  std::uint64_t with_concrete_inputs = 0;
  for (const auto& event : doc.at("traceEvents")) {
    with_concrete_inputs += event.contains("args") && event.at("args").contains("Concrete Inputs");
  }
  std::uint64_t with_arguments = 0;
  for (const trace::Range& range : trace.ranges) with_arguments += range.arguments != trace::StringTable::kEmpty;
  EXPECT_GT(with_concrete_inputs, 1000u);
  EXPECT_EQ(with_arguments, with_concrete_inputs);
}

TEST(KinetoSharedTraceFactsTest, A100KernelsGoToTheOperatorThatLaunchedThemNotTheExternalId) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-a100-dlrm-tf32/control.json.gz");
  const Imported imported = importAndCorrelate(path);
  const trace::Trace& trace = imported.trace;
  // In this 2022 file a kernel's "External id" equals its correlation id, which names no
  // operator; the TF32 GEMMs must still land on the aten matmul ops that launched them.
  std::uint64_t tensor_op_gemms = 0;
  std::uint64_t on_matmul_ops = 0;
  for (const trace::Kernel& kernel : trace.kernels) {
    if (trace.str(kernel.name).find("tensorop_s1688gemm") == std::string_view::npos) continue;
    ++tensor_op_gemms;
    const std::string_view op = trace.str(trace.ranges[static_cast<std::size_t>(kernel.op_range)].name);
    if (op == "aten::addmm" || op == "aten::mm" || op == "aten::bmm") ++on_matmul_ops;
  }
  EXPECT_GT(tensor_op_gemms, 100u);
  EXPECT_EQ(on_matmul_ops, tensor_op_gemms);
}

TEST(KinetoSharedTraceFactsTest, BackwardKernelsOfResNetAreOnTheAutogradThreadInBackwardPhase) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  const Imported imported = importAndCorrelate(path);
  const trace::Trace& trace = imported.trace;
  std::uint64_t dgrad = 0;
  for (const trace::Kernel& kernel : trace.kernels) {
    if (trace.str(kernel.name).find("dgrad_engine") == std::string_view::npos) continue;
    ++dgrad;
    EXPECT_EQ(trace.ranges[static_cast<std::size_t>(kernel.op_range)].phase, trace::Phase::kBackward);
  }
  EXPECT_GT(dgrad, 0u);
  EXPECT_GT(imported.counts.backward_ranges_linked_to_forward, 0u);
}

TEST(NvprofSharedTraceTest, CountsLinksAndAttributesEveryKernelAndParsesPyProfMarkers) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "nvprof-v100-transformer-lm/net.sql");
  const std::int64_t kernels = sqlCount(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL");
  const std::int64_t linked = sqlCount(
      path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL k WHERE EXISTS "
            "(SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME r WHERE r.correlationId = k.correlationId)");
  const std::int64_t ranges = sqlCount(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MARKER WHERE flags = 2");
  const Imported imported = importAndCorrelate(path);
  const trace::Trace& trace = imported.trace;
  EXPECT_EQ(kernels, 284);
  EXPECT_EQ(static_cast<std::int64_t>(imported.counts.kernels), kernels);
  EXPECT_EQ(static_cast<std::int64_t>(imported.counts.kernels_linked_to_launch), linked);
  EXPECT_EQ(static_cast<std::int64_t>(trace.ranges.size()), ranges);
  // PyProf wrapped every torch call in a marker, so each launch happens inside one.
  EXPECT_EQ(imported.counts.kernels_attributed_to_op, imported.counts.kernels);
  expectAttributionByContainment(trace);
  ASSERT_EQ(trace.devices.size(), 1u);
  EXPECT_EQ(trace.str(trace.devices[0].name), "Tesla V100-SXM2-16GB");
  // nvprof's device record gives the peak SM clock (kHz) and the DRAM bandwidth (KB/s).
  EXPECT_EQ(trace.devices[0].sm_count, 80);
  EXPECT_EQ(trace.devices[0].sm_clock_khz, 1'530'000);
  EXPECT_EQ(trace.devices[0].memory_bandwidth_bytes_per_s, 898'048'000'000u);
  // The embedding call carries the odd vocabulary size in its recorded shapes.
  const trace::Range* embedding = nullptr;
  for (const trace::Range& range : trace.ranges) {
    if (trace.str(range.op) == "torch.nn.functional.embedding") {
      embedding = &range;
      break;
    }
  }
  ASSERT_NE(embedding, nullptr);
  EXPECT_EQ(trace.str(embedding->shapes), "[[35,20],[33278,200]]");
  EXPECT_EQ(trace.str(embedding->dtypes), "[\"int64\",\"float32\"]");
  // F.embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse).
  EXPECT_EQ(trace.str(embedding->arguments), R"(["","","","","2.0","False","False"])");
}

// PyTorch's emit_nvtx text in an Nsight export: the operator is the name before the comma, so
// the thousands of "aten::mm, op_id = N" ranges are one eligible operator, and the operator table
// has no row per op id.
TEST(NsysSharedTraceTest, EmitNvtxRangesAreNormalisedIntoOneOperatorPerOp) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "nsys-h100x2-fp32gemm-emitnvtx/h100_2gpu_1s.sqlite");
  const Imported imported = importAndCorrelate(path);
  const trace::Trace& trace = imported.trace;
  std::uint64_t mm_ranges = 0;
  for (const trace::Range& range : trace.ranges) {
    if (!trace.str(range.name).starts_with("aten::mm, ")) continue;
    ++mm_ranges;
    EXPECT_EQ(trace.str(range.op), "aten::mm");
    EXPECT_EQ(range.kind, trace::RangeKind::kOperator);
    EXPECT_EQ(range.text_form, trace::RangeTextForm::kTorchNvtx);
    EXPECT_GT(range.op_id, 0);
  }
  EXPECT_GT(mm_ranges, 100u);
  EXPECT_TRUE(isTensorCoreEligibleOp("aten::mm"));
  const TraceSummary summary = summarizeTrace(trace, imported.counts);
  std::set<std::string> names;
  for (const GroupTime& op : summary.operators) {
    EXPECT_EQ(op.name.find("op_id"), std::string::npos) << op.name;
    EXPECT_TRUE(names.insert(op.name).second) << "two rows for " << op.name;
  }
  // Its FP32 GEMMs ran on CUDA cores under an eligible op: the layer table says so.
  bool eligible_off_tensor_cores = false;
  for (const LayerRow& row : summary.layer_table.rows) {
    eligible_off_tensor_cores |= row.state == LayerState::kEligibleNotTensorCore && row.eligible_cuda_core_ns > 0;
  }
  EXPECT_TRUE(eligible_off_tensor_cores);
}

// Correlation ids are numbered per process: in this export of two processes the same ids recur,
// and a kernel linked to the other process's launch call is a wrong answer. SQL counts the kernels
// with a launch of their own process (globalTid and globalPid share the pid bits).
TEST(NsysSharedTraceTest, LinksEachKernelOnlyToALaunchOfItsOwnProcess) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "nsys-h100x2-fp32gemm-emitnvtx/h100_2gpu_1s.sqlite");
  const std::int64_t own_process = sqlCount(
      path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k WHERE EXISTS (SELECT 1 FROM "
            "CUPTI_ACTIVITY_KIND_RUNTIME r WHERE r.correlationId = k.correlationId AND "
            "(r.globalTid >> 24) = (k.globalPid >> 24))");
  const std::int64_t any_process = sqlCount(
      path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k WHERE EXISTS (SELECT 1 FROM "
            "CUPTI_ACTIVITY_KIND_RUNTIME r WHERE r.correlationId = k.correlationId)");
  EXPECT_EQ(own_process, 1632);
  EXPECT_GT(any_process, own_process);  // what keying by correlation id alone would link
  const Imported imported = importAndCorrelate(path);
  const trace::Trace& trace = imported.trace;
  EXPECT_EQ(static_cast<std::int64_t>(imported.counts.kernels_linked_to_launch), own_process);
  std::set<std::int64_t> processes;
  for (const trace::Kernel& kernel : trace.kernels) {
    ASSERT_NE(kernel.pid, trace::kUnknownPid);
    processes.insert(kernel.pid);
    if (kernel.launch == trace::kNone) continue;
    const trace::LaunchCall& launch = trace.launches[static_cast<std::size_t>(kernel.launch)];
    EXPECT_EQ(trace.threads[static_cast<std::size_t>(launch.thread)].pid, kernel.pid);
  }
  EXPECT_EQ(processes.size(), 2u);
}

TEST(ProfileRoundTripTest, ImportedTraceWrittenToTheProfileDatabaseReadsBackIdentical) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "kineto-v100-resnet50-workers0/worker0.1623143089861.pt.trace.json.gz");
  auto original = import::importTrace(path);
  ASSERT_TRUE(original.ok());
  test::ScratchDir dir;
  const std::string profile = dir.file("workers0.sqlite");
  ASSERT_TRUE(trace::db::writeProfile(profile, *original).ok());
  auto reread = import::importTrace(profile);  // chosen by content: the ampscope reader
  ASSERT_TRUE(reread.ok()) << reread.error().message;
  EXPECT_EQ(reread->format, trace::TraceFormat::kAmpscope);
  test::expectSameTrace(*original, *reread);
  const CorrelationCounts before = correlate(*original);
  const CorrelationCounts after = correlate(*reread);
  EXPECT_EQ(before.kernels_attributed_to_op, after.kernels_attributed_to_op);
  EXPECT_EQ(before.backward_ranges_linked_to_forward, after.backward_ranges_linked_to_forward);
}

TEST(ProfileRoundTripTest, KinetoTraceWithArgumentsRoundTrips) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(
      path, "kineto-h100-timesformer-bf16/facebook_timesformer-base-finetuned-k400__1016002.json.gz");
  auto original = import::importTrace(path);
  ASSERT_TRUE(original.ok());
  test::ScratchDir dir;
  const std::string profile = dir.file("timesformer.sqlite");
  ASSERT_TRUE(trace::db::writeProfile(profile, *original).ok());
  auto reread = import::importTrace(profile);
  ASSERT_TRUE(reread.ok()) << reread.error().message;
  test::expectSameTrace(*original, *reread);
}

TEST(ProfileRoundTripTest, NvprofTraceRoundTripsToo) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "nvprof-v100-transformer-lm/net.sql");
  auto original = import::importTrace(path);
  ASSERT_TRUE(original.ok());
  test::ScratchDir dir;
  const std::string profile = dir.file("lm.sqlite");
  ASSERT_TRUE(trace::db::writeProfile(profile, *original).ok());
  auto reread = trace::db::readProfile(profile);
  ASSERT_TRUE(reread.ok()) << reread.error().message;
  test::expectSameTrace(*original, *reread);
}

}  // namespace
}  // namespace ampscope::analyzer
