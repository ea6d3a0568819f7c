// Every status maps to the reference's code: attached codes win, the rest
// follow from the status code.

#include "loaderx/error_code.h"

#include "gtest/gtest.h"
#include "loaderx/vfs.h"

namespace loaderx {
namespace {

TEST(ErrorCodeTest, StatusCodesImplyTheReferenceCodes) {
  EXPECT_EQ(ErrorCodeOf(absl::OkStatus()), ErrorCode::kNone);
  EXPECT_EQ(ErrorCodeOf(absl::OutOfRangeError("i")),
            ErrorCode::kIndexOutOfRange);
  EXPECT_EQ(ErrorCodeOf(absl::NotFoundError("n")), ErrorCode::kNotFound);
  EXPECT_EQ(ErrorCodeOf(absl::AlreadyExistsError("a")),
            ErrorCode::kAlreadyExists);
  EXPECT_EQ(ErrorCodeOf(absl::DataLossError("d")), ErrorCode::kBadFormat);
  EXPECT_EQ(ErrorCodeOf(BusyError("/x/meta.zr")), ErrorCode::kBusy);
  // Unavailable without the busy mark is an I/O failure, not contention.
  EXPECT_EQ(ErrorCodeOf(absl::UnavailableError("gone")), ErrorCode::kIo);
  EXPECT_EQ(ErrorCodeOf(absl::InternalError("eio")), ErrorCode::kIo);
  EXPECT_EQ(ErrorCodeOf(absl::PermissionDeniedError("p")), ErrorCode::kIo);
  EXPECT_EQ(ErrorCodeOf(absl::ResourceExhaustedError("full")), ErrorCode::kIo);
  EXPECT_EQ(ErrorCodeOf(absl::InvalidArgumentError("bad")), ErrorCode::kNone);
  EXPECT_EQ(ErrorCodeOf(absl::FailedPreconditionError("f")), ErrorCode::kNone);
}

TEST(ErrorCodeTest, AttachedCodesTellApartWhatStatusCodesCannot) {
  const absl::Status corrupt = CorruptRecordError("record 3: bad frame");
  EXPECT_EQ(corrupt.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(corrupt.message(), "record 3: bad frame");
  EXPECT_EQ(ErrorCodeOf(corrupt), ErrorCode::kCorruptRecord);

  const absl::Status kind = KindMismatchError("ragged, not dense");
  EXPECT_EQ(kind.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ErrorCodeOf(kind), ErrorCode::kKindMismatch);

  EXPECT_EQ(ErrorCodeOf(RecordTooLargeError("big")),
            ErrorCode::kRecordTooLarge);
  EXPECT_EQ(ErrorCodeOf(DictTrainingError("few")),
            ErrorCode::kDictTrainingFailed);
  const absl::Status unknown = UnknownNameError("no codec \"lz4\"");
  EXPECT_EQ(unknown.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ErrorCodeOf(unknown), ErrorCode::kUnknownName);

  EXPECT_EQ(ErrorCodeOf(
                WithErrorCode(absl::InternalError("x"), ErrorCode::kStoreFull)),
            ErrorCode::kStoreFull);
  // An OK status carries nothing.
  EXPECT_TRUE(WithErrorCode(absl::OkStatus(), ErrorCode::kIo).ok());
}

TEST(ErrorCodeTest, MessagesAreTheReferences) {
  EXPECT_EQ(ErrorCodeMessage(ErrorCode::kIndexOutOfRange),
            "index out of range");
  EXPECT_EQ(ErrorCodeMessage(ErrorCode::kBadFormat),
            "invalid or unsupported zrecord store format");
  EXPECT_EQ(ErrorCodeMessage(ErrorCode::kBusy),
            "store is busy (already open by another native handle or "
            "process)");
  EXPECT_EQ(ErrorCodeMessage(static_cast<ErrorCode>(-99)), "unknown error");
}

}  // namespace
}  // namespace loaderx
