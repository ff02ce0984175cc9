#include "collector/inject/process_profile_path.h"

#include <gtest/gtest.h>

namespace ampscope::collector {
namespace {

TEST(ProcessProfilePathTest, PutsThePidBeforeTheExtensionBesideTheProfile) {
  EXPECT_EQ(processProfilePath("/data/run.sqlite", 4242), "/data/run.4242.sqlite");
  EXPECT_EQ(processProfilePath("/data/run", 7), "/data/run.7");
  EXPECT_EQ(processProfilePath("/data/my.run.sqlite", 12), "/data/my.run.12.sqlite");
}

TEST(ProcessProfilePathTest, RecognisesExactlyTheNamesItGives) {
  for (const char* output : {"/data/run.sqlite", "/data/run", "/data/my.run.sqlite"}) {
    const std::string path = processProfilePath(output, 4242);
    const std::string name = path.substr(path.rfind('/') + 1);
    EXPECT_EQ(processOfProfilePath(name, output), 4242) << output;
  }
  const std::string output = "/data/run.sqlite";
  for (const char* other : {"run.sqlite", "run.sqlite-wal", "run.4242.sqlite-wal", "run.4242.sqlite.error",
                            "run..sqlite", "run.abc.sqlite", "run.-3.sqlite", "run.0.sqlite", "walk.4242.sqlite",
                            "run.4242.db", "run.12x.sqlite"}) {
    EXPECT_FALSE(processOfProfilePath(other, output).has_value()) << other;
  }
}

}  // namespace
}  // namespace ampscope::collector
