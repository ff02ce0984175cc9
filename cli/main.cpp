// The `ampscope` command: one binary, one subcommand per job.

#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/analysis_commands.h"
#include "cli/command_line_errors.h"
#include "cli/exit_codes.h"
#include "cli/gui_command.h"
#include "cli/record_command.h"
#include "cli/train_command.h"

int main(int argc, char** argv) {
  using namespace ampscope::cli;
  namespace trainer = ampscope::trainer;
  CLI::App app{kAppDescription};
  configureApp(app);

  AnalysisCommands analysis;
  addAnalysisCommands(app, analysis);

  TrainOptions train;
  trainer::TrainConfig& tc = train.config;
  CLI::App* train_cmd = app.add_subcommand(
      "train", "Train a model on Fashion-MNIST with the instrumented AMP engine (on the GPU when there is one)");
  train_cmd->add_option("--model", tc.model.kind, "mlp or cnn")->check(CLI::IsMember({"mlp", "cnn"}));
  train_cmd->add_option("--hidden", tc.model.hidden, "MLP hidden sizes, e.g. 256,128")->delimiter(',');
  train_cmd->add_option("--channels", tc.model.channels, "CNN convolution channels, e.g. 16,32")->delimiter(',');
  train_cmd->add_option("--fc", tc.model.fc, "CNN fully connected size");
  train_cmd->add_flag("--layer-norm", tc.model.layer_norm, "MLP: layer norm after each hidden linear layer");
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

  std::vector<std::string> gui_args;
  CLI::App* gui_cmd = app.add_subcommand(
      "gui", "Open the desktop app (usage: ampscope gui [TRACE] [--compare TRACE2] [--gpu NAME] [--screenshot FILE.png --tab NAME])");
  gui_cmd->allow_extras();
  gui_cmd->prefix_command();
  // The app parses its own options: `gui --help` is its help (options and tab names).
  gui_cmd->set_help_flag();

  RecordOptions record;
  CLI::App* record_cmd = app.add_subcommand(
      "record", "Run a program with ampscope's collector injected and write its profile database "
                "(usage: ampscope record [-o FILE] [--kinds LIST] -- COMMAND ARGS...)");
  record_cmd->add_option("-o,--output", record.output,
                         "Profile database to write (default record.sqlite); other processes of the program that "
                         "use NVTX or CUDA write FILE with their pid before the extension");
  record_cmd->add_option("--kinds", record.kinds,
                         "What to record: a comma-separated list of kernel, memcpy, memset, runtime, driver, sync, nvtx, or all");
  record_cmd->add_option("command", record.command, "The program and its arguments (after --)")->required();
  // Everything after the program's name belongs to the program, options included.
  record_cmd->prefix_command();

  if (const auto done = parseCommandLine(app, argc, argv, std::cout, std::cerr)) return *done;
  if (const auto code = runAnalysisCommand(analysis, std::cout, std::cerr)) return *code;
  if (*train_cmd) {
    for (int i = 0; i < argc; ++i) train.command_line += (i > 0 ? " " : "") + std::string(argv[i]);
    return runTrain(std::move(train), std::cout, std::cerr);
  }
  if (*gui_cmd) {
    for (const std::string& word : gui_cmd->remaining()) gui_args.push_back(word);
    return runGui(gui_args, std::cerr);
  }
  if (*record_cmd) {
    for (const std::string& word : record_cmd->remaining()) record.command.push_back(word);
    return runRecord(record, std::cout, std::cerr);
  }
  return kExitFailure;
}
