// Checksums end to end: every record a store writes is checked when read
// and by `Verify`, damage is reported by record, and what another program
// (loaderx 1.7.7, simulated by `ForeignWriter`) wrote or moved is reported
// as unverified, never as damage.

#include <atomic>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/dense_store.h"
#include "loaderx/ragged_store.h"
#include "loaderx/vfs_registry.h"
#include "src/record_engine.h"
#include "tests/foreign_writer.h"
#include "tests/record_testing.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kStore[] = "/s";
constexpr size_t kWidth = 32;

// Swaps the table entries of records `a` and `b` of the store at `kStore`:
// each then points at an intact record, not the one its checksum was
// written for.
void SwapTableEntries(Vfs& vfs, uint64_t a, uint64_t b) {
  ForeignWriter files(vfs, kStore);
  ASSERT_OK_AND_ASSIGN(auto first, files.Loc(a));
  ASSERT_OK_AND_ASSIGN(auto second, files.Loc(b));
  ASSERT_OK(files.WriteLoc(a, second));
  ASSERT_OK(files.WriteLoc(b, first));
}

class IntegrityTest : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { ASSERT_OK_AND_ASSIGN(vfs_, CreateVfs("memory")); }

  RecordEngineOptions Options() const {
    RecordEngineOptions options;
    options.codec = GetParam();
    if (GetParam() == "zstd_dict") {
      options.codec_options.dictionary = RecordsFor(0, 30, kWidth);
    }
    return options;
  }

  // A store of `count` records, synced and closed.
  void MakeStore(uint64_t count) {
    ASSERT_OK_AND_ASSIGN(auto engine,
                         RecordEngine::Create(*vfs_, kStore, Options()));
    ASSERT_OK(engine->AppendFixed(RecordsFor(0, count, kWidth), count, kWidth));
    ASSERT_OK(engine->Sync());
  }

  std::unique_ptr<RecordEngine> Open(bool verify = true) {
    RecordEngineOptions options = Options();
    options.verify_checksums = verify;
    auto engine = RecordEngine::Open(*vfs_, kStore, options);
    EXPECT_TRUE(engine.ok()) << engine.status();
    return engine.ok() ? *std::move(engine) : nullptr;
  }

  absl::Status Read(const RecordEngine& engine, uint64_t index,
                    std::string* out = nullptr) {
    std::string bytes(kWidth, '\0');
    LOADERX_RETURN_IF_ERROR(
        engine.GatherFixed({index}, kWidth, absl::MakeSpan(bytes)));
    if (out) *out = bytes;
    return absl::OkStatus();
  }

  // Flips one stored byte of record `index` without touching meta.zr: what
  // a failing disk does.
  void Corrupt(uint64_t index) {
    ForeignWriter files(*vfs_, kStore);
    ASSERT_OK_AND_ASSIGN(auto loc, files.Loc(index));
    const std::string chunk = store_format::ChunkFileName(loc.chunk_id);
    ASSERT_OK_AND_ASSIGN(std::string bytes, files.Read(chunk));
    const uint64_t at = loc.offset + loc.phys_length / 2;
    ASSERT_OK(files.Write(chunk, at, std::string(1, bytes[at] ^ 0x04)));
  }

  std::unique_ptr<Vfs> vfs_;
};

INSTANTIATE_TEST_SUITE_P(Codecs, IntegrityTest,
                         testing::Values("raw", "zstd", "zstd_dict"));

TEST_P(IntegrityTest, EveryRecordWrittenIsVerified) {
  MakeStore(20);
  auto engine = Open();
  ASSERT_NE(engine, nullptr);
  ASSERT_OK_AND_ASSIGN(VerifyReport report, engine->Verify());
  EXPECT_EQ(report.records, 20u);
  EXPECT_EQ(report.verified, 20u);
  EXPECT_EQ(report.unverified, 0u);
  EXPECT_TRUE(report.damaged.empty());
  EXPECT_TRUE(report.metadata_verified);
}

TEST_P(IntegrityTest, AFlippedByteIsDataLossNamingTheRecord) {
  MakeStore(20);
  Corrupt(7);
  Corrupt(13);
  auto engine = Open();
  ASSERT_NE(engine, nullptr);
  absl::Status read = Read(*engine, 7);
  EXPECT_EQ(read.code(), absl::StatusCode::kDataLoss) << read;
  EXPECT_THAT(read.message(), HasSubstr("record 7"));
  EXPECT_OK(Read(*engine, 6));
  ASSERT_OK_AND_ASSIGN(VerifyReport report, engine->Verify());
  EXPECT_THAT(report.damaged, ElementsAre(7, 13));
  EXPECT_EQ(report.verified, 18u);
  ASSERT_EQ(report.problems.size(), 2u);
  EXPECT_THAT(report.problems[0], HasSubstr("record 7"));
}

// Swapped table entries point at intact records, but not the ones the
// checksums were written for: reading record 3 must not return record 4.
// And compaction, which would rebind the checksums to the entries it moves,
// refuses instead, changing nothing.
TEST_P(IntegrityTest, SwappedTableEntriesAreDamageNotOtherRecords) {
  MakeStore(20);
  SwapTableEntries(*vfs_, 3, 4);
  auto engine = Open();
  ASSERT_NE(engine, nullptr);
  absl::Status read = Read(*engine, 3);
  EXPECT_EQ(read.code(), absl::StatusCode::kDataLoss) << read;
  EXPECT_THAT(read.message(), HasSubstr("record 3"));
  EXPECT_OK(Read(*engine, 5));
  ASSERT_OK_AND_ASSIGN(VerifyReport report, engine->Verify());
  EXPECT_THAT(report.damaged, ElementsAre(3, 4));

  ASSERT_OK(engine->Delete({19}));  // Something for compaction to move.
  absl::Status compacted = engine->Compact();
  EXPECT_EQ(compacted.code(), absl::StatusCode::kDataLoss) << compacted;
  EXPECT_THAT(compacted.message(),
              HasSubstr("not the one its checksum was written for"));
  engine.reset();
  engine = Open();
  ASSERT_NE(engine, nullptr);
  ASSERT_OK_AND_ASSIGN(report, engine->Verify());
  EXPECT_THAT(report.damaged, ElementsAre(3, 4));
  EXPECT_EQ(report.verified, 17u);
}

TEST_P(IntegrityTest, VerifyOnReadCanBeTurnedOff) {
  MakeStore(5);
  Corrupt(2);
  auto engine = Open(/*verify=*/false);
  ASSERT_NE(engine, nullptr);
  std::string bytes;
  absl::Status read = Read(*engine, 2, &bytes);
  if (GetParam() == "raw") {
    // Nothing checks it: the damaged bytes come back.
    ASSERT_OK(read);
    EXPECT_NE(bytes, RecordFor(2, kWidth));
  }
  // `Verify` still finds it.
  ASSERT_OK_AND_ASSIGN(VerifyReport report, engine->Verify());
  EXPECT_THAT(report.damaged, ElementsAre(2));
}

TEST_P(IntegrityTest, AStoreWithoutChecksumsIsUnverifiedThenGainsThem) {
  MakeStore(6);
  ASSERT_OK(vfs_->Remove("/s/checksums.lx"));  // As 1.7.7 writes stores.
  {
    RecordEngineOptions options = Options();
    options.read_only = true;
    ASSERT_OK_AND_ASSIGN(auto reader,
                         RecordEngine::Open(*vfs_, kStore, options));
    ASSERT_OK_AND_ASSIGN(VerifyReport report, reader->Verify());
    EXPECT_EQ(report.unverified, 6u);
    EXPECT_FALSE(report.metadata_verified);
    EXPECT_OK(Read(*reader, 5));
  }
  auto engine = Open();  // A writer starts keeping checksums.
  ASSERT_NE(engine, nullptr);
  ASSERT_OK(engine->AppendFixed(RecordsFor(6, 2, kWidth), 2, kWidth));
  ASSERT_OK_AND_ASSIGN(VerifyReport report, engine->Verify());
  EXPECT_EQ(report.unverified, 6u);
  EXPECT_EQ(report.verified, 2u);
  EXPECT_TRUE(report.damaged.empty());
}

TEST_P(IntegrityTest, ARecordRewrittenInPlaceByAnotherProgramIsNotDamage) {
  // 1.7.7 deletes the last record, compacts, and appends one of the same
  // size: the new record sits exactly where the old one was, under the
  // same table entry, with other bytes.
  MakeStore(10);
  {
    auto engine = Open();
    ASSERT_NE(engine, nullptr);
  }
  ForeignWriter foreign(*vfs_, kStore);
  ASSERT_OK_AND_ASSIGN(auto loc, foreign.Loc(9));
  // The other program's record: stored by the same codec, and (for
  // compressed codecs) one whose frame happens to be just as long.
  std::string rewritten, record;
  for (char c = 'a'; c <= 'z' && rewritten.empty(); ++c) {
    record = "record-8-" + std::string(kWidth - 9, c);  // Shaped like 9's.
    ASSERT_OK_AND_ASSIGN(auto scratch, CreateVfs("memory"));
    ASSERT_OK_AND_ASSIGN(auto other,
                         RecordEngine::Create(*scratch, "/t", Options()));
    ASSERT_OK(other->AppendFixed(record, 1, kWidth));
    ForeignWriter reader(*scratch, "/t");
    ASSERT_OK_AND_ASSIGN(auto other_loc, reader.Loc(0));
    if (other_loc.phys_length != loc.phys_length) continue;
    ASSERT_OK_AND_ASSIGN(std::string chunk, reader.Read("0.chunk"));
    rewritten = chunk.substr(other_loc.offset, other_loc.phys_length);
  }
  ASSERT_FALSE(rewritten.empty()) << "no record with a frame as long";
  ASSERT_OK(foreign.RewriteRecordBytes(9, rewritten));

  auto engine = Open();
  ASSERT_NE(engine, nullptr);
  std::string bytes;
  ASSERT_OK(Read(*engine, 9, &bytes));
  EXPECT_EQ(bytes, record);
  ASSERT_OK_AND_ASSIGN(VerifyReport report, engine->Verify());
  EXPECT_TRUE(report.damaged.empty()) << absl::StrJoin(report.problems, "; ");
  EXPECT_EQ(report.unverified, 1u);
  EXPECT_EQ(report.verified, 9u);  // Records it did not touch still match.
  // What this handle writes from now on is checked with full force again.
  ASSERT_OK(engine->AppendFixed(RecordsFor(10, 2, kWidth), 2, kWidth));
  ASSERT_OK(engine->Sync());
  engine.reset();
  Corrupt(11);
  engine = Open();
  ASSERT_NE(engine, nullptr);
  EXPECT_STATUS_CODE(Read(*engine, 11), absl::StatusCode::kDataLoss);
}

TEST_P(IntegrityTest, ARecordMovedByAnotherProgramsDeleteIsUnverified) {
  MakeStore(8);
  ForeignWriter foreign(*vfs_, kStore);
  ASSERT_OK(foreign.Delete(2));  // Record 7 moves into slot 2.
  auto engine = Open();
  ASSERT_NE(engine, nullptr);
  std::string bytes;
  ASSERT_OK(Read(*engine, 2, &bytes));
  EXPECT_EQ(bytes, RecordFor(7, kWidth));
  ASSERT_OK_AND_ASSIGN(VerifyReport report, engine->Verify());
  EXPECT_EQ(report.records, 7u);
  EXPECT_TRUE(report.damaged.empty());
  EXPECT_EQ(report.unverified, 1u);
}

TEST_P(IntegrityTest, CompactionCarriesChecksumsAlong) {
  MakeStore(30);
  auto engine = Open();
  ASSERT_NE(engine, nullptr);
  ASSERT_OK(engine->Delete({0, 4, 11, 12}));
  ASSERT_OK(engine->Compact());
  ASSERT_OK_AND_ASSIGN(VerifyReport report, engine->Verify());
  EXPECT_EQ(report.verified, 26u);
  EXPECT_TRUE(report.damaged.empty());
}

TEST(TypedIntegrityTest, AFlippedTypeInStoreZrIsDataLoss) {
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("memory"));
  {
    StoreOptions options;
    options.codec = "raw";
    ASSERT_OK_AND_ASSIGN(
        auto store,
        DenseStore::Create(*vfs, "/s", {DType::Simple("<f4"), {2}}, options));
  }
  ASSERT_OK_AND_ASSIGN(std::string bytes,
                       ReadFileToString(*vfs, "/s/store.zr"));
  const size_t at = bytes.find("<f4");
  ASSERT_NE(at, std::string::npos);
  bytes[at] = '>';  // Still a valid identity: every record would flip.
  ASSERT_OK(WriteStringToFile(*vfs, "/s/store.zr", bytes));
  absl::Status opened = DenseStore::Open(*vfs, "/s").status();
  EXPECT_EQ(opened.code(), absl::StatusCode::kDataLoss) << opened;
  EXPECT_THAT(opened.message(), HasSubstr("store.zr"));
}

TEST(TypedIntegrityTest, ATruncatedDictionaryIsDataLoss) {
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("memory"));
  StoreOptions options;
  options.codec = "zstd_dict";
  options.dictionary = RecordsFor(0, 50, 40);
  {
    ASSERT_OK_AND_ASSIGN(
        auto store,
        RaggedStore::Create(*vfs, "/s", DType::Simple("<i4"), options));
  }
  ASSERT_OK_AND_ASSIGN(std::string dictionary,
                       ReadFileToString(*vfs, "/s/dict.zr"));
  dictionary.pop_back();
  ASSERT_OK(WriteStringToFile(*vfs, "/s/dict.zr", dictionary));
  absl::Status opened = RaggedStore::Open(*vfs, "/s").status();
  EXPECT_EQ(opened.code(), absl::StatusCode::kDataLoss) << opened;
  EXPECT_THAT(opened.message(), HasSubstr("dict.zr"));
}

TEST(TypedIntegrityTest, RaggedVerifyCountsPairsAndChecksShapes) {
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("memory"));
  ASSERT_OK_AND_ASSIGN(auto store,
                       RaggedStore::Create(*vfs, "/s", DType::Simple("<i4")));
  std::vector<int32_t> a(6, 1), b(10, 2);
  std::vector<RaggedRecord> records = {
      {absl::string_view(reinterpret_cast<const char*>(a.data()), 24), {2, 3}},
      {absl::string_view(reinterpret_cast<const char*>(b.data()), 40), {10}}};
  ASSERT_OK(store->Append(records));
  ASSERT_OK_AND_ASSIGN(VerifyReport report, store->Verify());
  EXPECT_EQ(report.records, 2u);
  EXPECT_EQ(report.verified, 2u);
  EXPECT_TRUE(report.metadata_verified);
  EXPECT_TRUE(report.ok());
}

TEST(TypedIntegrityTest, VerifyReportsItsProgressUpToEveryRecord) {
  ASSERT_OK_AND_ASSIGN(auto vfs, CreateVfs("memory"));
  ASSERT_OK_AND_ASSIGN(auto store,
                       RaggedStore::Create(*vfs, "/s", DType::Simple("|u1")));
  constexpr uint64_t kRecords = 10000;  // Several progress steps per shard.
  const std::string bytes(kRecords, 'x');
  std::vector<RaggedRecord> records(kRecords);
  for (uint64_t i = 0; i < kRecords; ++i) {
    records[i] = {absl::string_view(bytes).substr(i, 1), {1}};
  }
  ASSERT_OK(store->Append(records));
  std::atomic<bool> inside{false};
  std::vector<std::pair<uint64_t, uint64_t>> calls;
  ASSERT_OK_AND_ASSIGN(
      VerifyReport report, store->Verify([&](uint64_t done, uint64_t total) {
        EXPECT_FALSE(inside.exchange(true)) << "two progress calls at once";
        calls.emplace_back(done, total);
        inside = false;
      }));
  EXPECT_EQ(report.verified, kRecords);
  ASSERT_GE(calls.size(), 2u);
  for (size_t k = 0; k < calls.size(); ++k) {
    EXPECT_EQ(calls[k].second, kRecords);  // Records, not engine records.
    if (k > 0) {
      EXPECT_GT(calls[k].first, calls[k - 1].first);
    }
  }
  EXPECT_EQ(calls.back().first, kRecords);
}

// A verified gather of 64 and 128-byte raw records checks them eight at a
// time where the CPU has vectors for it (`checksum_internal::BlockCheck`),
// one by one otherwise and at other widths (32 here), each record located
// through the resident index or through the files' table and checksum
// entries: every way, damage anywhere in a block is reported at its own
// record, the records around it arrive intact, and records another program
// wrote (no checksum) are returned unverified, beside checked ones in the
// same block.
class BlockCheckedGatherTest
    : public testing::TestWithParam<std::tuple<size_t, bool>> {
 protected:
  void SetUp() override { ASSERT_OK_AND_ASSIGN(vfs_, CreateVfs("memory")); }
  size_t width() const { return std::get<0>(GetParam()); }

  // Opens the store, its gathers reading the resident index or, where the
  // parameter says so, the files' table and checksum entries.
  absl::StatusOr<std::unique_ptr<RecordEngine>> Open() {
    RecordEngineOptions options;
    options.resident_index = std::get<1>(GetParam());
    return RecordEngine::Open(*vfs_, kStore, options);
  }

  void MakeStore(uint64_t count) {
    ASSERT_OK_AND_ASSIGN(auto engine, RecordEngine::Create(*vfs_, kStore, {}));
    ASSERT_OK(
        engine->AppendFixed(RecordsFor(0, count, width()), count, width()));
    ASSERT_OK(engine->Sync());
  }

  // Flips one stored byte of record `index`, `at` bytes into it.
  void Flip(uint64_t index, uint64_t at) {
    ForeignWriter files(*vfs_, kStore);
    ASSERT_OK_AND_ASSIGN(auto loc, files.Loc(index));
    const std::string chunk = store_format::ChunkFileName(loc.chunk_id);
    ASSERT_OK_AND_ASSIGN(std::string bytes, files.Read(chunk));
    ASSERT_OK(files.Write(chunk, loc.offset + at,
                          std::string(1, bytes[loc.offset + at] ^ 0x10)));
  }

  // Every record of [0, count) but `skipped`, gathered in order.
  absl::Status GatherAll(const RecordEngine& engine, uint64_t count,
                         std::string* out, uint64_t skipped = ~uint64_t{0}) {
    std::vector<uint64_t> order;
    for (uint64_t i = 0; i < count; ++i) {
      if (i != skipped) order.push_back(i);
    }
    out->assign(order.size() * width(), '\0');
    return engine.GatherFixed(order, width(), absl::MakeSpan(*out));
  }

  std::string Expected(uint64_t count, uint64_t skipped = ~uint64_t{0}) {
    std::string expected;
    for (uint64_t i = 0; i < count; ++i) {
      if (i != skipped) expected += RecordFor(i, width());
    }
    return expected;
  }

  std::unique_ptr<Vfs> vfs_;
};

INSTANTIATE_TEST_SUITE_P(
    WidthsAndIndex, BlockCheckedGatherTest,
    testing::Combine(testing::Values(32, 64, 128), testing::Bool()),
    [](const testing::TestParamInfo<std::tuple<size_t, bool>>& info) {
      return absl::StrCat(std::get<0>(info.param),
                          std::get<1>(info.param) ? "Resident" : "Files");
    });

TEST_P(BlockCheckedGatherTest, DamageAnywhereInABlockIsReportedAtItsRecord) {
  constexpr uint64_t kCount = 41;  // Five whole blocks and one short one.
  MakeStore(kCount);
  for (uint64_t damaged : {0, 5, 7, 8, 15, 33, 40}) {
    const uint64_t at = (damaged * 13) % width();
    Flip(damaged, at);
    ASSERT_OK_AND_ASSIGN(auto engine, Open());
    std::string out;
    const absl::Status gathered = GatherAll(*engine, kCount, &out);
    EXPECT_EQ(gathered.code(), absl::StatusCode::kDataLoss) << gathered;
    EXPECT_THAT(gathered.message(),
                HasSubstr(absl::StrCat("record ", damaged, " ")))
        << "byte " << at;
    ASSERT_OK(GatherAll(*engine, kCount, &out, damaged));
    EXPECT_TRUE(out == Expected(kCount, damaged)) << "around " << damaged;
    Flip(damaged, at);  // Mended.
  }
  ASSERT_OK_AND_ASSIGN(auto engine, Open());
  std::string out;
  ASSERT_OK(GatherAll(*engine, kCount, &out));
  EXPECT_TRUE(out == Expected(kCount));
}

TEST_P(BlockCheckedGatherTest, SwappedEntriesInABlockAreReportedAtTheFirst) {
  MakeStore(16);
  SwapTableEntries(*vfs_, 10, 12);
  ASSERT_OK_AND_ASSIGN(auto engine, Open());
  std::string out;
  const absl::Status gathered = GatherAll(*engine, 16, &out);
  EXPECT_EQ(gathered.code(), absl::StatusCode::kDataLoss) << gathered;
  EXPECT_THAT(gathered.message(), HasSubstr("record 10 "));
}

TEST_P(BlockCheckedGatherTest, UncheckedRecordsShareABlockWithCheckedOnes) {
  MakeStore(5);
  ASSERT_OK(vfs_->Remove("/s/checksums.lx"));  // As 1.7.7 writes stores.
  {
    ASSERT_OK_AND_ASSIGN(auto writer, Open());
    ASSERT_OK(writer->AppendFixed(RecordsFor(5, 11, width()), 11, width()));
    ASSERT_OK(writer->Sync());
  }
  Flip(2, 1);  // No checksum: nothing can tell.
  ASSERT_OK_AND_ASSIGN(auto engine, Open());
  std::string out;
  ASSERT_OK(GatherAll(*engine, 16, &out));
  EXPECT_FALSE(out == Expected(16));
  EXPECT_TRUE(out.substr(3 * width()) == Expected(16).substr(3 * width()));
  engine.reset();
  Flip(6, 1);  // Checked, in the same block as record 2.
  ASSERT_OK_AND_ASSIGN(engine, Open());
  const absl::Status gathered = GatherAll(*engine, 16, &out);
  EXPECT_EQ(gathered.code(), absl::StatusCode::kDataLoss) << gathered;
  EXPECT_THAT(gathered.message(), HasSubstr("record 6 "));
}

}  // namespace
}  // namespace loaderx
