// Read-only opens: no write and no write-mode handle ever reaches the
// filesystem (the fault VFS fails every one, so a single attempt would show),
// readers share a store and exclude its writer, and every mutating call is
// FailedPrecondition. Over the memory VFS and over real files.

#include <sys/stat.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/dense_store.h"
#include "loaderx/ragged_store.h"
#include "loaderx/typed_store.h"
#include "loaderx/vfs_registry.h"
#include "tests/record_testing.h"
#include "tests/status_testing.h"
#include "tests/temp_dir.h"
#include "vfs/fault/fault_vfs.h"

namespace loaderx {
namespace {

using ::testing::HasSubstr;

// Every call that could change a file fails from now on.
void ForbidWrites(FaultVfs& vfs) {
  const absl::Status refused = absl::PermissionDeniedError("read-only");
  for (VfsOp op :
       {VfsOp::kOpenWritable, VfsOp::kWriteAt, VfsOp::kWriteVectorAt,
        VfsOp::kTruncate, VfsOp::kSyncData, VfsOp::kSync, VfsOp::kRemove,
        VfsOp::kRename, VfsOp::kCreateDirectory, VfsOp::kRemoveDirectory,
        VfsOp::kSyncDirectory, VfsOp::kTryLock}) {
    vfs.FailOnCall(op, 1, refused, /*sticky=*/true);
  }
}

StoreOptions ReadOnly() {
  StoreOptions options;
  options.read_only = true;
  return options;
}

class ReadOnlyTest : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "posix") {
      ASSERT_OK_AND_ASSIGN(base_, CreateVfs("posix"));
      static int instance = 0;
      root_ = absl::StrCat(TestTempDir(), "/read_only_", ::getpid(), "_",
                           instance++);
    } else {
      ASSERT_OK_AND_ASSIGN(base_, CreateVfs("memory"));
      root_ = "/r";
    }
    vfs_ = std::make_unique<FaultVfs>(base_.get());
    ASSERT_OK(vfs_->CreateDirectory(root_));
    StoreOptions options;
    options.codec = "zstd";
    ASSERT_OK_AND_ASSIGN(
        auto dense, DenseStore::Create(*vfs_, Dense(),
                                       {DType::Simple("|u1"), {16}}, options));
    ASSERT_OK(dense->Append(RecordsFor(0, 10, 16)));
    ASSERT_OK(dense->Delete({3}));  // journal.lx exists too.
    ASSERT_OK(dense->Sync());
    ASSERT_OK_AND_ASSIGN(
        auto ragged,
        RaggedStore::Create(*vfs_, Ragged(), DType::Simple("|u1"), options));
    const std::string bytes = RecordFor(1, 12);
    ASSERT_OK(ragged->Append({RaggedRecord{bytes, {3, 4}}}));
    ASSERT_OK(ragged->Sync());
  }

  std::string Dense() const { return root_ + "/dense"; }
  std::string Ragged() const { return root_ + "/ragged"; }

  std::unique_ptr<Vfs> base_;
  std::unique_ptr<FaultVfs> vfs_;
  std::string root_;
};

INSTANTIATE_TEST_SUITE_P(Filesystems, ReadOnlyTest,
                         testing::Values("memory", "posix"));

TEST_P(ReadOnlyTest, ReadsEverythingWithoutAnyWriteModeCall) {
  ForbidWrites(*vfs_);
  const int64_t writable_opens = vfs_->CallCount(VfsOp::kOpenWritable);
  ASSERT_OK_AND_ASSIGN(auto dense,
                       DenseStore::Open(*vfs_, Dense(), ReadOnly()));
  EXPECT_TRUE(dense->read_only());
  EXPECT_EQ(dense->size(), 9u);
  std::string out(16, '\0');
  ASSERT_OK(dense->Gather({3}, absl::MakeSpan(out)));
  EXPECT_EQ(out, RecordFor(9, 16));
  ASSERT_OK_AND_ASSIGN(VerifyReport report, dense->Verify());
  EXPECT_EQ(report.verified, 9u);
  EXPECT_TRUE(report.metadata_verified);
  EXPECT_OK(dense->Stats());
  EXPECT_OK(dense->Sync());  // Nothing to do.

  ASSERT_OK_AND_ASSIGN(auto ragged,
                       RaggedStore::Open(*vfs_, Ragged(), ReadOnly()));
  ASSERT_OK_AND_ASSIGN(auto shapes, ragged->Shapes({0}));
  EXPECT_EQ(shapes[0], (std::vector<uint64_t>{3, 4}));
  EXPECT_OK(ragged->Verify());

  EXPECT_EQ(vfs_->CallCount(VfsOp::kOpenWritable), writable_opens);
}

TEST_P(ReadOnlyTest, EveryMutatingCallIsFailedPrecondition) {
  ASSERT_OK_AND_ASSIGN(auto dense,
                       DenseStore::Open(*vfs_, Dense(), ReadOnly()));
  const absl::Status append = dense->Append(RecordsFor(20, 1, 16)).status();
  EXPECT_EQ(append.code(), absl::StatusCode::kFailedPrecondition) << append;
  EXPECT_THAT(append.message(), HasSubstr("read-only"));
  EXPECT_STATUS_CODE(dense->Delete({0}), absl::StatusCode::kFailedPrecondition);
  EXPECT_STATUS_CODE(dense->Compact(), absl::StatusCode::kFailedPrecondition);
  ASSERT_OK_AND_ASSIGN(auto ragged,
                       RaggedStore::Open(*vfs_, Ragged(), ReadOnly()));
  const std::string bytes = RecordFor(2, 4);
  EXPECT_STATUS_CODE(ragged->Append({RaggedRecord{bytes, {4}}}),
                     absl::StatusCode::kFailedPrecondition);
  EXPECT_STATUS_CODE(ragged->Delete({0}),
                     absl::StatusCode::kFailedPrecondition);
  EXPECT_STATUS_CODE(ragged->Compact(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(dense->size(), 9u);
}

TEST_P(ReadOnlyTest, ReadersShareTheStoreAndExcludeAWriter) {
  ASSERT_OK_AND_ASSIGN(auto first,
                       DenseStore::Open(*vfs_, Dense(), ReadOnly()));
  ASSERT_OK_AND_ASSIGN(auto second,
                       DenseStore::Open(*vfs_, Dense(), ReadOnly()));
  absl::Status writer = DenseStore::Open(*vfs_, Dense()).status();
  EXPECT_TRUE(IsBusy(writer)) << writer;
  first.reset();
  second.reset();
  ASSERT_OK_AND_ASSIGN(auto owner, DenseStore::Open(*vfs_, Dense()));
  absl::Status reader = DenseStore::Open(*vfs_, Dense(), ReadOnly()).status();
  EXPECT_TRUE(IsBusy(reader)) << reader;
}

TEST_P(ReadOnlyTest, OpenOrCreateReadOnlyOpensButNeverCreates) {
  ForbidWrites(*vfs_);
  StoreRequest request;
  request.read_only = true;
  request.dtype = DType::Simple("|u1");
  request.item_shape = std::vector<uint64_t>{16};
  ASSERT_OK_AND_ASSIGN(auto store,
                       TypedStore::OpenOrCreate(*vfs_, Dense(), "", request));
  EXPECT_TRUE(store->read_only());
  EXPECT_EQ(store->size(), 9u);
  EXPECT_EQ(store->Delete({0}).code(), absl::StatusCode::kFailedPrecondition);
  // The request is still checked against the store.
  StoreRequest wrong = request;
  wrong.dtype = DType::Simple("<f4");
  EXPECT_STATUS_CODE(
      TypedStore::OpenOrCreate(*vfs_, Dense(), "dense", wrong).status(),
      absl::StatusCode::kInvalidArgument);
  // A dtype is enough to create a store, but not read-only.
  const std::string missing = root_ + "/missing";
  EXPECT_STATUS_CODE(
      TypedStore::OpenOrCreate(*vfs_, missing, "dense", request).status(),
      absl::StatusCode::kNotFound);
  ASSERT_OK_AND_ASSIGN(bool exists, base_->Exists(missing));
  EXPECT_FALSE(exists);
}

TEST(ReadOnlyFilesTest, OpensAStoreWhoseFilesAndDirectoryAreReadOnly) {
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("posix"));
  const std::string dir = absl::StrCat(TestTempDir(), "/ro_files_", ::getpid());
  {
    ASSERT_OK_AND_ASSIGN(
        auto store,
        DenseStore::Create(*vfs, dir, {DType::Simple("<i8"), {}}, {}));
    ASSERT_OK(store->Append(RecordsFor(0, 4, 8)));
    ASSERT_OK(store->Sync());
  }
  ASSERT_OK_AND_ASSIGN(auto names, vfs->List(dir));
  for (const std::string& name : names) {
    ASSERT_EQ(::chmod(absl::StrCat(dir, "/", name).c_str(), 0444), 0);
  }
  ASSERT_EQ(::chmod(dir.c_str(), 0555), 0);
  {
    ASSERT_OK_AND_ASSIGN(auto store, DenseStore::Open(*vfs, dir, ReadOnly()));
    std::string out(8, '\0');
    ASSERT_OK(store->Gather({2}, absl::MakeSpan(out)));
    EXPECT_EQ(out, RecordFor(2, 8));
  }
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
}

}  // namespace
}  // namespace loaderx
