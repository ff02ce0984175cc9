#include "collector/nvtx/nvtx_range_assembler.h"

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "collector/nvtx/nvtx_registry.h"

namespace ampscope::collector {
namespace {

// Collects what the assembler emits into a trace.
class RecordingSink : public ActivitySink, public NvtxRangeAssembler::Output {
 public:
  trace::Trace trace;
  std::map<std::string, std::uint64_t> lost_counts;
  struct HostOp {
    std::int64_t start_ns, end_ns;
    trace::Index thread;
    std::string name;
  };
  std::vector<HostOp> host_ops;

  trace::StringId intern(std::string_view text) override { return trace.strings.intern(text); }
  trace::Index thread(std::int64_t pid, std::int64_t tid) override { return trace.threadIndex(pid, tid); }
  void device(const trace::Device& d) override { trace.devices.push_back(d); }
  void launch(const trace::LaunchCall& l) override { trace.launches.push_back(l); }
  void kernel(const trace::Kernel& k) override { trace.kernels.push_back(k); }
  void memoryOp(const trace::MemoryOp& m) override { trace.memory_ops.push_back(m); }
  void synchronization(const trace::Synchronization& s) override { trace.synchronizations.push_back(s); }
  void memoryEvent(const trace::MemoryEvent& e) override { trace.memory_events.push_back(e); }
  void metricSample(const trace::MetricSample& m) override { trace.metric_samples.push_back(m); }
  void kernelMetrics(const trace::KernelMetrics& k) override { trace.kernel_metrics.push_back(k); }
  void lost(std::string_view reason, std::uint64_t count) override { lost_counts[std::string(reason)] += count; }
  void range(const trace::Range& r) override { trace.ranges.push_back(r); }
  void hostOp(std::int64_t start_ns, std::int64_t end_ns, trace::Index thread, trace::StringId name) override {
    host_ops.push_back({start_ns, end_ns, thread, std::string(trace.str(name))});
  }
  std::string name(const trace::Range& r) const { return std::string(trace.str(r.name)); }
};

std::string domainName(std::uint32_t domain) { return NvtxRegistry::instance().domainName(domain); }

NvtxRecord record(NvtxRecordKind kind, std::int64_t time_ns, std::uint32_t domain = 0) {
  NvtxRecord r;
  r.kind = kind;
  r.time_ns = time_ns;
  r.domain = domain;
  return r;
}

class NvtxRangeAssemblerTest : public ::testing::Test {
 protected:
  RecordingSink sink;
  NvtxRangeAssembler assembler{sink, sink, &domainName};
};

TEST_F(NvtxRangeAssemblerTest, MatchesNestedPushesAndPopsPerThread) {
  assembler.add(1, 10, record(NvtxRecordKind::kPush, 100), "step 0");
  assembler.add(1, 11, record(NvtxRecordKind::kPush, 105), "batch 0");  // another thread
  assembler.add(1, 10, record(NvtxRecordKind::kPush, 110), "forward");
  assembler.add(1, 10, record(NvtxRecordKind::kPop, 150), {});
  assembler.add(1, 11, record(NvtxRecordKind::kPop, 160), {});
  assembler.add(1, 10, record(NvtxRecordKind::kPop, 200), {});
  assembler.finish();
  ASSERT_EQ(sink.trace.ranges.size(), 3u);
  EXPECT_EQ(sink.name(sink.trace.ranges[0]), "forward");
  EXPECT_EQ(sink.trace.ranges[0].start_ns, 110);
  EXPECT_EQ(sink.trace.ranges[0].end_ns, 150);
  EXPECT_EQ(sink.name(sink.trace.ranges[1]), "batch 0");
  EXPECT_EQ(sink.trace.ranges[1].end_ns, 160);
  EXPECT_EQ(sink.name(sink.trace.ranges[2]), "step 0");
  EXPECT_EQ(sink.trace.ranges[2].start_ns, 100);
  EXPECT_EQ(sink.trace.ranges[2].end_ns, 200);
  EXPECT_NE(sink.trace.ranges[0].thread, sink.trace.ranges[1].thread);
  EXPECT_EQ(sink.trace.ranges[0].kind, trace::RangeKind::kAnnotation);
  EXPECT_TRUE(sink.lost_counts.empty());
}

TEST_F(NvtxRangeAssemblerTest, AGapGivesUpTheThreadsOpenRangesInsteadOfClosingTheWrongOne) {
  assembler.add(1, 10, record(NvtxRecordKind::kPush, 100), "step 0");
  assembler.add(1, 11, record(NvtxRecordKind::kPush, 105), "other thread");
  assembler.add(1, 10, record(NvtxRecordKind::kPush, 110, 3), "forward, another domain");
  // Records of thread 10 were dropped here (a push among them, perhaps): then its pops.
  assembler.add(1, 10, record(NvtxRecordKind::kGap, 120), {});
  assembler.add(1, 10, record(NvtxRecordKind::kPop, 150), {});
  assembler.add(1, 11, record(NvtxRecordKind::kPop, 160), {});
  assembler.add(1, 10, record(NvtxRecordKind::kPush, 170), "step 1");
  assembler.add(1, 10, record(NvtxRecordKind::kPop, 180), {});
  assembler.finish();
  ASSERT_EQ(sink.trace.ranges.size(), 2u);  // the other thread's, and the one pushed after the gap
  EXPECT_EQ(sink.trace.str(sink.trace.ranges[0].name), "other thread");
  EXPECT_EQ(sink.trace.str(sink.trace.ranges[1].name), "step 1");
  EXPECT_EQ(sink.lost_counts["NVTX ranges cut short by records dropped for want of memory"], 2u);
  EXPECT_EQ(sink.lost_counts["NVTX pops without a matching push"], 1u);
}

TEST_F(NvtxRangeAssemblerTest, KeepsDomainsApartAndStoresDomainCategoryAndPayload) {
  const std::uint32_t domain = NvtxRegistry::instance().domain("my.library");
  NvtxRecord push = record(NvtxRecordKind::kPush, 10, domain);
  push.category = 7;
  push.payload_type = NvtxPayloadType::kDouble;
  const double payload = 0.1;
  std::memcpy(&push.payload_bits, &payload, sizeof(payload));
  assembler.add(1, 10, push, "in domain");
  assembler.add(1, 10, record(NvtxRecordKind::kPush, 20), "default domain");
  // A pop in the library's domain closes its own range, not the default domain's newer one.
  assembler.add(1, 10, record(NvtxRecordKind::kPop, 30, domain), {});
  assembler.add(1, 10, record(NvtxRecordKind::kPop, 40), {});
  ASSERT_EQ(sink.trace.ranges.size(), 2u);
  const trace::Range& in_domain = sink.trace.ranges[0];
  EXPECT_EQ(sink.name(in_domain), "in domain");
  EXPECT_EQ(in_domain.end_ns, 30);
  EXPECT_EQ(sink.trace.str(in_domain.domain), "my.library");
  EXPECT_EQ(in_domain.category, 7u);
  EXPECT_EQ(sink.trace.str(in_domain.payload), "0.1");
  EXPECT_EQ(sink.trace.str(sink.trace.ranges[1].domain), "");
}

TEST_F(NvtxRangeAssemblerTest, WritesIntegerPayloadsExactly) {
  NvtxRecord mark = record(NvtxRecordKind::kMark, 5);
  mark.payload_type = NvtxPayloadType::kInt64;
  const std::int64_t value = -9'000'000'000'000LL;
  std::memcpy(&mark.payload_bits, &value, sizeof(value));
  assembler.add(1, 10, mark, "checkpoint");
  ASSERT_EQ(sink.trace.ranges.size(), 1u);
  EXPECT_EQ(sink.trace.ranges[0].start_ns, 5);
  EXPECT_EQ(sink.trace.ranges[0].end_ns, 5);
  EXPECT_EQ(sink.trace.str(sink.trace.ranges[0].payload), "-9000000000000");
}

TEST_F(NvtxRangeAssemblerTest, MatchesStartAndEndAcrossThreadsEvenWhenTheEndIsDrainedFirst) {
  NvtxRecord end = record(NvtxRecordKind::kEnd, 90);
  end.range_id = 42;
  assembler.add(1, 11, end, {});
  NvtxRecord start = record(NvtxRecordKind::kStart, 10);
  start.range_id = 42;
  assembler.add(1, 10, start, "request");
  assembler.finish();
  ASSERT_EQ(sink.trace.ranges.size(), 1u);
  EXPECT_EQ(sink.trace.ranges[0].start_ns, 10);
  EXPECT_EQ(sink.trace.ranges[0].end_ns, 90);
  EXPECT_TRUE(sink.lost_counts.empty());
}

TEST_F(NvtxRangeAssemblerTest, CountsWhatCannotBeMatchedInsteadOfGuessing) {
  assembler.add(1, 10, record(NvtxRecordKind::kPop, 5), {});
  assembler.add(1, 10, record(NvtxRecordKind::kPush, 10), "never closed");
  NvtxRecord start = record(NvtxRecordKind::kStart, 10);
  start.range_id = 1;
  assembler.add(1, 10, start, "never ended");
  NvtxRecord end = record(NvtxRecordKind::kEnd, 10);
  end.range_id = 2;
  assembler.add(1, 10, end, {});
  assembler.finish();
  EXPECT_TRUE(sink.trace.ranges.empty());
  EXPECT_EQ(sink.lost_counts["NVTX pops without a matching push"], 1u);
  EXPECT_EQ(sink.lost_counts["NVTX ranges still open when the recording ended"], 2u);
  EXPECT_EQ(sink.lost_counts["NVTX range ends without a matching start"], 1u);
}

TEST_F(NvtxRangeAssemblerTest, TurnsHostOpDomainRangesIntoHostActivity) {
  const std::uint32_t host = NvtxRegistry::instance().domain(kHostOpDomain);
  const std::uint32_t trainer = NvtxRegistry::instance().domain("ampscope");
  assembler.add(1, 10, record(NvtxRecordKind::kPush, 100, trainer), "fc1 linear forward in=[64,784]");
  assembler.add(1, 10, record(NvtxRecordKind::kPush, 110, host), "cpu gemm float16");
  assembler.add(1, 10, record(NvtxRecordKind::kPop, 180, host), {});
  assembler.add(1, 10, record(NvtxRecordKind::kPop, 190, trainer), {});
  ASSERT_EQ(sink.host_ops.size(), 1u);
  EXPECT_EQ(sink.host_ops[0].name, "cpu gemm float16");
  EXPECT_EQ(sink.host_ops[0].start_ns, 110);
  EXPECT_EQ(sink.host_ops[0].end_ns, 180);
  ASSERT_EQ(sink.trace.ranges.size(), 1u);
  EXPECT_EQ(sink.trace.str(sink.trace.ranges[0].domain), "ampscope");
}

}  // namespace
}  // namespace ampscope::collector
