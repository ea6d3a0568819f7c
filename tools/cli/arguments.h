// Command-line parsing for the `loaderx` command: each command declares its
// positional arguments and options in a `CommandSpec`, and
// `ParseArguments` checks a command line against it strictly (an unknown
// option, a missing value or a wrong number of positionals is
// InvalidArgument naming it). `--help`/`-h` is accepted by every command
// (`ParsedArguments::help`); `--json` by those that declare it. Options are
// `--name VALUE` or `--name=VALUE`; `--` ends the options.

#ifndef LOADERX_TOOLS_CLI_ARGUMENTS_H_
#define LOADERX_TOOLS_CLI_ARGUMENTS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace loaderx::cli {

struct OptionSpec {
  std::string name;        // "--codec"
  std::string value_name;  // "CODEC"; empty for a flag without a value.
  std::string help;
};

struct CommandSpec {
  std::string name;         // "recode"
  std::string arguments;    // "SOURCE DESTINATION", for the usage line.
  std::string summary;      // One line, for `loaderx --help`.
  std::string description;  // Paragraphs for `loaderx recode --help`.
  std::vector<OptionSpec> options;
  size_t min_positionals = 0;
  size_t max_positionals = 0;
};

class ParsedArguments {
 public:
  bool help = false;
  std::vector<std::string> positionals;

  bool Has(absl::string_view option) const;
  // The option's value, if given.
  std::optional<std::string> Value(absl::string_view option) const;
  // The option's value as a non-negative integer, or `fallback` if absent;
  // InvalidArgument for anything but decimal digits.
  absl::StatusOr<uint64_t> Number(absl::string_view option,
                                  uint64_t fallback) const;

 private:
  friend absl::StatusOr<ParsedArguments> ParseArguments(
      const CommandSpec& spec, absl::Span<const std::string> arguments);
  std::set<std::string, std::less<>> flags_;
  std::map<std::string, std::string, std::less<>> values_;
};

// Parses `arguments` (the words after the command's name) against `spec`.
// With `--help` anywhere, only the options are checked.
absl::StatusOr<ParsedArguments> ParseArguments(
    const CommandSpec& spec, absl::Span<const std::string> arguments);

// The `--help` text of a command, for the program called `program`.
std::string CommandHelp(const CommandSpec& spec, absl::string_view program);

}  // namespace loaderx::cli

#endif  // LOADERX_TOOLS_CLI_ARGUMENTS_H_
