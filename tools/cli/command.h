// What every `loaderx` command is: a `CommandSpec` (its arguments, options
// and help) and a function run with the parsed arguments and a
// `CommandContext` (where output goes, whether progress is drawn). A
// command returns OK, or the error that `ExitCodeFor` turns into its exit
// code (after printing what it found, e.g. `verify`'s report before its
// DataLoss). Each group of commands lives in its own file and lists its
// commands through one function below.

#ifndef LOADERX_TOOLS_CLI_COMMAND_H_
#define LOADERX_TOOLS_CLI_COMMAND_H_

#include <cstdio>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tools/cli/arguments.h"
#include "tools/cli/json_writer.h"

namespace loaderx::cli {

struct CommandContext {
  std::ostream& out;      // Results: text, JSON or raw records.
  std::ostream& err;      // Messages.
  std::string program;    // "loaderx" or "python -m loaderx", for messages.
  bool progress = false;  // Draw progress bars on `progress_stream`.
  std::FILE* progress_stream = stderr;
};

struct Command {
  CommandSpec spec;
  std::function<absl::Status(const ParsedArguments&, CommandContext&)> run;
  // Whether the command writes a staged destination and so catches SIGINT
  // and SIGTERM to remove it (`interrupt.h`); the others die at once, as
  // any command-line tool does, which loses nothing.
  bool catches_interrupts = false;
};

// The commands, by group (commands_*.cc).
std::vector<Command> InspectCommands();   // info, stats, verify
std::vector<Command> MaintainCommands();  // compact, recode
std::vector<Command> ImportCommands();    // import
std::vector<Command> ExportCommands();    // export
std::vector<Command> RecordCommands();    // head, cat
std::vector<Command> SetCommands();       // set create

// The options several commands share.
OptionSpec JsonOption();
OptionSpec QuietOption();

// Writes `json` to `context.out`, newline-terminated.
void PrintJson(CommandContext& context, const Json& json);
// Writes "name  value" lines, the names padded to one column.
void PrintFields(
    CommandContext& context,
    const std::vector<std::pair<std::string, std::string>>& fields);

}  // namespace loaderx::cli

#endif  // LOADERX_TOOLS_CLI_COMMAND_H_
