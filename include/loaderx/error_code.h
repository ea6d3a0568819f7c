// The store error codes of the reference implementation (loaderx 1.7.7's
// `ZrecordError.code`), carried by the engine's statuses. An
// `absl::StatusCode` alone cannot tell every case apart (a corrupt record
// and a foreign store are both DataLoss), so where it cannot, the engine
// attaches the code as a status payload; everywhere else the code follows
// from the status code. `ErrorCodeOf` answers for any status, attached or
// not, and the bindings raise their exceptions from it (Python:
// `loaderx.errors`; Java: `org.loaderx.Errors`).
//
// clang-format off
//   code  name                   status (when not attached)    e.g.
//     -1  kOutOfMemory           (attached; the bindings also  an allocation failed
//                                map std::bad_alloc to it)
//     -2  kIo                    Internal, Unknown, Unavailable, a read or write failed,
//                                PermissionDenied, Aborted,    the device is full
//                                ResourceExhausted, ...
//     -3  kIndexOutOfRange       OutOfRange                    index >= len
//     -4  kRecordTooLarge        (attached) InvalidArgument    a record over 2^31 bytes
//     -5  kStoreFull             (attached) ResourceExhausted  2^32 - 1 chunks
//     -6  kBufferTooSmall        (attached) InvalidArgument    a destination too small
//     -7  kCorruptRecord         (attached) DataLoss           a frame or shape that does not decode
//     -8  kBadFormat             DataLoss                      a damaged or foreign store
//     -9  kDictTrainingFailed    (attached) InvalidArgument    too few samples to train on
//    -10  kDictAlreadyInstalled  (attached) AlreadyExists      a second dictionary
//    -11  kNotFound              NotFound                      no store at the path
//    -12  kAlreadyExists         AlreadyExists                 a store, or foreign files, there
//    -13  kKindMismatch          (attached) FailedPrecondition a ragged store opened as dense
//    -14  kBusy                  busy (`IsBusy`)               the store is open elsewhere
//      0  kNone                  InvalidArgument, FailedPrecondition, Unimplemented, Cancelled, OK
//      1  kUnknownName           (attached) NotFound           an unknown plugin name
// clang-format on
//
// Negative codes are the reference's and keep its meaning; positive ones are
// loaderx's own and never appear as a `ZrecordError` code.

#ifndef LOADERX_ERROR_CODE_H_
#define LOADERX_ERROR_CODE_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace loaderx {

enum class ErrorCode : int32_t {
  kNone = 0,
  kOutOfMemory = -1,
  kIo = -2,
  kIndexOutOfRange = -3,
  kRecordTooLarge = -4,
  kStoreFull = -5,
  kBufferTooSmall = -6,
  kCorruptRecord = -7,
  kBadFormat = -8,
  kDictTrainingFailed = -9,
  kDictAlreadyInstalled = -10,
  kNotFound = -11,
  kAlreadyExists = -12,
  kKindMismatch = -13,
  kBusy = -14,
  kUnknownName = 1,
};

// `status` with `code` attached (an OK status stays OK and carries nothing).
absl::Status WithErrorCode(absl::Status status, ErrorCode code);

// The code `status` carries, or the one its status code implies (table
// above). OK statuses give kNone.
ErrorCode ErrorCodeOf(const absl::Status& status);

// The reference's message for `code` ("index out of range", "store is
// busy (...)"); "unknown error" for a value outside the table.
absl::string_view ErrorCodeMessage(ErrorCode code);

// The statuses whose code the status code alone cannot tell.
absl::Status CorruptRecordError(absl::string_view message);   // DataLoss, -7
absl::Status KindMismatchError(absl::string_view message);    // -13
absl::Status RecordTooLargeError(absl::string_view message);  // -4
absl::Status DictTrainingError(absl::string_view message);    // -9
absl::Status UnknownNameError(absl::string_view message);     // NotFound, 1

}  // namespace loaderx

#endif  // LOADERX_ERROR_CODE_H_
