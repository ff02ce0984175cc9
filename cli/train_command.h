#pragma once
// `ampscope train`: trains a model with the trainer (trainer/) and prints its progress and
// result; --json prints a summary object instead.

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "trainer/engine/training_run.h"

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
  std::string command_line;  // stored in the profile as what was recorded
};

int runTrain(TrainOptions options, std::ostream& out, std::ostream& err);

}  // namespace ampscope::cli
