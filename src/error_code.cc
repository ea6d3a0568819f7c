#include "loaderx/error_code.h"

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "loaderx/vfs.h"

namespace loaderx {
namespace {

// The payload holding an attached code, as decimal text.
constexpr absl::string_view kErrorCodePayload = "loaderx.dev/error-code";

std::optional<ErrorCode> AttachedCode(const absl::Status& status) {
  const auto payload = status.GetPayload(kErrorCodePayload);
  int32_t value = 0;
  if (!payload.has_value() ||
      !absl::SimpleAtoi(std::string(*payload), &value)) {
    return std::nullopt;
  }
  return static_cast<ErrorCode>(value);
}

absl::Status Attached(absl::StatusCode code, absl::string_view message,
                      ErrorCode error) {
  return WithErrorCode(absl::Status(code, message), error);
}

}  // namespace

absl::Status WithErrorCode(absl::Status status, ErrorCode code) {
  if (!status.ok()) {
    status.SetPayload(kErrorCodePayload,
                      absl::Cord(absl::StrCat(static_cast<int32_t>(code))));
  }
  return status;
}

ErrorCode ErrorCodeOf(const absl::Status& status) {
  if (status.ok()) return ErrorCode::kNone;
  if (std::optional<ErrorCode> attached = AttachedCode(status)) {
    return *attached;
  }
  if (IsBusy(status)) return ErrorCode::kBusy;
  switch (status.code()) {
    case absl::StatusCode::kOutOfRange:
      return ErrorCode::kIndexOutOfRange;
    case absl::StatusCode::kNotFound:
      return ErrorCode::kNotFound;
    case absl::StatusCode::kAlreadyExists:
      return ErrorCode::kAlreadyExists;
    case absl::StatusCode::kDataLoss:
      return ErrorCode::kBadFormat;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kUnimplemented:
    case absl::StatusCode::kCancelled:
      return ErrorCode::kNone;
    default:
      return ErrorCode::kIo;
  }
}

absl::string_view ErrorCodeMessage(ErrorCode code) {
  switch (code) {
    case ErrorCode::kNone:
      return "no store error";
    case ErrorCode::kOutOfMemory:
      return "out of memory";
    case ErrorCode::kIo:
      return "file I/O failed";
    case ErrorCode::kIndexOutOfRange:
      return "index out of range";
    case ErrorCode::kRecordTooLarge:
      return "record exceeds the 2147483648 byte limit";
    case ErrorCode::kStoreFull:
      return "store is full";
    case ErrorCode::kBufferTooSmall:
      return "buffer too small";
    case ErrorCode::kCorruptRecord:
      return "stored record failed to decode";
    case ErrorCode::kBadFormat:
      return "invalid or unsupported zrecord store format";
    case ErrorCode::kDictTrainingFailed:
      return "zstd dictionary training failed (too few or too small samples)";
    case ErrorCode::kDictAlreadyInstalled:
      return "zstd dictionary is already installed; changing it requires a "
             "store rewrite";
    case ErrorCode::kNotFound:
      return "store not found";
    case ErrorCode::kAlreadyExists:
      return "store already exists";
    case ErrorCode::kKindMismatch:
      return "native store kind mismatch";
    case ErrorCode::kBusy:
      return "store is busy (already open by another native handle or "
             "process)";
    case ErrorCode::kUnknownName:
      return "unknown name";
  }
  return "unknown error";
}

absl::Status CorruptRecordError(absl::string_view message) {
  return Attached(absl::StatusCode::kDataLoss, message,
                  ErrorCode::kCorruptRecord);
}

absl::Status KindMismatchError(absl::string_view message) {
  return Attached(absl::StatusCode::kFailedPrecondition, message,
                  ErrorCode::kKindMismatch);
}

absl::Status RecordTooLargeError(absl::string_view message) {
  return Attached(absl::StatusCode::kInvalidArgument, message,
                  ErrorCode::kRecordTooLarge);
}

absl::Status DictTrainingError(absl::string_view message) {
  return Attached(absl::StatusCode::kInvalidArgument, message,
                  ErrorCode::kDictTrainingFailed);
}

absl::Status UnknownNameError(absl::string_view message) {
  return Attached(absl::StatusCode::kNotFound, message,
                  ErrorCode::kUnknownName);
}

}  // namespace loaderx
