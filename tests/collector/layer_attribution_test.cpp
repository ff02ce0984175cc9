// A short profiled training run, read back and correlated: the work of each step (CUDA kernels
// on a GPU, the CPU backend's host ops on the CPU) is attributed to the trainer's layer ranges.
// Built twice: with TRAIN_DEVICE "cpu" (runs everywhere) and "cuda" (CTest label gpu; skips
// where the trainer finds no usable GPU).

#include <sys/wait.h>

#include <cstdlib>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "analyzer/correlate/correlator.h"
#include "analyzer/normalise/range_normaliser.h"
#include "tests/test_support.h"
#include "trace/db/profile_reader.h"

namespace ampscope {
namespace {

TEST(LayerAttributionTest, EveryStepsWorkIsAttributedToTheLayerThatDidIt) {
  test::ScratchDir dir;
  const std::string profile = dir.file("run.sqlite");
  const std::string log = dir.file("log");
  const std::string command = std::string(AMPSCOPE_BINARY) + " train --device " + TRAIN_DEVICE +
                              " --data synthetic --model mlp --hidden 64 --steps 20 --batch 64 --precision amp-fp16"
                              " --workers 0 --profile " + profile + " > " + log + " 2>&1";
  const int status = std::system(command.c_str());
  const std::string output = test::readFile(log);
  if (WEXITSTATUS(status) != 0 && output.find("--device cuda:") != std::string::npos) {
    GTEST_SKIP() << "no usable GPU: " << output;
  }
  ASSERT_EQ(WEXITSTATUS(status), 0) << output;

  auto t = trace::db::readProfile(profile);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_FALSE(t->devices.empty());
  EXPECT_EQ(t->devices[0].kind, std::string(TRAIN_DEVICE) == "cpu" ? trace::DeviceKind::kCpu : trace::DeviceKind::kGpu);

  // What each kernel should be attributed to, read from the recorded range texts before the
  // analyzer reads them: the innermost layer range ("fc1 linear forward in=...") around its
  // launch on the launching thread, or no layer when the launch is inside a step but in no layer
  // range (input casts, the loss, loss scaling, the optimizer).
  struct Expected {
    std::string layer;  // empty: none
    std::string pass;
  };
  std::map<std::uint64_t, Expected> expected;  // by correlation id; only kernels launched in a step
  std::map<std::uint64_t, const trace::LaunchCall*> launch_of;
  for (const trace::LaunchCall& call : t->launches) launch_of[call.correlation_id] = &call;
  for (const trace::Kernel& k : t->kernels) {
    const auto found = launch_of.find(k.correlation_id);
    // Every kernel has the call that launched it: cuBLAS's through the driver API too.
    EXPECT_NE(found, launch_of.end()) << t->str(k.name) << " has no launch call";
    if (found == launch_of.end()) continue;
    const trace::LaunchCall& launch = *found->second;
    bool in_step = false;
    const trace::Range* innermost_layer = nullptr;
    Expected e;
    for (const trace::Range& r : t->ranges) {
      if (r.thread != launch.thread || r.start_ns > launch.start_ns || launch.start_ns > r.end_ns) continue;
      std::istringstream words{std::string(t->str(r.name))};
      std::string first, second, third;
      words >> first >> second >> third;
      if (first == "step") in_step = true;
      if ((third == "forward" || third == "backward") && (!innermost_layer || r.start_ns >= innermost_layer->start_ns)) {
        innermost_layer = &r;
        e = {first, third};
      }
    }
    if (in_step) expected[k.correlation_id] = e;
  }
  ASSERT_GT(expected.size(), 0u);

  // As the profile importer does: sort, read the range texts, then correlate.
  t->sortByTime();
  analyzer::import::normaliseRanges(*t);
  analyzer::correlate(*t);

  std::size_t checked = 0;
  std::map<std::string, std::size_t> by_layer_pass;
  for (const trace::Kernel& k : t->kernels) {
    const auto want = expected.find(k.correlation_id);
    if (want == expected.end()) continue;
    ++checked;
    std::string layer;
    std::string pass;
    if (k.op_range != trace::kNone) {
      const trace::Range& op = t->ranges[static_cast<std::size_t>(k.op_range)];
      if (op.layer != trace::StringTable::kEmpty) {
        layer = t->str(op.layer);
        pass = trace::phaseName(op.phase);
      }
    }
    EXPECT_EQ(layer, want->second.layer) << t->str(k.name);
    if (!want->second.layer.empty()) {
      EXPECT_EQ(pass, want->second.pass) << t->str(k.name);
    }
    if (!layer.empty()) by_layer_pass[layer + " " + pass]++;
  }
  EXPECT_EQ(checked, expected.size());
  // Every layer did work in every one of the 20 steps, forward and backward.
  for (const char* key : {"fc1 forward", "fc1 backward", "act1 forward", "act1 backward", "fc2 forward", "fc2 backward"}) {
    EXPECT_GE(by_layer_pass[key], 20u) << key;
  }
}

}  // namespace
}  // namespace ampscope
