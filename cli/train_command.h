#pragma once
// `ampscope train`: trains a model with the trainer (trainer/) and prints its progress and
// result; --json prints a summary object instead.

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "trainer/engine/training_run.h"

namespace CLI {
class App;
}

namespace ampscope::cli {

struct TrainOptions {
  trainer::TrainConfig config;
  std::string precision = "fp32";
  std::string loss_scale;  // "", "none", "dynamic", or a number (constant)
  std::string optimizer = "sgd";
  std::string activation = "relu";
  std::string device = "auto";
  std::string data = "fashion-mnist";  // or "synthetic"
  std::string data_dir = "/usr/share/datasets/fashion-mnist";
  std::int64_t synthetic_count = 6000;
  std::optional<bool> augment;  // unset: the model's default
  bool json = false;
  std::string profile_path;  // --profile: record the run into this profile database
  std::string metrics;       // --metrics: hardware counters for the profile (collector/hardware_metrics.h)
  std::string command_line;  // stored in the profile as what was recorded
};

// Test-only: "OP" or "OP:N" makes call N (from 1) of the backend's OP fail as a library failure
// would, to test the error path on any machine (trainer/backend/backend_decorator.h,
// docs/errors.md). Not an option, so --help does not offer it.
inline constexpr const char* kTrainFaultVariable = "AMPSCOPE_TRAIN_FAULT";

// Returns the exit code (cli/exit_codes.h): a failed training step is one line on err, naming
// the step, the layer op and the library's message, and kExitFailure.
int runTrain(TrainOptions options, std::ostream& out, std::ostream& err);

// Declares `train` and its options on app, filling train.
CLI::App* addTrainCommand(CLI::App& app, TrainOptions& train);

}  // namespace ampscope::cli
