#include "cli/command_line_errors.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/exit_codes.h"

namespace ampscope::cli {

namespace {

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string> subcommandNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
  return names;
}

// Every long and short option name of a (sub)command, with its dashes: "--json", "-o".
std::vector<std::string> optionNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

std::string suggestion(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string closest = closestName(word, candidates);
  return closest.empty() ? std::string() : fmt::format("; did you mean '{}'?", closest);
}

// The subcommand the user named, if any.
const CLI::App* chosenCommand(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->parsed()) return sub;
  }
  return nullptr;
}

}  // namespace

std::string closestName(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = editDistance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  const std::size_t allowed = std::max<std::size_t>(2, word.size() / 3);
  return best_distance <= allowed ? best : std::string();
}

std::string commandLineError(const CLI::App& app, const CLI::ParseError& error, int argc, const char* const* argv) {
  const std::vector<std::string> commands = subcommandNames(app);
  const CLI::App* command = chosenCommand(app);
  // No command, or a first word that is none: name it and the commands there are.
  if (command == nullptr) {
    if (argc < 2) {
      return fmt::format("ampscope: a command is required: {} (ampscope --help)\n", fmt::join(commands, ", "));
    }
    const std::string_view first = argv[1];
    if (!first.starts_with("-")) {
      return fmt::format("ampscope: unknown command '{}'{} (commands: {}; ampscope --help)\n", first,
                         suggestion(first, commands), fmt::join(commands, ", "));
    }
  }
  const CLI::App& scope = command != nullptr ? *command : app;
  const std::string where = command != nullptr ? "ampscope " + command->get_name() : "ampscope";
  const std::string help = fmt::format("{} --help", where);
  // Unknown options: the first one, with the closest valid option.
  for (const std::string& extra : scope.remaining()) {
    if (!extra.starts_with("-")) continue;
    const std::string name = extra.substr(0, extra.find('='));
    return fmt::format("{}: unknown option '{}'{} ({})\n", where, name, suggestion(name, optionNames(scope)), help);
  }
  std::string what = error.what();
  if (!what.empty()) what[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(what[0])));
  return fmt::format("{}: {} ({})\n", where, what, help);
}

std::optional<int> parseCommandLine(CLI::App& app, int argc, const char* const* argv, std::ostream& out,
                                    std::ostream& err) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    err << commandLineError(app, e, argc, argv);
    return kExitBadInput;
  }
  return std::nullopt;
}

}  // namespace ampscope::cli
