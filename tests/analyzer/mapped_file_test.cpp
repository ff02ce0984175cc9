// A trace file that loses pages while it is mapped (another program shrinks it, or its storage
// fails): reading them raises SIGBUS, which must not end the process (the command, the GUI or a
// Python session) but read as zeros and make the import an error naming the file and the offset.

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "../test_support.h"
#include "analyzer/import/byte_source.h"
#include "analyzer/import/mapped_file.h"
#include "analyzer/import/trace_importer.h"

namespace ampscope::analyzer::import {
namespace {

const std::size_t kPage = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));

std::unique_ptr<ByteSource> openMapped(const std::string& path) {
  auto source = ByteSource::open(path);
  EXPECT_TRUE(source.ok()) << source.error().message;
  if (!source.ok()) return nullptr;
  EXPECT_NE((*source)->mapping(), nullptr) << "a plain file is read through a mapping";
  return std::move(source).value();
}

// Truncated to nothing, as a program that opens the file again to write it anew: no page of the
// file's is left, so every read of it faults (a page left partly inside a shorter file may be
// kept mapped by the kernel and read zeros past the end without a fault; the import's size check
// covers that, below).
TEST(MappedFileTest, PagesLostWhenTheFileShrinksReadAsZerosFromTheLowestPageThatFaulted) {
  test::ScratchDir dir;
  const std::string path = dir.write("shrinking.json", std::string(6 * kPage, 'x'));
  const auto source = openMapped(path);
  ASSERT_NE(source, nullptr);
  const MappedFile& mapped = *source->mapping();
  EXPECT_FALSE(mapped.lostFrom().has_value());
  EXPECT_TRUE(source->unchangedWhileRead().ok());
  EXPECT_EQ(mapped.data()[4 * kPage], 'x');

  ASSERT_EQ(truncate(path.c_str(), 0), 0);
  const volatile char* bytes = mapped.data();
  EXPECT_EQ(bytes[4 * kPage + 5], 0) << "a lost page reads as zeros";
  ASSERT_TRUE(mapped.lostFrom().has_value());
  EXPECT_EQ(*mapped.lostFrom(), 4 * kPage);
  EXPECT_EQ(bytes[5 * kPage], 0) << "the pages after the first lost one were replaced with it";
  EXPECT_EQ(*mapped.lostFrom(), 4 * kPage);
  EXPECT_EQ(bytes[2 * kPage + 1], 0);
  EXPECT_EQ(*mapped.lostFrom(), 2 * kPage) << "the lowest page lost is kept";
  EXPECT_EQ(bytes[4 * kPage], 0);
  EXPECT_EQ(*mapped.lostFrom(), 2 * kPage);

  const Status unchanged = source->unchangedWhileRead();
  ASSERT_FALSE(unchanged.ok());
  EXPECT_NE(unchanged.error().message.find(path + ": the file shrank"), std::string::npos) << unchanged.error().message;
  EXPECT_NE(unchanged.error().message.find(fmt::format("from offset {} on", 2 * kPage)), std::string::npos)
      << unchanged.error().message;
}

TEST(MappedFileTest, AFileWhoseSizeChangedSinceItWasOpenedIsNamedWithBothSizes) {
  test::ScratchDir dir;
  const std::string path = dir.write("growing.json", std::string(2 * kPage, 'x'));
  const auto source = openMapped(path);
  ASSERT_NE(source, nullptr);
  ASSERT_EQ(truncate(path.c_str(), static_cast<off_t>(3 * kPage)), 0);  // as a writer appending
  const Status unchanged = source->unchangedWhileRead();
  ASSERT_FALSE(unchanged.ok());
  EXPECT_NE(unchanged.error().message.find(fmt::format("{}: the file changed while it was being read (its size went "
                                                       "from {} to {} bytes)",
                                                       path, 2 * kPage, 3 * kPage)),
            std::string::npos)
      << unchanged.error().message;
}

TEST(MappedFileTest, EachMappingKeepsItsOwnLostPages) {
  test::ScratchDir dir;
  const std::string shrinking = dir.write("shrinking.json", std::string(4 * kPage, 'x'));
  const std::string kept = dir.write("kept.json", std::string(4 * kPage, 'y'));
  const auto shrinking_source = openMapped(shrinking);
  const auto kept_source = openMapped(kept);
  ASSERT_NE(shrinking_source, nullptr);
  ASSERT_NE(kept_source, nullptr);
  ASSERT_EQ(truncate(shrinking.c_str(), 0), 0);
  EXPECT_EQ(static_cast<const volatile char*>(shrinking_source->mapping()->data())[kPage], 0);
  EXPECT_EQ(static_cast<const volatile char*>(kept_source->mapping()->data())[kPage], 'y');
  EXPECT_EQ(shrinking_source->mapping()->lostFrom(), std::optional<std::uint64_t>(kPage));
  EXPECT_FALSE(kept_source->mapping()->lostFrom().has_value());
}

// A SIGBUS that is not a lost page of a mapped file goes to the handler installed before the
// guard's: tests/analyzer/lost_page_guard_test.cpp.

// Several megabytes of kernels and launches, so that the import reads many batches.
std::string kinetoTrace(int events) {
  std::string json = "{\"schemaVersion\": 1, \"traceEvents\": [\n";
  for (int i = 0; i < events; ++i) {
    if (i > 0) json += ",\n";
    if (i % 2 == 0) {
      json += fmt::format(R"({{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, )"
                          R"("ts": {}, "dur": 4, "args": {{"correlation": {}}}}})",
                          i * 10, i);
    } else {
      json += fmt::format(R"({{"ph": "X", "cat": "kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": 7, )"
                          R"("ts": {}, "dur": 8, "args": {{"correlation": {}, "device": 0, "stream": 7, )"
                          R"("grid": [80, 1, 1], "block": [256, 1, 1]}}}})",
                          i * 10 + 5, i - 1);
    }
  }
  return json + "\n]}\n";
}

class ShrinkDuringImportTest : public testing::TestWithParam<unsigned> {};

TEST_P(ShrinkDuringImportTest, IsAnErrorNamingTheFileThatChanged) {
  test::ScratchDir dir;
  const std::string path = dir.write("rewritten.pt.trace.json", kinetoTrace(40'000));
  bool truncated = false;
  ImportOptions options{.progress = [&](std::uint64_t, std::uint64_t) {
                          // As a profiler that opens its trace again to write it anew.
                          if (!truncated) truncated = truncate(path.c_str(), 0) == 0;
                        },
                        .threads = GetParam()};
  const auto imported = importTrace(path, options);
  ASSERT_TRUE(truncated);
  ASSERT_FALSE(imported.ok()) << "a trace read over lost pages must not pass as the file's";
  // Either way of telling (the pages that faulted, or the size), never what the parse made of zeros.
  const std::string& message = imported.error().message;
  EXPECT_EQ(message.rfind(path + ": the file ", 0), 0u) << message;
  EXPECT_NE(message.find("while it was being read"), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(Threads, ShrinkDuringImportTest, testing::Values(1u, 2u));

}  // namespace
}  // namespace ampscope::analyzer::import
