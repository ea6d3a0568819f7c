// The kill loop's create mode: a child process creates a typed store on the
// real filesystem and is SIGKILLed before one of the creation's mutating
// filesystem calls (every one in turn: writes, truncations, syncs, creating
// opens, removes, renames, directory changes), dense and ragged, in every
// codec. After each kill the parent requires that the path is usable
// again: it opens as a store, or a new `Create` (of another dtype, and of
// the other kind every second time) takes it over and gives a working
// store. A path that does neither is "stuck"; the run lists each with the
// errors and fails if there is one.
//
//   bazel run -c opt //tools/stress:kill_loop -- --create [--dir=DIR]

#ifndef LOADERX_TOOLS_STRESS_CREATE_KILLS_H_
#define LOADERX_TOOLS_STRESS_CREATE_KILLS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace loaderx {

// What a create child does (`RunCreateChild`).
struct CreateKill {
  std::string path;      // The store to create.
  std::string kind;      // "dense" or "ragged".
  std::string codec;     // "raw", "zstd" or "zstd_dict".
  int64_t kill_at = -1;  // SIGKILL before this mutating call (0-based).
};

// The child: creates the store through a fault VFS over "posix" that
// SIGKILLs the process when `kill_at` calls have completed. Returns only if
// the creation finished first (an error: the parent asked for a kill).
absl::Status RunCreateChild(const CreateKill& kill);

// The parent: every kill point of every kind and codec under `dir`, each
// in a child run as `self --create_child ...`; prints the report. An error
// if a child was not killed, or any path is stuck.
absl::Status RunCreateKills(const std::string& dir, const char* self);

}  // namespace loaderx

#endif  // LOADERX_TOOLS_STRESS_CREATE_KILLS_H_
