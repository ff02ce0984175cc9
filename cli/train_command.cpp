#include "cli/train_command.h"

#include <charconv>
#include <cstdlib>
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
#include "cli/train_profile.h"
#include "cli/train_progress.h"
#include "trainer/backend/fault_injecting_backend.h"
#include "trainer/engine/device_selection.h"

namespace ampscope::cli {

namespace {

// Fills the parts of the config given as text; returns an error naming the option.
trace::Status resolveOptions(TrainOptions& o) {
  trainer::TrainConfig& c = o.config;
  const auto mode = trainer::parsePrecisionMode(o.precision);
  if (!mode) return trace::Error{fmt::format("--precision: unknown mode '{}' (expected {})", o.precision, trainer::kPrecisionModeNames)};
  c.precision = *mode;
  if (!o.loss_scale.empty()) {
    c.loss_scaling_set = true;
    if (o.loss_scale == "none") {
      c.loss_scaling.mode = trainer::LossScaling::kNone;
    } else if (o.loss_scale == "dynamic") {
      c.loss_scaling.mode = trainer::LossScaling::kDynamic;
    } else {
      double value = 0;
      const auto [end, ec] = std::from_chars(o.loss_scale.data(), o.loss_scale.data() + o.loss_scale.size(), value);
      if (ec != std::errc() || end != o.loss_scale.data() + o.loss_scale.size() || !(value > 0) || value > 1e30) {
        return trace::Error{fmt::format("--loss-scale: '{}' is not none, dynamic or a positive number", o.loss_scale)};
      }
      c.loss_scaling.mode = trainer::LossScaling::kConstant;
      c.loss_scaling.initial_scale = value;
    }
  }
  const auto optimizer = trainer::parseOptimizerKind(o.optimizer);
  if (!optimizer) return trace::Error{fmt::format("--optimizer: unknown '{}' (expected sgd or adamw)", o.optimizer)};
  c.optimizer.kind = *optimizer;
  if (o.activation != "relu" && o.activation != "gelu") {
    return trace::Error{fmt::format("--activation: unknown '{}' (expected relu or gelu)", o.activation)};
  }
  // Shifted crops help a convolution network and cost an MLP, which sees every pixel position as
  // its own feature.
  c.data.augment = o.augment.value_or(c.model.kind == "cnn");
  c.model.activation = o.activation == "gelu" ? trainer::Activation::kGelu : trainer::Activation::kRelu;
  if (!(c.optimizer.lr > 0) || c.optimizer.lr > 10) return trace::Error{fmt::format("--lr: {} out of range (0, 10]", c.optimizer.lr)};
  return {};
}

trace::Result<std::pair<trainer::Dataset, trainer::Dataset>> loadData(const TrainOptions& o) {
  if (o.data == "synthetic") {
    return std::pair{trainer::makeSyntheticDataset(o.synthetic_count, o.config.seed),
                     trainer::makeSyntheticDataset(std::max<std::int64_t>(1, o.synthetic_count / 6), o.config.seed + 1)};
  }
  if (o.data != "fashion-mnist") {
    return trace::Error{fmt::format("--data: unknown source '{}' (expected fashion-mnist or synthetic)", o.data)};
  }
  auto train = trainer::loadFashionMnist(o.data_dir, true);
  if (!train) return train.error();
  auto test = trainer::loadFashionMnist(o.data_dir, false);
  if (!test) return test.error();
  return std::pair{std::move(*train), std::move(*test)};
}

nlohmann::ordered_json summaryJson(const trainer::TrainSummary& s) {
  return {{"test_accuracy", s.test_accuracy},
          {"final_loss", s.final_loss},
          {"final_loss_scale", s.final_loss_scale},
          {"skipped_steps", s.skipped_steps},
          {"steps", s.steps},
          {"images_per_second", s.images_per_second},
          {"device", s.device},
          {"precision", s.precision},
          {"model", s.model},
          {"zero_gradient_share", s.zero_gradient_share},
          {"fp16_underflow_share", s.fp16_underflow_share}};
}

}  // namespace

int runTrain(TrainOptions options, std::ostream& out, std::ostream& err) {
  if (auto status = resolveOptions(options); !status) {
    err << "ampscope train: " << status.error().message << "\n";
    return kExitBadInput;
  }
  auto data = loadData(options);
  if (!data) {
    err << "ampscope train: " << data.error().message << "\n";
    return kExitBadInput;
  }
  // Recording starts before the backend is chosen, so that CUPTI sees every GPU call.
  std::unique_ptr<TrainProfile> profile;
  if (!options.profile_path.empty()) {
    auto started = TrainProfile::start(options.profile_path, options.command_line, options.device != "cpu");
    if (!started) {
      err << "ampscope train: --profile: " << started.error().message << "\n";
      return kExitBadInput;
    }
    profile = std::move(started).value();
  }
  auto selected = trainer::selectBackend(options.device);
  if (!selected) {
    err << "ampscope train: " << selected.error().message << "\n";
    return kExitBadInput;
  }
  if (!selected->note.empty()) err << "ampscope train: " << selected->note << "\n";
  if (const char* fault = std::getenv(kTrainFaultVariable); fault != nullptr && *fault != '\0') {
    auto plan = trainer::parseFaultPlan(fault);
    if (!plan) {
      err << "ampscope train: " << kTrainFaultVariable << ": " << plan.error().message << "\n";
      return kExitBadInput;
    }
    selected->backend = std::make_unique<trainer::FaultInjectingBackend>(std::move(selected->backend), *plan);
  }
  trainer::Backend& backend = *selected->backend;
  if (profile) {
    profile->recordSetting("train_device", backend.description());
    profile->recordSetting("train_precision", options.precision);
    profile->recordSetting("train_model", trainer::describeModel(options.config.model));
  }
  if (!options.json) {
    const std::int64_t used = trainer::trainingImagesUsed(options.config, data->first.count);
    out << fmt::format("training {} in {} on {}; {} training images{} and {} test images from {}\n",
                       trainer::describeModel(options.config.model), options.precision, backend.description(), used,
                       used < data->first.count ? fmt::format(" (the first of {}: --train-limit)", data->first.count)
                                                : std::string(),
                       data->second.count, data->first.source)
        << std::flush;
  }
  trainer::TrainingRun run(backend, options.config, std::move(data->first), std::move(data->second));
  TrainProgress progress(options.config.data.batch_size);
  auto summary = run.run([&](const trainer::StepRecord& record, std::int64_t total) {
    progress.update(record, total);
    if (profile) profile->recordStep(record);
    return true;
  });
  progress.finish();
  if (profile) {
    if (trace::Status finished = profile->finish(); !finished) {
      err << "ampscope train: --profile: " << finished.error().message << "\n";
      return kExitFailure;
    }
    const collector::RecorderCounts counts = profile->counts();
    err << fmt::format("ampscope train: profile written to {}: {} ranges, {} {}{}\n", options.profile_path, counts.ranges,
                       counts.kernels, backend.device() == trainer::DeviceKind::kCpu ? "host ops" : "kernels",
                       counts.lost > 0 ? fmt::format(", {} records lost", counts.lost) : "");
    if (backend.device() != trainer::DeviceKind::kCpu && !profile->gpuNote().empty()) {
      err << "ampscope train: no GPU activity was recorded: " << profile->gpuNote() << "\n";
    }
  }
  if (!summary) {
    err << "ampscope train: " << summary.error().message << "\n";
    return kExitFailure;
  }
  if (options.json) {
    out << summaryJson(*summary).dump(2) << "\n";
    return kExitOk;
  }
  out << fmt::format("test accuracy {:.2f}% after {} steps; final loss {:.4f}, loss scale {:g}, {} skipped steps, "
                     "{:.0f} images/s\n",
                     100.0 * summary->test_accuracy, summary->steps, summary->final_loss, summary->final_loss_scale,
                     summary->skipped_steps, summary->images_per_second);
  return kExitOk;
}

}  // namespace ampscope::cli
