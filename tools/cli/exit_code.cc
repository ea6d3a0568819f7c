#include "tools/cli/exit_code.h"

#include "loaderx/error_code.h"

namespace loaderx::cli {

ExitCode ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return kExitOk;
    case absl::StatusCode::kDataLoss:
      return kExitDamaged;
    case absl::StatusCode::kCancelled:
      return kExitInterrupted;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kOutOfRange:
      return kExitUsage;
    case absl::StatusCode::kFailedPrecondition:
      // A store of another kind is the caller's mistake; a read-only
      // filesystem or similar is not.
      return ErrorCodeOf(status) == ErrorCode::kKindMismatch ? kExitUsage
                                                             : kExitFailed;
    default:
      return kExitFailed;
  }
}

}  // namespace loaderx::cli
