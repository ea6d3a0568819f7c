// The record engine against damaged stores, failing I/O and power loss,
// through the fault VFS: a damaged or foreign store is refused with a clear
// error, a failed append commits nothing and leaves the store usable, and
// whatever `Sync` made durable survives a crash.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/vfs_registry.h"
#include "src/journal.h"
#include "src/record_engine.h"
#include "tests/foreign_writer.h"
#include "tests/record_testing.h"
#include "tests/status_testing.h"
#include "vfs/fault/fault_vfs.h"

namespace loaderx {
namespace {

using ::testing::HasSubstr;

constexpr size_t kWidth = 24;
constexpr char kStore[] = "/d/store";

std::string Records(uint64_t first, uint64_t count) {
  return RecordsFor(first, count, kWidth);
}

class RecordEngineFaultTest : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(memory_, CreateVfs("memory"));
    vfs_ = std::make_unique<FaultVfs>(memory_.get());
    ASSERT_OK(vfs_->CreateDirectory("/d"));
    ASSERT_OK(vfs_->SyncDirectory("/"));
  }

  RecordEngineOptions Options() const {
    RecordEngineOptions options;
    options.codec = GetParam();
    if (GetParam() == "zstd_dict") {
      options.codec_options.dictionary = Records(0, 20);
    }
    return options;
  }

  std::unique_ptr<RecordEngine> Create() {
    auto engine = RecordEngine::Create(*vfs_, kStore, Options());
    EXPECT_TRUE(engine.ok()) << engine.status();
    return engine.ok() ? *std::move(engine) : nullptr;
  }

  // Every record of `engine` must be record i of the test data.
  void ExpectRecords(const RecordEngine& engine, uint64_t count) {
    ASSERT_EQ(engine.length(), count);
    std::vector<uint64_t> all(count);
    for (uint64_t i = 0; i < count; ++i) all[i] = i;
    std::string out(count * kWidth, '\0');
    ASSERT_OK(engine.GatherFixed(all, kWidth, absl::MakeSpan(out)));
    EXPECT_EQ(out, Records(0, count));
  }

  std::unique_ptr<Vfs> memory_;
  std::unique_ptr<FaultVfs> vfs_;
};

INSTANTIATE_TEST_SUITE_P(Codecs, RecordEngineFaultTest,
                         testing::Values("raw", "zstd", "zstd_dict"));

TEST_P(RecordEngineFaultTest, SyncedRecordsSurviveACrashUnsyncedOnesVanish) {
  {
    auto engine = Create();
    ASSERT_NE(engine, nullptr);
    ASSERT_OK(engine->AppendFixed(Records(0, 10), 10, kWidth));
    ASSERT_OK(engine->Sync());
    ASSERT_OK(engine->AppendFixed(Records(10, 5), 5, kWidth));  // Not synced.
    ASSERT_OK(vfs_->SimulateCrash());
  }
  ASSERT_OK_AND_ASSIGN(auto engine, RecordEngine::Open(*vfs_, kStore));
  ExpectRecords(*engine, 10);
  // The store carries on from its durable state.
  ASSERT_OK(engine->AppendFixed(Records(10, 3), 3, kWidth));
  ExpectRecords(*engine, 13);
}

TEST_P(RecordEngineFaultTest, ACreatedStoreIsDurableBeforeItsFirstSync) {
  { ASSERT_NE(Create(), nullptr); }
  ASSERT_OK(vfs_->SimulateCrash());
  ASSERT_OK_AND_ASSIGN(auto engine, RecordEngine::Open(*vfs_, kStore));
  EXPECT_EQ(engine->length(), 0u);
}

TEST_P(RecordEngineFaultTest, CreateSyncsTheDirectoryEntries) {
  const int64_t before = vfs_->CallCount(VfsOp::kSyncDirectory);
  ASSERT_NE(Create(), nullptr);
  // The store's files in the store directory, and that directory in "/d".
  EXPECT_EQ(vfs_->CallCount(VfsOp::kSyncDirectory) - before, 2);
}

TEST_P(RecordEngineFaultTest, CrashReleasesTheLock) {
  auto holder = Create();
  ASSERT_NE(holder, nullptr);
  ASSERT_OK(vfs_->SimulateCrash());
  // The crashed process's lock died with it.
  EXPECT_OK(RecordEngine::Open(*vfs_, kStore));
}

TEST_P(RecordEngineFaultTest, FailedAppendCommitsNothing) {
  auto engine = Create();
  ASSERT_NE(engine, nullptr);
  ASSERT_OK(engine->AppendFixed(Records(0, 4), 4, kWidth));
  // Fail each stage of the commit in turn: payload, record table, header.
  const struct {
    VfsOp op;
    const char* path;
  } stages[] = {{VfsOp::kWriteVectorAt, ".chunk"},
                {VfsOp::kWriteAt, ".loc"},
                {VfsOp::kWriteAt, "meta.zr"}};
  for (const auto& stage : stages) {
    vfs_->FailOnCall(stage.op, 1, absl::UnavailableError("disk gone"), false,
                     stage.path);
    absl::Status failed =
        engine->AppendFixed(Records(4, 2), 2, kWidth).status();
    EXPECT_EQ(failed.code(), absl::StatusCode::kUnavailable) << stage.path;
    EXPECT_THAT(failed.message(), HasSubstr("injected fault"));
    ExpectRecords(*engine, 4);
    vfs_->ClearFaults();
  }
  // The store still works, in this handle and after reopening.
  ASSERT_OK(engine->AppendFixed(Records(4, 2), 2, kWidth));
  ExpectRecords(*engine, 6);
  engine.reset();
  ASSERT_OK_AND_ASSIGN(engine, RecordEngine::Open(*vfs_, kStore));
  ExpectRecords(*engine, 6);
}

TEST_P(RecordEngineFaultTest, FailedSyncIsReported) {
  auto engine = Create();
  ASSERT_NE(engine, nullptr);
  ASSERT_OK(engine->AppendFixed(Records(0, 2), 2, kWidth));
  vfs_->FailOnCall(VfsOp::kSyncData, 1, absl::DataLossError("bad sector"));
  EXPECT_STATUS_CODE(engine->Sync(), absl::StatusCode::kDataLoss);
}

TEST_P(RecordEngineFaultTest, FailedCreateLeavesNoStoreBehind) {
  vfs_->FailOnCall(VfsOp::kSync, 1, absl::UnavailableError("disk gone"));
  EXPECT_STATUS_CODE(RecordEngine::Create(*vfs_, kStore, Options()),
                     absl::StatusCode::kUnavailable);
  vfs_->ClearFaults();
  ASSERT_OK_AND_ASSIGN(bool exists, vfs_->Exists(kStore));
  EXPECT_FALSE(exists);
  EXPECT_NE(Create(), nullptr);  // Creating again works.
}

TEST_P(RecordEngineFaultTest, MissingStoreIsNotFound) {
  absl::Status status = RecordEngine::Open(*vfs_, "/d/nothing").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("no store at /d/nothing"));
}

// Each damage below makes the store unopenable with DataLoss naming it.
class DamagedStoreTest : public RecordEngineFaultTest {
 protected:
  void SetUp() override {
    RecordEngineFaultTest::SetUp();
    RecordEngineOptions options = Options();
    options.chunk_capacity = 10 * kWidth + 40;  // A few chunks.
    auto engine = RecordEngine::Create(*vfs_, kStore, options);
    ASSERT_TRUE(engine.ok()) << engine.status();
    for (uint64_t i = 0; i < 40; i += 10) {
      ASSERT_OK((*engine)->AppendFixed(Records(i, 10), 10, kWidth));
    }
  }

  void ExpectDataLoss(absl::string_view mentioning) {
    absl::Status status = RecordEngine::Open(*vfs_, kStore).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
    EXPECT_THAT(status.message(), HasSubstr(mentioning));
  }
};

INSTANTIATE_TEST_SUITE_P(Codecs, DamagedStoreTest,
                         testing::Values("raw", "zstd", "zstd_dict"));

TEST_P(DamagedStoreTest, ForeignHeader) {
  ASSERT_OK(WriteStringToFile(*vfs_, "/d/store/meta.zr", std::string(32, 'x')));
  ExpectDataLoss("not a loaderx store");
}

TEST_P(DamagedStoreTest, TruncatedHeader) {
  ASSERT_OK(WriteStringToFile(*vfs_, "/d/store/meta.zr", "ZREC"));
  ExpectDataLoss("32 bytes");
}

TEST_P(DamagedStoreTest, MissingChunk) {
  ASSERT_OK(vfs_->Remove("/d/store/0.chunk"));
  ExpectDataLoss("0.chunk is missing");
}

TEST_P(DamagedStoreTest, TruncatedTailChunk) {
  ASSERT_OK_AND_ASSIGN(auto names, vfs_->List(kStore));
  std::string tail;
  for (const std::string& name : names) {
    if (absl::EndsWith(name, ".chunk") && name > tail) tail = name;
  }
  ASSERT_OK_AND_ASSIGN(auto file, vfs_->Open(absl::StrCat(kStore, "/", tail),
                                             OpenMode::kReadWrite));
  ASSERT_OK(file->Truncate(1));
  ExpectDataLoss("frontier");
}

TEST_P(DamagedStoreTest, MissingRecordTable) {
  ASSERT_OK(vfs_->Remove("/d/store/0.loc"));
  ExpectDataLoss("0.loc is missing");
}

TEST_P(DamagedStoreTest, ShortRecordTable) {
  ASSERT_OK_AND_ASSIGN(auto file,
                       vfs_->Open("/d/store/0.loc", OpenMode::kReadWrite));
  ASSERT_OK(file->Truncate(16 * 39));
  ExpectDataLoss("too short");
}

TEST_P(DamagedStoreTest, DictionaryMismatch) {
  if (GetParam() == "zstd_dict") {
    ASSERT_OK(vfs_->Remove("/d/store/dict.zr"));
  } else {
    ASSERT_OK(WriteStringToFile(*vfs_, "/d/store/dict.zr", "stray"));
  }
  ExpectDataLoss("codec");
}

TEST_P(DamagedStoreTest, ALoweredFrontier) {
  // The next append would overwrite live records: refused at open.
  ForeignWriter files(*vfs_, kStore);
  ASSERT_OK_AND_ASSIGN(auto header, files.Header());
  header.tail_offset -= 1;
  ASSERT_OK(files.WriteHeader(header));
  ExpectDataLoss("committed frontier");
}

TEST_P(DamagedStoreTest, AnEntryPastItsChunk) {
  ForeignWriter files(*vfs_, kStore);
  ASSERT_OK_AND_ASSIGN(auto loc, files.Loc(3));
  loc.offset += 100000;
  ASSERT_OK(files.WriteLoc(3, loc));
  ExpectDataLoss("entry 3 ");
}

TEST_P(DamagedStoreTest, AZeroedEntry) {
  ForeignWriter files(*vfs_, kStore);
  ASSERT_OK(files.WriteLoc(5, {}));
  ExpectDataLoss("entry 5 ");
}

TEST_P(DamagedStoreTest, AHugeLengthIsRefusedBeforeAnythingIsAllocated) {
  ForeignWriter files(*vfs_, kStore);
  ASSERT_OK_AND_ASSIGN(auto header, files.Header());
  header.length = uint64_t{1} << 60;
  ASSERT_OK(files.WriteHeader(header));
  ExpectDataLoss("1.loc is missing");
  header.length = 41;  // One more than the table holds.
  ASSERT_OK(files.WriteHeader(header));
  ExpectDataLoss("too short");
}

TEST_P(DamagedStoreTest, CompactionRefusesEntriesThatShareBytes) {
  // A duplicated entry passes the open-time checks (each entry alone is
  // valid), but packing both would destroy a record: compaction refuses
  // and changes nothing.
  ForeignWriter files(*vfs_, kStore);
  ASSERT_OK_AND_ASSIGN(auto loc, files.Loc(12));
  ASSERT_OK(files.WriteLoc(30, loc));
  ASSERT_OK_AND_ASSIGN(auto names, vfs_->List(kStore));
  std::vector<std::string> before;
  for (const std::string& name : names) {
    ASSERT_OK_AND_ASSIGN(std::string bytes, files.Read(name));
    before.push_back(bytes);
  }
  {
    ASSERT_OK_AND_ASSIGN(auto engine, RecordEngine::Open(*vfs_, kStore));
    absl::Status compacted = engine->Compact();
    EXPECT_EQ(compacted.code(), absl::StatusCode::kDataLoss) << compacted;
    EXPECT_THAT(compacted.message(), HasSubstr("records 12 and 30"));
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == "checksums.lx") continue;  // Its durable state moved on.
    ASSERT_OK_AND_ASSIGN(std::string bytes, files.Read(names[i]));
    EXPECT_EQ(bytes, before[i]) << names[i];
  }
}

// An intact journal record (its checksum matches) that describes an
// impossible step is damage: a writable open refuses it, as a read-only one
// does, instead of installing entries past the table or truncating a chunk
// to a frontier the record invents. Nothing is written.
TEST_P(DamagedStoreTest, AnImpossibleJournalStepIsRefused) {
  ForeignWriter files(*vfs_, kStore);
  ASSERT_OK_AND_ASSIGN(auto header, files.Header());
  ASSERT_OK_AND_ASSIGN(auto loc, files.Loc(0));
  JournalRecord past_the_table;
  past_the_table.op = JournalOp::kDelete;
  past_the_table.header = header;
  past_the_table.entries.push_back({uint64_t{1} << 40, loc, {}});
  JournalRecord past_the_frontier;
  past_the_frontier.op = JournalOp::kCompactionEnd;
  past_the_frontier.header = header;
  past_the_frontier.header.tail_offset = 0xfffffff0u;
  for (const JournalRecord& record : {past_the_table, past_the_frontier}) {
    ASSERT_OK(
        WriteStringToFile(*vfs_, "/d/store/journal.lx", EncodeJournal(record)));
    ASSERT_OK_AND_ASSIGN(auto names, vfs_->List(kStore));
    std::vector<std::string> before;
    for (const std::string& name : names) {
      ASSERT_OK_AND_ASSIGN(std::string bytes, files.Read(name));
      before.push_back(bytes);
    }
    for (bool read_only : {true, false}) {
      RecordEngineOptions options;
      options.read_only = read_only;
      absl::Status status = RecordEngine::Open(*vfs_, kStore, options).status();
      EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
    }
    ASSERT_OK_AND_ASSIGN(auto after, vfs_->List(kStore));
    ASSERT_EQ(after, names);
    for (size_t i = 0; i < names.size(); ++i) {
      ASSERT_OK_AND_ASSIGN(std::string bytes, files.Read(names[i]));
      EXPECT_EQ(bytes, before[i]) << names[i];
    }
  }
}

TEST_P(DamagedStoreTest, ForeignDirectory) {
  ASSERT_OK(vfs_->CreateDirectory("/d/photos"));
  ASSERT_OK(WriteStringToFile(*vfs_, "/d/photos/cat.jpg", "\xff\xd8\xff"));
  EXPECT_STATUS_CODE(RecordEngine::Open(*vfs_, "/d/photos"),
                     absl::StatusCode::kNotFound);
  // And nothing was written into it.
  ASSERT_OK_AND_ASSIGN(auto names, vfs_->List("/d/photos"));
  EXPECT_EQ(names, std::vector<std::string>{"cat.jpg"});
}

// A sync that fails once, among syncs that overlap (and one at a time):
// `Sync` reports it by its path, the next `Sync` syncs again whatever the
// failed one left unsynced, and after a power loss everything is there.
TEST_P(RecordEngineFaultTest, AFailedSyncIsRepeatedByTheNextOne) {
  const std::vector<std::pair<VfsOp, std::string>> targets = {
      {VfsOp::kSyncData, "0.chunk"},
      {VfsOp::kSyncData, "checksums.lx"},
      {VfsOp::kSyncData, "0.loc"},
      {VfsOp::kSyncDirectory, kStore},
      {VfsOp::kSync, "meta.zr"}};
  for (bool concurrent : {true, false}) {
    for (const auto& [op, path] : targets) {
      SCOPED_TRACE(absl::StrCat(path, concurrent ? ", overlapped" : ""));
      vfs_.reset();
      SetUp();
      vfs_->set_concurrent_syncs(concurrent);
      {
        auto engine = Create();
        ASSERT_NE(engine, nullptr);
        ASSERT_OK(engine->AppendFixed(Records(0, 10), 10, kWidth));
        vfs_->FailOnCall(op, 1, absl::DataLossError("disk failed"),
                         /*sticky=*/false, path);
        const absl::Status failed = engine->Sync();
        EXPECT_TRUE(absl::IsDataLoss(failed)) << failed;
        EXPECT_THAT(failed.message(), HasSubstr(path));
        ASSERT_OK(engine->Sync());
      }
      vfs_->ClearFaults();
      ASSERT_OK(vfs_->SimulateCrash(FaultVfs::CrashMode::kGarbleUnsynced));
      ASSERT_OK_AND_ASSIGN(auto reopened,
                           RecordEngine::Open(*vfs_, kStore, Options()));
      ExpectRecords(*reopened, 10);
      ASSERT_OK_AND_ASSIGN(const VerifyReport report, reopened->Verify());
      EXPECT_TRUE(report.damaged.empty());
      EXPECT_EQ(report.verified, 10u);
    }
  }
}

}  // namespace
}  // namespace loaderx
