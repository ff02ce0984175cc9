#pragma once
// What `ampscope` says when its command line is wrong: one line starting "ampscope:", naming the
// unknown command or option and suggesting the closest valid one, then where the help is.

#include <iosfwd>
#include <optional>
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

// Parses argv into app. Returns the exit code when the command line ends there (help written to
// out; a wrong command line's message to err, exit 2), nullopt when a subcommand is to run.
std::optional<int> parseCommandLine(CLI::App& app, int argc, const char* const* argv, std::ostream& out,
                                    std::ostream& err);

}  // namespace ampscope::cli
