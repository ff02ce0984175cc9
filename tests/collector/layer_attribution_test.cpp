// A short profiled training run, read back and correlated: the work of each step (CUDA kernels
// on a GPU, the CPU backend's host ops on the CPU) is attributed to the trainer's layer ranges.
// Built twice: with TRAIN_DEVICE "cpu" (runs everywhere) and "cuda" (CTest label gpu; skips
// where the trainer finds no usable GPU).

#include <sys/wait.h>

#include <cstdlib>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "analyzer/correlator.h"
#include "analyzer/import/range_normaliser.h"
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
  // As the profile importer does: sort, read the range texts, then correlate.
  t->sortByTime();
  analyzer::import::normaliseRanges(*t);
  analyzer::correlate(*t);

  // Kernels inside a training step, and those among them attributed to a layer, by layer and pass.
  std::size_t in_steps = 0, attributed = 0;
  std::map<std::string, std::size_t> by_layer_pass;
  for (const trace::Kernel& k : t->kernels) {
    if (k.launch == trace::kNone) continue;
    const trace::LaunchCall& launch = t->launches[static_cast<std::size_t>(k.launch)];
    bool in_step = false;
    for (const trace::Range& r : t->ranges) {
      if (r.phase == trace::Phase::kStep && r.thread == launch.thread && r.start_ns <= launch.start_ns &&
          launch.start_ns <= r.end_ns) {
        in_step = true;
        break;
      }
    }
    if (!in_step) continue;
    ++in_steps;
    if (k.op_range == trace::kNone) continue;
    const trace::Range& op = t->ranges[static_cast<std::size_t>(k.op_range)];
    if (op.layer == trace::StringTable::kEmpty) continue;
    ++attributed;
    by_layer_pass[std::string(t->str(op.layer)) + " " + trace::phaseName(op.phase)]++;
  }
  ASSERT_GT(in_steps, 0u);
  // Layers do the math; the loss, loss scaling and optimizer work of a step belongs to no layer.
  EXPECT_GT(static_cast<double>(attributed) / static_cast<double>(in_steps), 0.4) << attributed << " of " << in_steps;
  for (const char* key : {"fc1 forward", "fc1 backward", "fc2 forward", "fc2 backward"}) {
    EXPECT_GE(by_layer_pass[key], 20u) << key;
  }
}

}  // namespace
}  // namespace ampscope
