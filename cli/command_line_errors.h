#pragma once
// What `ampscope` says when its command line is wrong: one line starting "ampscope:", naming the
// unknown command or option and suggesting the closest valid one, then where the help is.

#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
class ParseError;
}  // namespace CLI

namespace ampscope::cli {

// The candidate closest to word by edit distance, where close enough to be a likely typo (at most
// a third of its letters, at least 2); "" otherwise.
std::string closestName(std::string_view word, const std::vector<std::string>& candidates);

// The message for a parse error of app (argv as given). Ends in a newline.
std::string commandLineError(const CLI::App& app, const CLI::ParseError& error, int argc, const char* const* argv);

}  // namespace ampscope::cli
