// `ampscope train --profile` end to end on the CPU: the real binary, a synthetic dataset, and the
// profile read back.

#include <sys/wait.h>

#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "tests/test_support.h"
#include "trace/db/profile_reader.h"

namespace ampscope {
namespace {

TEST(TrainProfileTest, RecordsStepsLayerRangesHostOpsAndPerStepCountersOfACpuRun) {
  test::ScratchDir dir;
  const std::string profile = dir.file("train.sqlite");
  const std::string command = std::string(AMPSCOPE_BINARY) +
                              " train --device cpu --data synthetic --model mlp --hidden 40 --steps 12 --batch 32"
                              " --precision amp-fp16 --workers 0 --numerics-every 5 --log-every 4 --profile " + profile + " > " +
                              dir.file("log") + " 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_EQ(WEXITSTATUS(status), 0) << test::readFile(dir.file("log"));
  EXPECT_NE(test::readFile(dir.file("log")).find("profile written to"), std::string::npos);

  auto t = trace::db::readProfile(profile);
  ASSERT_TRUE(t.ok()) << t.error().message;
  std::set<std::string> steps;
  std::size_t layer_ranges = 0;
  for (const trace::Range& r : t->ranges) {
    const std::string_view name = t->str(r.name);
    if (name.substr(0, 5) == "step ") steps.insert(std::string(name));
    if (name.substr(0, 4) == "fc1 ") ++layer_ranges;
    EXPECT_EQ(t->str(r.domain), "ampscope") << name;
  }
  // Twelve steps, each with fc1's forward and backward range.
  EXPECT_EQ(steps.size(), 12u);
  EXPECT_EQ(layer_ranges, 24u);

  ASSERT_EQ(t->devices.size(), 1u);
  EXPECT_EQ(t->devices[0].kind, trace::DeviceKind::kCpu);
  std::size_t gemms = 0;
  for (const trace::Kernel& k : t->kernels) gemms += t->str(k.name) == "cpu gemm float16" ? 1 : 0;
  // fc1 and fc2: one forward and two backward GEMMs each, per step (evaluation adds more).
  EXPECT_GE(gemms, 12u * 6u);
  EXPECT_EQ(t->kernels.size(), t->launches.size());

  std::size_t loss_scales = 0, skipped = 0, fc1_values = 0;
  for (const trace::Counter& c : t->counters) {
    const std::string_view name = t->str(c.name);
    loss_scales += name == "loss_scale" ? 1 : 0;
    skipped += name == "skipped_step" ? 1 : 0;
    if (name == "gradient_values/fc1.weight") {
      ++fc1_values;
      EXPECT_EQ(c.value, 40.0 * 784.0);
    }
  }
  // Every step's figures, though the host read them every 4 steps; histograms at steps 0, 5 and 10.
  EXPECT_EQ(loss_scales, 12u);
  EXPECT_EQ(skipped, 12u);
  EXPECT_EQ(fc1_values, 3u);
  EXPECT_FALSE(t->gradient_bins.empty());
  EXPECT_TRUE(t->import_stats.lost.empty());
}

// A small CPU run of the MLP profiled: the same seed, batch and steps whatever the precision.
trace::Trace profiledRun(const test::ScratchDir& dir, const std::string& precision) {
  const std::string profile = dir.file(precision + ".sqlite");
  const std::string log = dir.file(precision + ".log");
  const std::string command = std::string(AMPSCOPE_BINARY) +
                              " train --device cpu --data synthetic --model mlp --hidden 40 --steps 5 --batch 32"
                              " --seed 11 --workers 0 --precision " + precision + " --profile " + profile + " > " + log +
                              " 2>&1";
  const int status = std::system(command.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 0) << test::readFile(log);
  auto t = trace::db::readProfile(profile);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return t.ok() ? std::move(t).value() : trace::Trace();
}

// The last `step N` range.
const trace::Range* lastStep(const trace::Trace& t) {
  const trace::Range* last = nullptr;
  for (const trace::Range& r : t.ranges) {
    if (t.str(r.name).substr(0, 5) == "step " && (last == nullptr || r.start_ns > last->start_ns)) last = &r;
  }
  return last;
}

bool within(const trace::MemoryEvent& e, const trace::Range& r) {
  return e.thread == r.thread && e.time_ns >= r.start_ns && e.time_ns <= r.end_ns;
}

TEST(TrainProfileTest, RecordsEveryTensorsAllocationAndReleaseWithTotalsThatAddUp) {
  test::ScratchDir dir;
  const trace::Trace t = profiledRun(dir, "amp-fp16");
  ASSERT_FALSE(t.memory_events.empty());
  std::map<std::uint64_t, std::int64_t> live;  // address -> bytes
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < t.memory_events.size(); ++i) {
    const trace::MemoryEvent& e = t.memory_events[i];
    ASSERT_NE(e.bytes, 0) << "event " << i;
    EXPECT_EQ(e.device_kind, trace::DeviceKind::kCpu);
    EXPECT_EQ(e.device, 0u);
    EXPECT_NE(e.thread, trace::kNone);
    EXPECT_GT(e.pid, 0);
    EXPECT_NE(e.address, 0u);
    if (e.bytes > 0) {
      EXPECT_TRUE(live.emplace(e.address, e.bytes).second) << "event " << i << ": allocated twice without a free";
    } else {
      const auto found = live.find(e.address);
      ASSERT_NE(found, live.end()) << "event " << i << ": a free of no block allocated before it";
      EXPECT_EQ(found->second, -e.bytes) << "event " << i;
      live.erase(found);
    }
    // Every tensor of the run was allocated while recorded: the totals are the events' sum.
    sum += e.bytes;
    EXPECT_EQ(e.total_allocated, sum) << "event " << i;
    EXPECT_GE(e.total_allocated, 0) << "event " << i;
    EXPECT_GE(e.total_reserved, e.total_allocated) << "event " << i;
  }
  // The run's weights and optimizer state are live at its end; each step frees what it allocates.
  EXPECT_FALSE(live.empty());
  const trace::Range* step = lastStep(t);
  ASSERT_NE(step, nullptr);
  std::int64_t step_bytes = 0;
  std::size_t step_allocations = 0;
  for (const trace::MemoryEvent& e : t.memory_events) {
    if (!within(e, *step)) continue;
    step_bytes += e.bytes;
    step_allocations += e.bytes > 0 ? 1 : 0;
  }
  EXPECT_GT(step_allocations, 0u);
  EXPECT_EQ(step_bytes, 0);
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].kind, trace::DeviceKind::kCpu);
}

TEST(TrainProfileTest, AnAmpFp16RunsActivationsTakeHalfTheBytesOfTheFp32Runs) {
  test::ScratchDir dir;
  std::map<std::string, std::int64_t> activation_bytes;
  for (const std::string precision : {"fp32", "amp-fp16"}) {
    const trace::Trace t = profiledRun(dir, precision);
    const trace::Range* step = lastStep(t);
    ASSERT_NE(step, nullptr) << precision;
    // act1's forward output, saved for its backward: FP32 in the one, FP16 under autocast.
    for (const trace::Range& r : t.ranges) {
      const std::string_view name = t.str(r.name);
      if (r.start_ns < step->start_ns || r.end_ns > step->end_ns || name.substr(0, 5) != "act1 " ||
          name.find(" forward ") == std::string_view::npos) {
        continue;
      }
      for (const trace::MemoryEvent& e : t.memory_events) {
        if (e.bytes > 0 && within(e, r)) activation_bytes[precision] += e.bytes;
      }
    }
  }
  EXPECT_EQ(activation_bytes["fp32"], 32 * 40 * 4);
  EXPECT_EQ(activation_bytes["amp-fp16"] * 2, activation_bytes["fp32"]);
}

TEST(TrainProfileTest, RefusesAnUnknownMetricsValueOrMetricsWithoutAProfile) {
  test::ScratchDir dir;
  const auto run = [&](const std::string& options) {
    const std::string command = std::string(AMPSCOPE_BINARY) + " train --device cpu --data synthetic --steps 2 " +
                                options + " > " + dir.file("log") + " 2>&1";
    const int status = std::system(command.c_str());
    return std::pair{WEXITSTATUS(status), test::readFile(dir.file("log"))};
  };
  const auto [bad_status, bad_log] = run("--metrics tensors --profile " + dir.file("p.sqlite"));
  EXPECT_EQ(bad_status, 2) << bad_log;
  EXPECT_NE(bad_log.find("--metrics: unknown value 'tensors'"), std::string::npos) << bad_log;
  EXPECT_NE(bad_log.find("tensor:per-kernel"), std::string::npos) << bad_log;
  EXPECT_EQ(bad_log.find("test accuracy"), std::string::npos) << bad_log;
  const auto [alone_status, alone_log] = run("--metrics tensor");
  EXPECT_EQ(alone_status, 2) << alone_log;
  EXPECT_NE(alone_log.find("give --profile FILE too"), std::string::npos) << alone_log;
}

// On the CPU there is no counter to read: the run and its profile go on, and both say so.
TEST(TrainProfileTest, MetricsOnTheCpuLeaveTheProfileAndSayWhyNoCounterWasRecorded) {
  test::ScratchDir dir;
  const std::string profile = dir.file("cpu_metrics.sqlite");
  const std::string command = std::string(AMPSCOPE_BINARY) +
                              " train --device cpu --data synthetic --model mlp --hidden 16 --steps 3 --batch 16 "
                              "--workers 0 --metrics tensor --profile " + profile + " > " + dir.file("log") + " 2>&1";
  const int status = std::system(command.c_str());
  const std::string log = test::readFile(dir.file("log"));
  ASSERT_EQ(WEXITSTATUS(status), 0) << log;
  EXPECT_NE(log.find("--metrics: hardware counters need a GPU"), std::string::npos) << log;
  auto t = trace::db::readProfile(profile);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_FALSE(t->ranges.empty());
  EXPECT_TRUE(t->metric_samples.empty());
}

TEST(TrainProfileTest, RefusesAProfilePathThatCannotBeWrittenBeforeTraining) {
  test::ScratchDir dir;
  const std::string command = std::string(AMPSCOPE_BINARY) +
                              " train --device cpu --data synthetic --steps 2 --profile /nonexistent-dir/p.sqlite > " +
                              dir.file("log") + " 2>&1";
  const int status = std::system(command.c_str());
  EXPECT_NE(WEXITSTATUS(status), 0);
  const std::string log = test::readFile(dir.file("log"));
  EXPECT_NE(log.find("--profile"), std::string::npos) << log;
  EXPECT_NE(log.find("/nonexistent-dir/p.sqlite"), std::string::npos) << log;
  EXPECT_EQ(log.find("test accuracy"), std::string::npos) << log;
}

}  // namespace
}  // namespace ampscope
