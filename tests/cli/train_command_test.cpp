// `ampscope train` run as a program: a training step that fails below the Backend interface ends
// the command with one line on stderr naming the step, the layer op and the library's message,
// and exit code 1 (never an abort). Failures are injected on the CPU through the test-only
// variable AMPSCOPE_TRAIN_FAULT (cli/train_command.h), or are real: host memory running out.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "cli/exit_codes.h"
#include "tests/test_support.h"

namespace ampscope::cli {
namespace {

struct TrainRun {
  int exit_code = -1;  // -1: killed by a signal
  std::string out;
  std::string err;
};

// prefix: shell words before the command (variables, a ulimit); args: train's options.
TrainRun train(const test::ScratchDir& dir, const std::string& prefix, const std::string& args) {
  const std::string out = dir.file("out.txt");
  const std::string err = dir.file("err.txt");
  const std::string command = prefix + " " + AMPSCOPE_BINARY + " train --device cpu --data synthetic " + args + " > " +
                              out + " 2> " + err;
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, test::readFile(out), test::readFile(err)};
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The MLP is flatten, fc1, act1, fc2: six GEMMs a step (two forward, two per layer backward).
constexpr const char* kSmallMlp = "--model mlp --hidden 16 --batch 32 --steps 4";

TEST(TrainCommandTest, BackendFailureInTheFirstStepIsTheOnlyLineOnStderrAndExitsWith1) {
  test::ScratchDir dir;
  const TrainRun run = train(dir, "AMPSCOPE_TRAIN_FAULT=gemm:1", kSmallMlp);
  EXPECT_EQ(run.exit_code, kExitFailure) << run.err;
  EXPECT_EQ(run.err, "ampscope train: step 0, fc1 linear forward: fault injection: gemm call 1 failed as planned\n");
  EXPECT_EQ(run.out.find("test accuracy"), std::string::npos) << "no result after a failure: " << run.out;
}

TEST(TrainCommandTest, BackendFailureAfterSomeStepsEndsStderrWithOneErrorLine) {
  test::ScratchDir dir;
  const TrainRun run = train(dir, "AMPSCOPE_TRAIN_FAULT=gemm:16", std::string(kSmallMlp) + " --json");
  EXPECT_EQ(run.exit_code, kExitFailure) << run.err;
  const std::vector<std::string> err = lines(run.err);
  ASSERT_FALSE(err.empty());
  EXPECT_EQ(err.back(), "ampscope train: step 2, fc2 linear backward: fault injection: gemm call 16 failed as planned");
  for (std::size_t i = 0; i + 1 < err.size(); ++i) {
    EXPECT_EQ(err[i].rfind("step ", 0), 0u) << "only progress lines before the error: " << err[i];
  }
  EXPECT_TRUE(run.out.empty()) << "no JSON summary after a failure: " << run.out;
}

TEST(TrainCommandTest, JsonSaysWhatASteadyStepAsksOfTheDevice) {
  test::ScratchDir dir;
  const TrainRun plain = train(dir, "", "--model mlp --hidden 16 --batch 32 --steps 30 --log-every 10 --json");
  ASSERT_EQ(plain.exit_code, kExitOk) << plain.err;
  const nlohmann::json run = nlohmann::json::parse(plain.out);
  // Steps 1-29 but the reads at 10, 20 and 29: the step at 0 is no one's steady step.
  EXPECT_EQ(run.at("steady_steps"), 26);
  EXPECT_EQ(run.at("host_reads_per_step"), 0.0);
  EXPECT_GT(run.at("launches_per_step").at("forward").get<double>(), 0.0);
  EXPECT_EQ(run.at("launches_per_step").at("total").get<double>(),
            run.at("launches_per_step").at("data").get<double>() + run.at("launches_per_step").at("forward").get<double>() +
                run.at("launches_per_step").at("backward").get<double>() +
                run.at("launches_per_step").at("loss_scale").get<double>() +
                run.at("launches_per_step").at("optimizer").get<double>());
  EXPECT_GT(run.at("device_ms_per_step").at("total").get<double>(), 0.0);
  EXPECT_EQ(run.at("reading_steps").at("steps"), 3);
  EXPECT_EQ(run.at("reading_steps").at("host_reads_per_step"), 1.0);
  EXPECT_TRUE(run.at("cuda_graph").is_null());

  const TrainRun graphed =
      train(dir, "", "--model mlp --hidden 16 --batch 32 --steps 30 --log-every 10 --cuda-graph --json");
  ASSERT_EQ(graphed.exit_code, kExitOk) << graphed.err;
  const nlohmann::json with_graph = nlohmann::json::parse(graphed.out);
  EXPECT_EQ(with_graph.at("cuda_graph").at("captured_at_step"), 2);
  EXPECT_EQ(with_graph.at("launches_per_step").at("total"), 4.0);  // two inputs, the learning rate, the graph
  EXPECT_TRUE(with_graph.at("device_ms_per_step").at("forward").is_null());
  EXPECT_EQ(with_graph.at("final_loss"), run.at("final_loss"));
}

TEST(TrainCommandTest, UnknownFaultPlanIsBadInput) {
  test::ScratchDir dir;
  const TrainRun run = train(dir, "AMPSCOPE_TRAIN_FAULT=gemmm:2", kSmallMlp);
  EXPECT_EQ(run.exit_code, kExitBadInput) << run.err;
  const std::vector<std::string> err = lines(run.err);
  ASSERT_EQ(err.size(), 1u) << run.err;
  EXPECT_EQ(err[0].rfind("ampscope train: AMPSCOPE_TRAIN_FAULT: fault plan 'gemmm:2': unknown op 'gemmm'", 0), 0u)
      << err[0];
}

TEST(TrainCommandTest, HostOutOfMemoryInTheCpuBackendIsOneLineAndExitsWith1) {
  // fc1's weight, [1048576, 784] in FP32, is 3.06 GiB: more than the 2.86 GiB of address space the
  // command gets, while its code, libraries and data take under 1 GiB. It is the run's first
  // allocation, so the failure comes at setup, before OpenBLAS (which waits for memory instead of
  // failing) ever runs.
  test::ScratchDir dir;
  const TrainRun run = train(dir, "ulimit -v 3000000;", "--model mlp --hidden 1048576 --steps 1");
  EXPECT_EQ(run.exit_code, kExitFailure) << run.err;
  const std::vector<std::string> err = lines(run.err);
  ASSERT_EQ(err.size(), 1u) << run.err;
  EXPECT_EQ(err[0].rfind("ampscope train: setup: CPU backend: out of host memory for a [1048576,784] float32 tensor", 0),
            0u)
      << err[0];
}

}  // namespace
}  // namespace ampscope::cli
