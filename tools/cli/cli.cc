#include "tools/cli/cli.h"

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "tools/cli/command.h"
#include "tools/cli/exit_code.h"
#include "tools/cli/interrupt.h"
#include "tools/cli/progress.h"

namespace loaderx::cli {
namespace {

std::vector<Command> AllCommands() {
  std::vector<Command> commands;
  for (auto group : {InspectCommands, MaintainCommands, ImportCommands,
                     ExportCommands, RecordCommands, SetCommands}) {
    for (Command& command : group()) commands.push_back(std::move(command));
  }
  return commands;
}

std::string ProgramHelp(const std::vector<Command>& commands,
                        const std::string& program) {
  std::string help = absl::StrFormat(
      "usage: %s COMMAND [options] ARGUMENTS\n\n"
      "Inspect, verify and convert loaderx stores.\n\ncommands:\n",
      program);
  for (const Command& command : commands) {
    absl::StrAppendFormat(&help, "  %-9s %s\n", command.spec.name,
                          command.spec.summary);
  }
  absl::StrAppendFormat(
      &help,
      "\n'%s COMMAND --help' describes a command. Inspecting commands take "
      "--json.\nExit status: 0 ok, 1 damaged data, 2 usage (bad arguments, "
      "not a store),\n3 failure (I/O, busy), 130 interrupted.\n",
      program);
  return help;
}

}  // namespace

OptionSpec JsonOption() {
  return {"--json", "", "print the result as JSON, for programs"};
}

OptionSpec QuietOption() {
  return {"--quiet", "", "no progress bar, even on a terminal"};
}

void PrintJson(CommandContext& context, const Json& json) {
  context.out << json.Dump() << "\n";
}

void PrintFields(
    CommandContext& context,
    const std::vector<std::pair<std::string, std::string>>& fields) {
  size_t width = 0;
  for (const auto& field : fields) width = std::max(width, field.first.size());
  for (const auto& [name, value] : fields) {
    context.out << absl::StrFormat("%-*s  %s\n", width, name, value);
  }
}

int RunCli(const std::vector<std::string>& arguments, std::ostream& out,
           std::ostream& err) {
  const std::string program = arguments.empty() ? "loaderx" : arguments[0];
  const std::vector<Command> commands = AllCommands();
  if (arguments.size() < 2) {
    err << ProgramHelp(commands, program);
    return kExitUsage;
  }
  const std::string& name = arguments[1];
  if (name == "--help" || name == "-h" || name == "help") {
    out << ProgramHelp(commands, program);
    return kExitOk;
  }
  const Command* command = nullptr;
  for (const Command& candidate : commands) {
    if (candidate.spec.name == name) command = &candidate;
  }
  if (command == nullptr) {
    err << program << ": unknown command '" << name << "'; see '" << program
        << " --help'\n";
    return kExitUsage;
  }
  const std::vector<std::string> words(arguments.begin() + 2, arguments.end());
  absl::StatusOr<ParsedArguments> parsed = ParseArguments(command->spec, words);
  if (!parsed.ok()) {
    err << program << " " << name << ": " << parsed.status().message()
        << "\nusage: " << program << " " << name << " [options] "
        << command->spec.arguments << " (see '" << program << " " << name
        << " --help')\n";
    return kExitUsage;
  }
  if (parsed->help) {
    out << CommandHelp(command->spec, program);
    return kExitOk;
  }
  CommandContext context{out, err, program};
  context.progress = StderrIsTerminal() && !parsed->Has("--quiet");
  absl::Status status;
  {
    ScopedInterruptHandler interrupts(command->catches_interrupts);
    status = command->run(*parsed, context);
  }
  out.flush();
  if (status.ok()) return kExitOk;
  err << program << " " << name << ": " << status.message() << "\n";
  return ExitCodeFor(status);
}

}  // namespace loaderx::cli
