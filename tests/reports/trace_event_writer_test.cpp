// The streaming JSON event writer: strings with quotes, backslashes, control characters and
// invalid UTF-8 come back from a JSON parser as written (or as U+FFFD), times keep their
// nanoseconds, and the document parses.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "reports/trace_event_writer.h"

namespace ampscope::reports {
namespace {

std::string roundTrip(const std::string& text) {
  std::string out;
  appendJsonString(out, text);
  return nlohmann::json::parse(out).get<std::string>();
}

TEST(TraceEventWriterTest, StringsWithQuotesBackslashesAndControlCharactersRoundTrip) {
  // Its length from sizeof, not counted by hand: the literal holds a NUL, and a count of 59 read
  // four bytes past its 55 (global-buffer-overflow under scripts/sanitize.sh).
  static constexpr char kControlCharacters[] = "tab\there, newline\nthere, nul\0byte, bell\x07, escape\x1b, del\x7f";
  const std::string names[] = {
      "void at::native::kernel<\"quoted\">(float*)",
      "C:\\path\\to\\kernel",
      std::string(kControlCharacters, sizeof(kControlCharacters) - 1),
      "\xce\xbb \xe2\x86\x92 \xf0\x9f\x9a\x80",  // λ → 🚀: valid UTF-8 stays as it is
      "",
  };
  for (const std::string& name : names) EXPECT_EQ(roundTrip(name), name);
}

TEST(TraceEventWriterTest, InvalidUtf8BecomesReplacementCharacters) {
  // A lone continuation byte, a truncated sequence, an overlong '/' and a surrogate.
  EXPECT_EQ(roundTrip("a\x80z"), "a\xef\xbf\xbdz");
  EXPECT_EQ(roundTrip("a\xe2\x86"), "a\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(roundTrip("\xc0\xaf"), "\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(roundTrip("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
}

TEST(TraceEventWriterTest, MicrosecondsKeepEveryNanosecond) {
  std::string out;
  appendMicroseconds(out, 1'623'142'623'460'072'123);
  EXPECT_EQ(out, "1623142623460072.123");
  out.clear();
  appendMicroseconds(out, 5);
  EXPECT_EQ(out, "0.005");
  out.clear();
  appendMicroseconds(out, -1'500);
  EXPECT_EQ(out, "-1.500");
}

TEST(TraceEventWriterTest, WritesAParseableDocumentWithArgs) {
  std::ostringstream stream;
  TraceEventWriter writer(stream, "\"otherData\":{\"k\":\"v\"}");
  for (int i = 0; i < 3; ++i) {
    TraceEvent e(writer.buffer());
    e.field("ph", "X").field("name", "k\"\\").field("pid", i).time("ts", 1'234'567).time("dur", 1);
    e.beginArgs().field("tflops", 12.5).field("nan", std::nan("")).field("yes", true).endArgs();
    writer.write(e.done());
  }
  writer.finish();
  const auto document = nlohmann::json::parse(stream.str());
  EXPECT_EQ(document["otherData"]["k"], "v");
  ASSERT_EQ(document["traceEvents"].size(), 3u);
  const auto& event = document["traceEvents"][2];
  EXPECT_EQ(event["name"], "k\"\\");
  EXPECT_EQ(event["pid"], 2);
  EXPECT_DOUBLE_EQ(event["ts"].get<double>(), 1234.567);
  EXPECT_DOUBLE_EQ(event["args"]["tflops"].get<double>(), 12.5);
  EXPECT_FALSE(event["args"].contains("nan"));  // JSON has no NaN: left out, not written as a number
  EXPECT_EQ(writer.events(), 3u);
}

}  // namespace
}  // namespace ampscope::reports
