// The `loaderx` command line: `RunCli` runs one command line and returns
// its exit code (see `exit_code.h`). The `loaderx` binary's `main` and the
// Python module's `python -m loaderx` (`loaderx_native.run_cli`) both call
// it, so there is one implementation.
//
//   loaderx COMMAND [options] ARGUMENTS     loaderx --help     loaderx COMMAND
//   --help
//
// Commands: info, stats, verify, compact, recode, import, export, head, cat.
// Results go to `out`; messages, and progress bars when `err` is a terminal,
// to `err`. SIGINT and SIGTERM are caught while it runs (the caller's
// handlers are restored after).

#ifndef LOADERX_TOOLS_CLI_CLI_H_
#define LOADERX_TOOLS_CLI_CLI_H_

#include <ostream>
#include <string>
#include <vector>

namespace loaderx::cli {

// `arguments[0]` is the program's name as it should appear in messages.
int RunCli(const std::vector<std::string>& arguments, std::ostream& out,
           std::ostream& err);

}  // namespace loaderx::cli

#endif  // LOADERX_TOOLS_CLI_CLI_H_
