#include "analyzer/import/kineto/chrome_trace_stream.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include "../test_support.h"

namespace ampscope::analyzer::import {
namespace {

struct StreamResult {
  trace::Status status;
  std::vector<std::string> events;
  std::vector<std::uint64_t> offsets;
  std::vector<std::pair<std::string, std::string>> members;
  bool mapped = false;  // read in place from the mapped file
};

// block: bytes read at a time, through read(); 0: the file mapped in place.
StreamResult readAll(const std::string& path, std::size_t block) {
  StreamResult result;
  auto source = ByteSource::open(path, block == 0 ? ByteSource::PlainFileAccess::kMapWhereAllowed
                                                  : ByteSource::PlainFileAccess::kReadOnly);
  EXPECT_TRUE(source.ok());
  result.mapped = (*source)->mapping() != nullptr;
  ChromeTraceStream stream(**source, block);
  result.status = stream.run(
      [&](const TraceEventText& text) {
        result.events.emplace_back(text.json);
        result.offsets.push_back(text.byte_offset);
        EXPECT_GE(text.padded_capacity, text.json.size() + 64);
        return trace::Status{};
      },
      {});
  result.members = stream.members();
  return result;
}

// Braces, brackets and escaped quotes inside strings must not confuse the element scanner.
const std::string kTrickyTrace =
    "{\"schemaVersion\": 1, \"meta\": {\"a\": [1, {\"b\": \"}]\"}]},\n"
    " \"traceEvents\": [\n"
    "  {\"name\": \"k{1}\", \"ts\": 1.5, \"args\": {\"s\": \"\\\"}\\\\\"}},\n"
    "  {\"name\": \"[x]\", \"ph\": \"X\"} ,{\"e\":{}}\n"
    " ],\n"
    " \"baseTimeNanoseconds\": 1751410836000000000, \"unit\": \"ms\"}\n";

TEST(ChromeTraceStreamTest, SplitsEventsIdenticallyWhateverTheReadBlockSize) {
  test::ScratchDir dir;
  const std::string path = dir.write("tricky.json", kTrickyTrace);
  const StreamResult reference = readAll(path, 0);
  ASSERT_TRUE(reference.status.ok()) << reference.status.error().message;
  EXPECT_TRUE(reference.mapped);
  ASSERT_EQ(reference.events.size(), 3u);
  EXPECT_EQ(reference.events[0], "{\"name\": \"k{1}\", \"ts\": 1.5, \"args\": {\"s\": \"\\\"}\\\\\"}}");
  EXPECT_EQ(reference.events[2], "{\"e\":{}}");
  EXPECT_EQ(kTrickyTrace.substr(reference.offsets[1], 3), "{\"n");
  ASSERT_EQ(reference.members.size(), 4u);
  EXPECT_EQ(reference.members[1].second, "{\"a\": [1, {\"b\": \"}]\"}]}");
  EXPECT_EQ(reference.members[2].second, "1751410836000000000");
  for (std::size_t block : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7}, std::size_t{16},
                            std::size_t{61}, ChromeTraceStream::kDefaultReadBlock}) {
    const StreamResult chunked = readAll(path, block);
    EXPECT_FALSE(chunked.mapped);
    ASSERT_TRUE(chunked.status.ok()) << "block " << block << ": " << chunked.status.error().message;
    EXPECT_EQ(chunked.events, reference.events) << "block " << block;
    EXPECT_EQ(chunked.offsets, reference.offsets) << "block " << block;
    EXPECT_EQ(chunked.members, reference.members) << "block " << block;
  }
}

TEST(ChromeTraceStreamTest, ReadsGzipTheSameAsPlainText) {
  test::ScratchDir dir;
  const std::string path = dir.file("tricky.json.gz");
  gzFile gz = gzopen(path.c_str(), "wb");
  gzwrite(gz, kTrickyTrace.data(), static_cast<unsigned>(kTrickyTrace.size()));
  gzclose(gz);
  const StreamResult result = readAll(path, 5);
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  EXPECT_EQ(result.events.size(), 3u);
}

TEST(ChromeTraceStreamTest, BareArrayOfEventsIsAccepted) {
  test::ScratchDir dir;
  const StreamResult result = readAll(dir.write("bare.json", "[{\"a\":1},{\"b\":2}]"), 4);
  ASSERT_TRUE(result.status.ok());
  EXPECT_EQ(result.events.size(), 2u);
}

TEST(ChromeTraceStreamTest, TruncationInsideAnEventNamesItsIndexAndOffset) {
  test::ScratchDir dir;
  const std::string text = "{\"traceEvents\": [{\"a\": 1}, {\"b\": \"unterminated";
  const std::string path = dir.write("cut.json", text);
  for (std::size_t block : {0, 8}) {
    const StreamResult result = readAll(path, block);
    ASSERT_FALSE(result.status.ok());
    const std::string& message = result.status.error().message;
    EXPECT_NE(message.find("truncated"), std::string::npos) << message;
    EXPECT_NE(message.find("traceEvents element #1"), std::string::npos) << message;
    EXPECT_NE(message.find("byte offset 27"), std::string::npos) << message;
  }
}

TEST(ChromeTraceStreamTest, GarbageBetweenEventsIsReportedAtItsOffset) {
  test::ScratchDir dir;
  const std::string path = dir.write("bad.json", "{\"traceEvents\": [{\"a\": 1} x]}");
  for (std::size_t block : {0, 64}) {
    const StreamResult result = readAll(path, block);
    ASSERT_FALSE(result.status.ok());
    EXPECT_NE(result.status.error().message.find("byte offset 26"), std::string::npos)
        << result.status.error().message;
  }
}

TEST(ChromeTraceStreamTest, TrailingContentAfterTheDocumentIsAnError) {
  test::ScratchDir dir;
  const StreamResult result = readAll(dir.write("two.json", "{\"traceEvents\": []} {}"), 64);
  ASSERT_FALSE(result.status.ok());
  EXPECT_NE(result.status.error().message.find("after the end of the document"), std::string::npos);
}

}  // namespace
}  // namespace ampscope::analyzer::import
