// Shrinks that verify notices: a store whose meta.zr says fewer records
// than checksums.lx recorded (loaderx 1.7.7's delete, or damage to the
// length field) opens, as 1.7.7 compatibility requires, but every report
// lists the vanished records as a metadata problem (`ok()` false) until
// the user accepts them; the finding survives reopening and the first
// mutation's adoption. Records that reappear past the length with the
// frontier unchanged are reported too, and a codec that differs from the
// durable state's fails the open. A store adopted as found (no
// checksums.lx) never reports its metadata as verified.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/typed_store.h"
#include "loaderx/vfs_registry.h"
#include "src/record_engine.h"
#include "tests/foreign_writer.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

constexpr char kStore[] = "/store";

std::string Record(uint64_t id) { return std::string(20 + id, 'a' + id % 26); }

class ShrinkReportTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(vfs_, CreateVfs("memory"));
    ASSERT_OK_AND_ASSIGN(auto engine,
                         RecordEngine::Create(*vfs_, kStore, Options()));
    for (uint64_t id = 0; id < 10; ++id) ASSERT_OK(Append(*engine, id));
    ASSERT_OK(engine->Sync());
  }

  static RecordEngineOptions Options(bool read_only = false) {
    RecordEngineOptions options;
    options.read_only = read_only;
    return options;
  }

  static absl::Status Append(RecordEngine& engine, uint64_t id) {
    const std::string record = Record(id);
    const absl::string_view view = record;
    return engine.AppendVariable({&view, 1}).status();
  }

  absl::StatusOr<VerifyReport> VerifyOpened(bool read_only) {
    LOADERX_ASSIGN_OR_RETURN(
        auto engine, RecordEngine::Open(*vfs_, kStore, Options(read_only)));
    return engine->Verify();
  }

  // What 1.7.7 leaves when it deletes the last `count` records: a shorter
  // length in meta.zr, the rest untouched.
  void ForeignShrink(uint64_t length) {
    ForeignWriter files(*vfs_, kStore);
    ASSERT_OK_AND_ASSIGN(auto header, files.Header());
    header.length = length;
    ASSERT_OK(files.WriteHeader(header));
  }

  std::unique_ptr<Vfs> vfs_;
};

TEST_F(ShrinkReportTest, RemovedRecordsAreAProblemUntilAccepted) {
  ForeignShrink(7);
  for (bool read_only : {true, false}) {
    SCOPED_TRACE(read_only ? "read-only" : "writable");
    ASSERT_OK_AND_ASSIGN(const VerifyReport report, VerifyOpened(read_only));
    EXPECT_EQ(report.records, 7u);
    EXPECT_TRUE(report.damaged.empty());
    EXPECT_EQ(report.removed_records, 3u);
    ASSERT_EQ(report.metadata_problems.size(), 1u);
    EXPECT_TRUE(absl::StrContains(
        report.metadata_problems[0],
        "3 records past the length were removed by another writer or by "
        "damage to meta.zr"))
        << report.metadata_problems[0];
    EXPECT_FALSE(report.ok());
  }
  {
    // The first mutation adopts the shorter length; the finding stays.
    ASSERT_OK_AND_ASSIGN(auto engine,
                         RecordEngine::Open(*vfs_, kStore, Options()));
    ASSERT_OK(Append(*engine, 50));
    ASSERT_OK(engine->Sync());
  }
  ASSERT_OK_AND_ASSIGN(VerifyReport report, VerifyOpened(true));
  EXPECT_EQ(report.records, 8u);
  EXPECT_EQ(report.removed_records, 3u);
  EXPECT_FALSE(report.ok());
  {
    ASSERT_OK_AND_ASSIGN(auto reader,
                         RecordEngine::Open(*vfs_, kStore, Options(true)));
    EXPECT_TRUE(absl::IsFailedPrecondition(reader->AcceptMetadataProblems()));
  }
  {
    ASSERT_OK_AND_ASSIGN(auto engine,
                         RecordEngine::Open(*vfs_, kStore, Options()));
    ASSERT_OK(engine->AcceptMetadataProblems());
  }
  ASSERT_OK_AND_ASSIGN(report, VerifyOpened(true));
  EXPECT_EQ(report.removed_records, 0u);
  EXPECT_TRUE(report.metadata_problems.empty());
  EXPECT_TRUE(report.ok());
  EXPECT_EQ(report.verified, 8u);
}

TEST_F(ShrinkReportTest, AnAcceptedAndUnmutatedShrinkIsCleanToo) {
  ForeignShrink(4);
  {
    ASSERT_OK_AND_ASSIGN(auto engine,
                         RecordEngine::Open(*vfs_, kStore, Options()));
    ASSERT_OK(engine->AcceptMetadataProblems());
    ASSERT_OK_AND_ASSIGN(const VerifyReport report, engine->Verify());
    EXPECT_TRUE(report.ok());
  }
  ASSERT_OK_AND_ASSIGN(const VerifyReport report, VerifyOpened(true));
  EXPECT_TRUE(report.metadata_problems.empty());
  EXPECT_EQ(report.records, 4u);
}

TEST_F(ShrinkReportTest,
       RecordsReappearingWithTheFrontierUnchangedAreReported) {
  ForeignShrink(7);
  {
    ASSERT_OK_AND_ASSIGN(auto engine,
                         RecordEngine::Open(*vfs_, kStore, Options()));
    ASSERT_OK(engine->AcceptMetadataProblems());
  }
  // Damage to the length field: 9 again, nothing written.
  ForeignShrink(9);
  ASSERT_OK_AND_ASSIGN(const VerifyReport report, VerifyOpened(true));
  EXPECT_EQ(report.records, 9u);
  ASSERT_EQ(report.metadata_problems.size(), 1u);
  EXPECT_TRUE(absl::StrContains(report.metadata_problems[0],
                                "2 records past the length the store had "
                                "reappeared"))
      << report.metadata_problems[0];
  EXPECT_FALSE(report.ok());
}

TEST_F(ShrinkReportTest, AppendsByAnotherWriterAreNoProblem) {
  // A longer length with the frontier moved on is what an append leaves.
  {
    ASSERT_OK_AND_ASSIGN(auto engine,
                         RecordEngine::Open(*vfs_, kStore, Options()));
    ASSERT_OK(Append(*engine, 77));
  }  // Not synced: the durable state still says 10.
  ASSERT_OK_AND_ASSIGN(const VerifyReport report, VerifyOpened(true));
  EXPECT_EQ(report.records, 11u);
  EXPECT_TRUE(report.metadata_problems.empty());
  EXPECT_TRUE(report.ok());
}

TEST_F(ShrinkReportTest, ACodecOtherThanTheDurableStatesIsDataLoss) {
  ForeignWriter files(*vfs_, kStore);
  ASSERT_OK_AND_ASSIGN(auto header, files.Header());
  header.codec = header.codec == 0 ? 1 : 0;
  ASSERT_OK(files.WriteHeader(header));
  absl::StatusOr<std::unique_ptr<RecordEngine>> engine =
      RecordEngine::Open(*vfs_, kStore, Options(true));
  EXPECT_TRUE(absl::IsDataLoss(engine.status())) << engine.status();
}

TEST(AdoptedMetadataTest, IsNeverReportedVerified) {
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("memory"));
  {
    ASSERT_OK_AND_ASSIGN(
        auto store,
        TypedStore::Create(*vfs, "/s", "dense", {DType::Simple("<u4"), {2}}));
    ASSERT_OK(store->AppendFixed(std::string(16, 'x')).status());
    ASSERT_OK(store->Sync());
  }
  // As 1.7.7 leaves it: no checksums.lx.
  ASSERT_OK(vfs->Remove("/s/checksums.lx"));
  {
    ASSERT_OK_AND_ASSIGN(auto store, TypedStore::Open(*vfs, "/s", "dense"));
    ASSERT_OK(store->AppendFixed(std::string(8, 'y')).status());
    ASSERT_OK(store->Sync());
  }
  ASSERT_OK_AND_ASSIGN(auto store, TypedStore::Open(*vfs, "/s", "dense"));
  ASSERT_OK_AND_ASSIGN(const VerifyReport report, store->Verify());
  EXPECT_FALSE(report.metadata_verified);
  EXPECT_TRUE(report.ok());
  EXPECT_EQ(report.verified, 1u);
  EXPECT_EQ(report.unverified, 2u);
  ASSERT_FALSE(report.notes.empty());
  EXPECT_TRUE(absl::StrContains(report.notes[0], "adopted as found"));
}

}  // namespace
}  // namespace loaderx
