// `StagedOutput` makes a command's output appear whole or not at all: the
// work is written to a hidden sibling of the destination
// (".NAME.partial-PID"), which `Commit` renames into place (refusing to
// replace anything that appeared there meanwhile) and makes durable by
// syncing the parent directory. Destroyed without a commit (an error, an
// interrupt), it removes the partial output. A destination that already
// exists is refused up front: nothing is ever overwritten.

#ifndef LOADERX_TOOLS_CLI_STAGED_OUTPUT_H_
#define LOADERX_TOOLS_CLI_STAGED_OUTPUT_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace loaderx::cli {

class StagedOutput {
 public:
  // Reserves `destination` (a file or directory path): AlreadyExists if
  // anything is there, NotFound if its parent directory is missing. Creates
  // nothing; the caller creates `path()`.
  static absl::StatusOr<std::unique_ptr<StagedOutput>> Reserve(
      absl::string_view destination);
  // A scratch path beside `destination` (".NAME.TAG-PID") for
  // intermediate output, never committed: removed when destroyed.
  static std::unique_ptr<StagedOutput> Scratch(absl::string_view destination,
                                               absl::string_view tag);

  ~StagedOutput();
  StagedOutput(const StagedOutput&) = delete;
  StagedOutput& operator=(const StagedOutput&) = delete;

  // Where to write the output until it is committed.
  const std::string& path() const { return staging_; }
  const std::string& destination() const { return destination_; }

  // Moves `path()` to the destination. AlreadyExists (and the partial
  // output removed) if something appeared there meanwhile; Cancelled if an
  // interrupt arrived (see `interrupt.h`).
  absl::Status Commit();

 private:
  StagedOutput(std::string destination, std::string staging)
      : destination_(std::move(destination)), staging_(std::move(staging)) {}

  std::string destination_;
  std::string staging_;
  bool committed_ = false;
};

}  // namespace loaderx::cli

#endif  // LOADERX_TOOLS_CLI_STAGED_OUTPUT_H_
