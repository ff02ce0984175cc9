#include "analyzer/core/read_window.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace ampscope::analyzer {

namespace {

constexpr std::string_view kExpected = "expected START:END in seconds (2.5:4) or step:N-M (step:3-5)";

template <typename Number>
bool parseWhole(std::string_view text, Number& out) {
  const char* end = text.data() + text.size();
  const auto [at, error] = std::from_chars(text.data(), end, out);
  return error == std::errc() && at == end && !text.empty();
}

}  // namespace

trace::Result<ReadWindow> parseReadWindow(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return trace::Error{fmt::format("--window {}: {}; {}", text, why, kExpected)};
  };
  if (text.starts_with("step:")) {
    const std::string_view steps = text.substr(5);
    const std::size_t dash = steps.find('-');
    StepWindow window;
    if (dash == std::string_view::npos) {
      if (!parseWhole(steps, window.first)) return bad("not a step number");
      window.last = window.first;
    } else if (!parseWhole(steps.substr(0, dash), window.first) || !parseWhole(steps.substr(dash + 1), window.last)) {
      return bad("not two step numbers");
    }
    if (window.first < 0 || window.last < window.first) return bad("the steps must be 0 <= N <= M");
    return ReadWindow{window};
  }
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) return bad("no ':'");
  SecondsWindow window;
  if (!parseWhole(text.substr(0, colon), window.from_s) || !parseWhole(text.substr(colon + 1), window.to_s)) {
    return bad("not two numbers of seconds");
  }
  if (!std::isfinite(window.from_s) || !std::isfinite(window.to_s) || window.from_s < 0 || window.to_s <= window.from_s) {
    return bad("the seconds must be 0 <= START < END");
  }
  return ReadWindow{window};
}

std::string readWindowText(const ReadWindow& window) {
  if (const auto* steps = std::get_if<StepWindow>(&window)) {
    return steps->first == steps->last ? fmt::format("step:{}", steps->first)
                                       : fmt::format("step:{}-{}", steps->first, steps->last);
  }
  const auto& seconds = std::get<SecondsWindow>(window);
  return fmt::format("{}:{}", seconds.from_s, seconds.to_s);
}

}  // namespace ampscope::analyzer
