// `ampscope` run as a program with a wrong command line: one line starting "ampscope", naming what
// is wrong and the closest valid word, exit code 2; `gui` without a display says how to run it
// headless. (The names themselves: closestName.)

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "cli/command_line_errors.h"
#include "cli/exit_codes.h"
#include "tests/test_support.h"

namespace ampscope::cli {
namespace {

struct CommandRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

CommandRun ampscope(const test::ScratchDir& dir, const std::string& args, const std::string& prefix = "") {
  const std::string out = dir.file("out.txt");
  const std::string err = dir.file("err.txt");
  const std::string command = prefix + " " + AMPSCOPE_BINARY + " " + args + " > " + out + " 2> " + err;
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, test::readFile(out), test::readFile(err)};
}

TEST(CommandLineTest, TheClosestNameIsSuggestedOnlyWhenClose) {
  EXPECT_EQ(closestName("--jsn", {"--json", "--top", "--gpu"}), "--json");
  EXPECT_EQ(closestName("analyz", {"analyze", "diff", "report"}), "analyze");
  EXPECT_EQ(closestName("frobnicate", {"analyze", "diff", "report", "merge"}), "");
}

TEST(CommandLineTest, AnUnknownCommandIsNamedWithTheCommands) {
  test::ScratchDir dir;
  const CommandRun run = ampscope(dir, "frobnicate");
  EXPECT_EQ(run.exit_code, kExitBadInput);
  EXPECT_EQ(run.err.rfind("ampscope: unknown command 'frobnicate' (commands: analyze, ", 0), 0u) << run.err;
  const CommandRun typo = ampscope(dir, "analyz trace.json");
  EXPECT_NE(typo.err.find("did you mean 'analyze'?"), std::string::npos) << typo.err;
  const CommandRun none = ampscope(dir, "");
  EXPECT_EQ(none.exit_code, kExitBadInput);
  EXPECT_EQ(none.err.rfind("ampscope: a command is required: analyze, ", 0), 0u) << none.err;
}

TEST(CommandLineTest, AnUnknownOptionGetsTheClosestOne) {
  test::ScratchDir dir;
  const CommandRun run = ampscope(dir, "analyze --jsn trace.json");
  EXPECT_EQ(run.exit_code, kExitBadInput);
  EXPECT_EQ(run.err, "ampscope analyze: unknown option '--jsn'; did you mean '--json'? (ampscope analyze --help)\n");
  const CommandRun missing = ampscope(dir, "report trace.json");
  EXPECT_EQ(missing.err, "ampscope report: --out is required (ampscope report --help)\n");
}

TEST(CommandLineTest, AWindowThatIsNoWindowSaysWhatItExpects) {
  test::ScratchDir dir;
  const CommandRun run = ampscope(dir, "analyze --window 4:2 trace.json");
  EXPECT_EQ(run.exit_code, kExitBadInput);
  EXPECT_EQ(run.err,
            "ampscope analyze: --window 4:2: the seconds must be 0 <= START < END; expected START:END in seconds "
            "(2.5:4) or step:N-M (step:3-5) (ampscope analyze --help)\n");
  const CommandRun steps = ampscope(dir, "report --out x --window step:5-3 trace.json");
  EXPECT_EQ(steps.exit_code, kExitBadInput);
  EXPECT_NE(steps.err.find("the steps must be 0 <= N <= M"), std::string::npos) << steps.err;
}

TEST(CommandLineTest, AWindowOfAnExportReadsOnlyThatPartAndSaysSo) {
  AMPSCOPE_REQUIRE_SHARED_TRACE(path, "nsys-h100x2-fp32gemm-emitnvtx/h100_2gpu_1s.sqlite");
  test::ScratchDir dir;
  const CommandRun run = ampscope(dir, "analyze --rank 0 --window 155.5:155.7 " + path);
  EXPECT_EQ(run.exit_code, kExitOk) << run.err;
  EXPECT_NE(run.out.find("window      --window 155.5:155.7: 200.00 ms of the recording read"), std::string::npos)
      << run.out;
  const CommandRun outside = ampscope(dir, "analyze --window 0.5:0.6 " + path);
  EXPECT_EQ(outside.exit_code, kExitBadInput);
  EXPECT_NE(outside.err.find("no records in it; the recording runs from 155.358 s to 156.327 s"), std::string::npos)
      << outside.err;
}

TEST(CommandLineTest, HelpShowsDefaults) {
  test::ScratchDir dir;
  const CommandRun run = ampscope(dir, "train --help");
  EXPECT_EQ(run.exit_code, kExitOk);
  EXPECT_NE(run.out.find("--batch INT:INT in [1 - 65536]=64"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("--precision TEXT=fp32"), std::string::npos) << run.out;
}

TEST(CommandLineTest, GuiWithoutADisplaySaysHowToRunHeadless) {
  test::ScratchDir dir;
  const CommandRun help = ampscope(dir, "gui --help", "env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM");
  if (help.err.find("this build has no GUI") != std::string::npos) GTEST_SKIP() << "built without Qt";
  EXPECT_EQ(help.exit_code, kExitOk) << help.err;
  EXPECT_NE(help.out.find("--screenshot"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("ranks"), std::string::npos) << "the tab names: " << help.out;
  const CommandRun run = ampscope(dir, "gui trace.json", "env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM");
  EXPECT_EQ(run.exit_code, kExitBadInput);
  EXPECT_EQ(run.err.rfind("ampscope gui: no display", 0), 0u) << run.err;
  EXPECT_NE(run.err.find("--screenshot FILE.png"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("QT_QPA_PLATFORM=offscreen"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace ampscope::cli
