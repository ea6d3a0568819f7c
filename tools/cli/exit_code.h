// The `loaderx` command's exit codes, for scripts:
//
//   0    success (`verify`: every record checked out)
//   1    damage: `verify` found damaged records, or a store's bytes failed
//        to decode or match their checksums
//   2    usage: wrong arguments, no store at the path, a directory that is
//        not a loaderx store, an input file that is not what it claims,
//        a destination that already exists
//   3    failure: an I/O error, a store held by another process, anything
//        else the system refused
//   130  interrupted (SIGINT or SIGTERM); the destination was removed
//
// `ExitCodeFor` maps an engine status onto them.

#ifndef LOADERX_TOOLS_CLI_EXIT_CODE_H_
#define LOADERX_TOOLS_CLI_EXIT_CODE_H_

#include "absl/status/status.h"

namespace loaderx::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitDamaged = 1,
  kExitUsage = 2,
  kExitFailed = 3,
  kExitInterrupted = 130,
};

// The exit code for a command that failed with `status` (kExitOk for OK).
ExitCode ExitCodeFor(const absl::Status& status);

}  // namespace loaderx::cli

#endif  // LOADERX_TOOLS_CLI_EXIT_CODE_H_
