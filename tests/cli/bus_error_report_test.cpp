// A trace file shrunk by another program while ampscope has it mapped: reading the lost pages
// raises SIGBUS, which must become a message naming the file and an exit with the bad-input code,
// not a silent death.

#include "cli/bus_error_report.h"

#include <signal.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "analyzer/import/byte_source.h"
#include "cli/exit_codes.h"
#include "tests/test_support.h"

namespace ampscope::cli {
namespace {

TEST(BusErrorReportDeathTest, ATraceFileThatShrinksWhileMappedIsNamedWithTheOffsetRead) {
  test::ScratchDir dir;
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::string path = dir.write("shrinking.json", std::string(4 * page, ' ') + "[]");
  auto source = analyzer::import::ByteSource::open(path);
  ASSERT_TRUE(source.ok()) << source.error().message;
  const analyzer::import::MappedFile* mapped = (*source)->mapping();
  ASSERT_NE(mapped, nullptr) << "a plain file is read through a mapping";
  EXPECT_EXIT(
      {
        reportShrunkTraceFilesOnBusError();
        if (truncate(path.c_str(), 0) != 0) _exit(99);
        const volatile char lost = mapped->data()[3 * page];
        (void)lost;
        _exit(98);  // not reached: the page is gone
      },
      testing::ExitedWithCode(kExitBadInput),
      "shrinking\\.json: the file shrank while it was being read \\(reading byte offset " +
          std::to_string(3 * page) + " failed\\)");
}

TEST(BusErrorReportDeathTest, ABusErrorOutsideAnyMappedTraceKeepsItsDefaultAction) {
  EXPECT_EXIT(
      {
        reportShrunkTraceFilesOnBusError();
        raise(SIGBUS);
      },
      testing::KilledBySignal(SIGBUS), "");
}

}  // namespace
}  // namespace ampscope::cli
