// Golden case trainer_profile: an ampscope profile database as `ampscope train --profile` writes
// it on the CPU backend (an MLP in amp-fp16 with the trainer's layer ranges, loss-scale counters,
// a skipped step and gradient histograms); every report file compared with
// tests/golden/trainer_profile/.
//
// A profile recorded by the trainer carries the host's real timings, different on every run, so
// this one is written through the profile database API (trace::db::writeProfile) from the fixed
// times of tests/analyzer/trainer_cpu_trace.h, in the order the collector records it and with its
// range texts left for the importer to read, as the collector leaves them. Nothing in it depends
// on the clock, the machine or the thread count: the same bytes on every run.

#include <gtest/gtest.h>

#include <string>

#include "golden_fixture.h"
#include "sql_script.h"
#include "tests/analyzer/trainer_cpu_trace.h"
#include "trace/db/profile_writer.h"

namespace ampscope::golden {
namespace {

TEST(GoldenReportTest, TrainerProfileOnTheCpuGivesTheExpectedReport) {
  const std::filesystem::path dir = kGoldenDir / "trainer_profile";
  test::ScratchDir scratch;
  const std::string profile_path = scratch.file("train.ampscope");
  const trace::Status written = trace::db::writeProfile(profile_path, test::trainerCpuRecording());
  ASSERT_TRUE(written) << written.error().message;
  // The profile, checked in as the SQL that rebuilds it, so that a change to what the writer
  // stores shows as a diff too.
  const trace::Result<std::string> profile = databaseAsScript(profile_path);
  ASSERT_TRUE(profile) << profile.error().message;
  expectGolden(*profile, dir / "profile.sql");
  expectReportMatchesGolden(dir, {profile_path}, scratch);
}

}  // namespace
}  // namespace ampscope::golden
