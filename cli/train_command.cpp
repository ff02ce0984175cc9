#include "cli/train_command.h"

#include <charconv>
#include <cstdlib>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
#include "cli/train_profile.h"
#include "cli/train_progress.h"
#include "collector/hardware_metrics.h"
#include "trainer/backend/backend_decorator.h"
#include "trainer/engine/run_support.h"
#include "trainer/instrumentation/trainer_ranges.h"

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
  if (auto metrics = collector::parseMetricsMode(o.metrics); !metrics) return metrics.error();
  if (!o.metrics.empty() && o.metrics != "none" && o.profile_path.empty()) {
    return trace::Error{fmt::format("--metrics {} records hardware counters into the profile: give --profile FILE too",
                                    o.metrics)};
  }
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

// Launches per step by phase, as `train --json` names the phases, and their total.
nlohmann::ordered_json launchesJson(const trainer::StepDemandSummary& d) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const trainer::RunPhase phase : trainer::kRunPhases) {
    if (phase == trainer::RunPhase::kEvaluate) continue;  // not part of a step
    out[trainer::runPhaseRangeText(phase)] = d.launches_per_step[static_cast<std::size_t>(phase)];
  }
  out["total"] = d.totalLaunchesPerStep();
  return out;
}

// The device's milliseconds per step by phase (CUDA events on a GPU, the host's clock on the CPU)
// and their total; null when no step was timed. A phase is null when no step had all its phases
// timed (a replayed graph times only the whole step).
nlohmann::ordered_json deviceTimeJson(const trainer::StepDemandSummary& d) {
  if (d.timed_whole_steps == 0 && d.timed_steps == 0) return nullptr;
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < d.device_ms_per_step.size(); ++i) {
    out[trainer::runPhaseRangeText(trainer::kRunPhases[i])] =
        d.timed_steps > 0 ? nlohmann::ordered_json(d.device_ms_per_step[i]) : nlohmann::ordered_json();
  }
  out["total"] = d.timed_whole_steps > 0 ? nlohmann::ordered_json(d.device_step_ms) : nlohmann::ordered_json();
  return out;
}

// What the steps of one kind asked of the device, per step; null figures when no such step ran.
nlohmann::ordered_json stepKindJson(const trainer::StepDemandSummary& d) {
  const bool any = d.steps > 0;
  const auto known = [any](nlohmann::ordered_json value) { return any ? value : nlohmann::ordered_json(); };
  return {{"steps", d.steps},
          {"host_reads_per_step", known(d.host_reads_per_step)},
          {"launches_per_step", known(launchesJson(d))},
          {"optimizer_launches_per_step",
           known(d.launches_per_step[static_cast<std::size_t>(trainer::RunPhase::kOptimizer)])},
          {"device_ms_per_step", deviceTimeJson(d)},
          {"host_ms_per_step", known(d.host_ms_per_step)}};
}

// What a step asks of the device (trainer::CountingBackend), over the steps after the first: the
// steady steps' figures at the top level, the other steps' (those that read the log or took
// histograms, and with --cuda-graph those that did not replay it) under reading_steps.
nlohmann::ordered_json demandJson(const trainer::TrainConfig& config, const trainer::RunDemand& d) {
  nlohmann::ordered_json figures = stepKindJson(d.steady);
  figures.erase("steps");
  nlohmann::ordered_json steady = {{"steady_steps", d.steady.steps}};
  steady.update(figures);
  steady["log_every"] = config.log_every;
  steady["numerics_every"] = config.gradient_histograms ? nlohmann::ordered_json(config.numerics_every) : nullptr;
  steady["reading_steps"] = stepKindJson(d.reading);
  return steady;
}

nlohmann::ordered_json summaryJson(const trainer::TrainConfig& config, const trainer::TrainSummary& s) {
  nlohmann::ordered_json out = {{"test_accuracy", s.test_accuracy},
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
  out.update(demandJson(config, s.demand));
  // --cuda-graph: where the step was captured, how often replayed, or why it was not.
  out["cuda_graph"] = config.cuda_graph
                          ? nlohmann::ordered_json{{"captured_at_step", s.graph_captured_at_step >= 0
                                                                            ? nlohmann::ordered_json(s.graph_captured_at_step)
                                                                            : nlohmann::ordered_json()},
                                                   {"replayed_steps", s.graph_replays},
                                                   {"note", s.graph_note.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(s.graph_note)}}
                          : nlohmann::ordered_json();
  return out;
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
    auto started = TrainProfile::start(options.profile_path, options.command_line, options.device != "cpu",
                                       *collector::parseMetricsMode(options.metrics));
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
    // Before the model is built, so its weights and the optimizer's state are seen too.
    backend.setAllocationObserver(profile.get());
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
    backend.setAllocationObserver(nullptr);
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
    if (!profile->metricsNote().empty()) err << "ampscope train: --metrics: " << profile->metricsNote() << "\n";
  }
  if (!summary) {
    err << "ampscope train: " << summary.error().message << "\n";
    return kExitFailure;
  }
  if (options.json) {
    out << summaryJson(options.config, *summary).dump(2) << "\n";
    return kExitOk;
  }
  out << fmt::format("test accuracy {:.2f}% after {} steps; final loss {:.4f}, loss scale {:g}, {} skipped steps, "
                     "{:.0f} images/s\n",
                     100.0 * summary->test_accuracy, summary->steps, summary->final_loss, summary->final_loss_scale,
                     summary->skipped_steps, summary->images_per_second);
  return kExitOk;
}

CLI::App* addTrainCommand(CLI::App& app, TrainOptions& train) {
  trainer::TrainConfig& tc = train.config;
  CLI::App* train_cmd = app.add_subcommand(
      "train", "Train a model on Fashion-MNIST with the instrumented AMP engine (on the GPU when there is one)");
  train_cmd->add_option("--model", tc.model.kind, "mlp or cnn")->check(CLI::IsMember({"mlp", "cnn"}));
  train_cmd->add_option("--hidden", tc.model.hidden, "MLP hidden sizes, e.g. 256,128")->delimiter(',');
  train_cmd->add_option("--channels", tc.model.channels, "CNN convolution channels, e.g. 16,32")->delimiter(',');
  train_cmd->add_option("--fc", tc.model.fc, "CNN fully connected size");
  train_cmd->add_flag("--layer-norm", tc.model.layer_norm, "MLP: layer norm after each hidden linear layer");
  train_cmd->add_flag("--channels-last", tc.model.channels_last,
                      "CNN: activations NHWC and filters KRSC (torch.channels_last), the layout cuDNN's Tensor Core "
                      "convolutions take without transposing");
  train_cmd->add_option("--activation", train.activation, "relu or gelu");
  train_cmd->add_option("--precision", train.precision, std::string("Precision mode: ") + trainer::kPrecisionModeNames);
  train_cmd->add_option("--loss-scale", train.loss_scale,
                        "none, dynamic, or a constant (default: dynamic for amp-fp16 and fp16-master, else none)");
  train_cmd->add_option("--initial-scale", tc.loss_scaling.initial_scale, "Dynamic loss scaling: first scale")
      ->check(CLI::Range(1.0, 1e30));
  train_cmd->add_option("--growth-interval", tc.loss_scaling.growth_interval,
                        "Dynamic loss scaling: clean steps before the scale doubles")->check(CLI::Range(1, 1000000000));
  train_cmd->add_option("--epochs", tc.epochs, "Passes over the training set")->check(CLI::Range(1, 10000));
  train_cmd->add_option("--steps", tc.max_steps, "Stop after this many steps (0: run the epochs)")->check(CLI::Range(0, 1000000000));
  train_cmd->add_option("--train-limit", tc.train_limit, "Use only the first N training images (0: all)")
      ->check(CLI::Range(0, 1000000000));
  train_cmd->add_option("--batch", tc.data.batch_size, "Batch size")->check(CLI::Range(1, 65536));
  train_cmd->add_option("--lr", tc.optimizer.lr, "Learning rate");
  train_cmd->add_option("--optimizer", train.optimizer, "sgd (with momentum) or adamw");
  train_cmd->add_flag("!--constant-lr", tc.cosine_schedule, "Keep the learning rate constant (default: cosine decay)");
  train_cmd->add_option("--momentum", tc.optimizer.momentum, "SGD momentum")->check(CLI::Range(0.0, 1.0));
  train_cmd->add_option("--weight-decay", tc.optimizer.weight_decay, "Weight decay")->check(CLI::Range(0.0, 1.0));
  train_cmd->add_option("--clip-grad-norm", tc.optimizer.clip_grad_norm, "Clip the unscaled gradients' global norm (0: off)")
      ->check(CLI::Range(0.0, 1e9));
  train_cmd->add_option("--log-every", tc.log_every,
                        "Read the loss and the step's figures back from the device every N steps (the steps between "
                        "never wait for it)")->check(CLI::Range(1, 1000000));
  train_cmd->add_option("--numerics-every", tc.numerics_every,
                        "Gradient histograms and underflow shares every N steps (each a wait for the device)")
      ->check(CLI::Range(1, 1000000000));
  train_cmd->add_flag("--cuda-graph", tc.cuda_graph,
                      "Capture a steady step once (after two) and replay it as one launch: a CUDA graph on the GPU; "
                      "on the CPU a recording of its ops, which saves nothing");
  train_cmd->add_option("--workers", tc.data.workers, "Data loading threads (0: load in the training thread)")
      ->check(CLI::Range(0, 64));
  train_cmd->add_option("--prefetch", tc.data.prefetch, "Batches queued per worker")->check(CLI::Range(1, 64));
  train_cmd->add_flag("--augment,!--no-augment", train.augment,
                      "Random crop and horizontal flip of training images (default: on for cnn, off for mlp, "
                      "which is not shift-invariant)");
  train_cmd->add_option("--device", train.device, "auto, cpu or cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  train_cmd->add_option("--seed", tc.seed, "Seed for weights, shuffling and augmentation");
  train_cmd->add_option("--data", train.data, "fashion-mnist or synthetic");
  train_cmd->add_option("--data-dir", train.data_dir, "Folder with the Fashion-MNIST IDX files");
  train_cmd->add_option("--autocast-allow", tc.autocast_allow, "Ops to run in low precision under autocast")->delimiter(',');
  train_cmd->add_option("--autocast-deny", tc.autocast_deny, "Ops to keep in FP32 under autocast")->delimiter(',');
  train_cmd->add_flag("--json", train.json, "Print a JSON summary on stdout");
  train_cmd->add_option("--profile", train.profile_path,
                        "Record the run (NVTX ranges, GPU or host activity, per-step counters) into this profile database");
  train_cmd->add_option("--metrics", train.metrics,
                        "With --profile on a GPU, also record hardware counters: tensor (the tensor pipe's and the SMs' "
                        "activity sampled over time) or tensor:per-kernel (per kernel, running kernels one at a time); "
                        "docs/collector.md");
  return train_cmd;
}

}  // namespace ampscope::cli
