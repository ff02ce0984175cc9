// The `ampscope` command: one binary, one subcommand per job.

#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/analyze_command.h"
#include "cli/command_line_errors.h"
#include "cli/diff_command.h"
#include "cli/exit_codes.h"
#include "cli/gui_command.h"
#include "cli/merge_command.h"
#include "cli/record_command.h"
#include "cli/report_command.h"
#include "cli/train_command.h"

constexpr const char* kGpuHelp =
    "The GPU (a row of the device table, e.g. H100-SXM, A100, V100, RTX-4090): names the device when the trace does not; on a CPU run or another GPU's trace, the device to project each op on";

int main(int argc, char** argv) {
  using namespace ampscope::cli;
  namespace trainer = ampscope::trainer;
  CLI::App app{"ampscope: a profiler and performance advisor for mixed-precision GPU training"};
  app.require_subcommand(1);
  // --help shows every option's default (subcommands inherit this).
  app.option_defaults()->always_capture_default();

  AnalyzeOptions analyze;
  CLI::App* analyze_cmd = app.add_subcommand(
      "analyze", "Read a trace (PyTorch profiler JSON/.gz, Nsight Systems or nvprof SQLite, "
                 "ampscope profile) and print a summary; several files or a folder are one distributed job");
  analyze_cmd->add_option("trace", analyze.trace_paths, "Trace files or folders (several: one job, a rank each)")
      ->required();
  analyze_cmd->add_option("--rank", analyze.rank, "Of a job: the full analysis of this rank")->check(CLI::Range(0, 1 << 24));
  analyze_cmd->add_option("--threads", analyze.threads, "Of a job: traces read at once (0: every hardware thread)")
      ->check(CLI::Range(0, 1024));
  analyze_cmd->add_flag("--json", analyze.json, "Print the summary as JSON on stdout");
  analyze_cmd->add_option("--top", analyze.top, "How many operators, layers and kernels to list")
      ->check(CLI::Range(1, 1000));
  analyze_cmd->add_option("--save-profile", analyze.save_profile,
                          "Also write the imported trace as an ampscope profile database");
  analyze_cmd->add_option("--gpu", analyze.gpu, kGpuHelp)->check(checkGpuName);

  DiffOptions diff;
  CLI::App* diff_cmd = app.add_subcommand(
      "diff", "Compare two runs of one model (e.g. FP32 and AMP, or 0 and 4 data-loader workers): "
              "the change B made, the measured speedup beside what A's analysis predicted for it, "
              "overall and per op call shape");
  diff_cmd->add_option("a", diff.baseline_path, "Baseline trace (A)")->required();
  diff_cmd->add_option("b", diff.candidate_path, "Changed run's trace (B)")->required();
  diff_cmd->add_flag("--json", diff.json, "Print the comparison as JSON on stdout");
  diff_cmd->add_option("--top", diff.top, "How many op call shapes and layers to list (JSON lists them all)")
      ->check(CLI::Range(1, 1000));
  diff_cmd->add_option("--gpu", diff.gpu, kGpuHelp)->check(checkGpuName);

  ReportOptions report;
  CLI::App* report_cmd = app.add_subcommand(
      "report", "Write the analysis of a trace as report.html, report.md, report.json and CSV files");
  report_cmd->add_option("trace", report.trace_paths, "Trace files or folders (several: one job, a rank each)")->required();
  report_cmd->add_option("--rank", report.rank, "Of a job: the full report of this rank")->check(CLI::Range(0, 1 << 24));
  report_cmd->add_option("--threads", report.threads, "Of a job: traces read at once (0: every hardware thread)")
      ->check(CLI::Range(0, 1024));
  report_cmd->add_option("--out", report.out_dir, "Folder to write the report into")->required();
  report_cmd->add_option("--top", report.top, "How many operators, layers and shapes to list")
      ->check(CLI::Range(1, 1000));
  report_cmd->add_option("--gpu", report.gpu, kGpuHelp)->check(checkGpuName);

  MergeOptions merge;
  CLI::App* merge_cmd = app.add_subcommand(
      "merge", "Analyze a distributed job from its ranks' results (the reduce step): each input is the output of "
               "`ampscope analyze RANK --json` or of an earlier merge");
  merge_cmd->add_option("results", merge.inputs, "JSON results of analyze --json or merge --json")->required();
  merge_cmd->add_flag("--json", merge.json, "Print the job as JSON on stdout");
  merge_cmd->add_option("--out", merge.out_dir, "Also write the job's report into this folder");
  merge_cmd->add_option("--top", merge.top, "How many collective families to list")->check(CLI::Range(1, 1000));

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

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << commandLineError(app, e, argc, argv);
    return kExitBadInput;
  }
  if (*analyze_cmd) return runAnalyze(analyze, std::cout, std::cerr);
  if (*diff_cmd) return runDiff(diff, std::cout, std::cerr);
  if (*merge_cmd) return runMerge(merge, std::cout, std::cerr);
  if (*report_cmd) return runReport(report, std::cout, std::cerr);
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
