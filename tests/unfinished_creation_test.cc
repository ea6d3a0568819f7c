// What `Create` does with a directory whose meta.zr is not a header
// (`src/creation_site.h`): an unfinished creation (no store.zr, nothing
// committed beside it) is taken over; anything that may be a store (with
// store.zr, with records, with a durable state of its own) or is not a
// store's (a file we do not know) is refused and left byte for byte as it
// was, and opening a committed store with that damage repairs it or
// reports it without deleting anything.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "loaderx/dense_store.h"
#include "loaderx/dtype.h"
#include "loaderx/typed_store.h"
#include "loaderx/vfs_registry.h"
#include "src/integrity_format.h"
#include "src/journal.h"
#include "src/record_engine.h"
#include "src/store_format.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

constexpr char kStore[] = "/d/store";

// Every file of the store directory, by name.
using Contents = std::map<std::string, std::string>;

const TypeIdentity& Identity() {
  static const TypeIdentity* identity =
      new TypeIdentity{DType::Simple("<u4"), {2}};
  return *identity;
}

StoreOptions Raw() {
  StoreOptions options;
  options.codec = "raw";
  return options;
}

// 32 bytes that are not a header: what a garbled write of meta.zr leaves.
std::string Garbage(size_t size = 32) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>(0x9e ^ i);
  return bytes;
}

class UnfinishedCreationTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(vfs_, CreateVfs("memory"));
    ASSERT_OK(vfs_->CreateDirectory("/d"));
  }

  std::string PathOf(absl::string_view name) const {
    return absl::StrCat(kStore, "/", name);
  }

  // Replaces the contents of `name` (creating it) with `bytes`.
  void Put(absl::string_view name, absl::string_view bytes) {
    ASSERT_OK_AND_ASSIGN(auto file,
                         vfs_->Open(PathOf(name), OpenMode::kCreate));
    ASSERT_OK(file->Truncate(0));
    ASSERT_OK(file->WriteAt(0, bytes));
  }
  void Remove(absl::string_view name) { ASSERT_OK(vfs_->Remove(PathOf(name))); }

  // A dense store of `records` 8-byte records, closed.
  void MakeStore(uint64_t records) {
    ASSERT_OK_AND_ASSIGN(auto store,
                         DenseStore::Create(*vfs_, kStore, Identity(), Raw()));
    if (records > 0) {
      ASSERT_OK(store->Append(std::string(8 * records, 'r')));
    }
  }
  // What a typed creation that stopped before store.zr leaves, with its
  // meta.zr garbled by the power cut.
  void MakeGarbledCreation() {
    MakeStore(0);
    Remove("store.zr");
    Put("meta.zr", Garbage());
  }

  Contents Snapshot() {
    Contents contents;
    absl::StatusOr<std::vector<std::string>> names = vfs_->List(kStore);
    EXPECT_OK(names.status());
    if (!names.ok()) return contents;
    for (const std::string& name : *names) {
      absl::StatusOr<std::string> bytes = ReadFileToString(*vfs_, PathOf(name));
      EXPECT_OK(bytes.status());
      if (bytes.ok()) contents[name] = *bytes;
    }
    return contents;
  }

  // `Create` is refused with AlreadyExists whose message has every one of
  // `mentions`, and the directory is exactly as it was.
  void ExpectCreateRefused(std::vector<std::string> mentions) {
    const Contents before = Snapshot();
    absl::Status created =
        DenseStore::Create(*vfs_, kStore, Identity(), Raw()).status();
    EXPECT_TRUE(absl::IsAlreadyExists(created)) << created;
    for (const std::string& mention : mentions) {
      EXPECT_TRUE(absl::StrContains(created.message(), mention))
          << created << " does not mention " << mention;
    }
    EXPECT_EQ(Snapshot(), before);
    if (before.count("store.zr") != 0) return;  // It would open the store.
    // The reference's open-or-create constructor refuses it too (−8).
    StoreRequest request;
    request.dtype = Identity().dtype;
    request.item_shape = Identity().item_shape;
    request.codec = "raw";
    absl::Status constructed =
        DenseStore::OpenOrCreate(*vfs_, kStore, request).status();
    EXPECT_TRUE(absl::IsDataLoss(constructed)) << constructed;
    EXPECT_EQ(Snapshot(), before);
  }

  // `open` fails with DataLoss naming meta.zr and changes nothing.
  void ExpectOpenReportsDamage(const std::function<absl::Status()>& open) {
    const Contents before = Snapshot();
    absl::Status opened = open();
    EXPECT_TRUE(absl::IsDataLoss(opened)) << opened;
    EXPECT_TRUE(absl::StrContains(opened.message(), "meta.zr")) << opened;
    EXPECT_EQ(Snapshot(), before);
  }

  // `Create` takes the directory over: a new, working, empty store.
  void ExpectCreateTakesOver() {
    ASSERT_OK_AND_ASSIGN(auto store,
                         DenseStore::Create(*vfs_, kStore, Identity(), Raw()));
    EXPECT_EQ(store->size(), 0u);
    ASSERT_OK(store->Append(std::string(16, 'n')));
    store.reset();
    ASSERT_OK_AND_ASSIGN(store, DenseStore::Open(*vfs_, kStore));
    EXPECT_EQ(store->size(), 2u);
    ASSERT_OK_AND_ASSIGN(VerifyReport report, store->Verify());
    EXPECT_TRUE(report.metadata_verified);
    EXPECT_TRUE(report.damaged.empty());
  }

  std::unique_ptr<Vfs> vfs_;
};

TEST_F(UnfinishedCreationTest, GarbageMetaWithoutStoreZrIsTakenOver) {
  MakeGarbledCreation();
  ExpectCreateTakesOver();
}

TEST_F(UnfinishedCreationTest, ZeroedOrShortGarbageIsTakenOverToo) {
  for (const std::string& meta : {std::string(32, '\0'), Garbage(7)}) {
    SCOPED_TRACE(meta.size());
    MakeStore(0);
    Remove("store.zr");
    Put("meta.zr", meta);
    ExpectCreateTakesOver();
    for (const auto& [name, bytes] : Snapshot()) Remove(name);  // Next one.
  }
}

TEST_F(UnfinishedCreationTest, GarbageMetaOfAReferenceCreationIsTakenOver) {
  // loaderx 1.7.7 keeps no checksums.lx: meta.zr and an empty 0.chunk.
  MakeGarbledCreation();
  Remove(integrity_format::kIntegrityFile);
  ExpectCreateTakesOver();
}

TEST_F(UnfinishedCreationTest, GarbageMetaAndGarbageChecksumsAreTakenOver) {
  // Both state slots torn: checksums.lx says nothing either way.
  MakeGarbledCreation();
  Put(integrity_format::kIntegrityFile,
      std::string(integrity_format::kEntriesOffset, '\x5a'));
  ExpectCreateTakesOver();
}

TEST_F(UnfinishedCreationTest, TheReferenceConstructorRedoesIt) {
  MakeGarbledCreation();
  StoreRequest request;
  request.dtype = DType::Simple("<f4");
  request.item_shape = std::vector<uint64_t>{4};
  ASSERT_OK_AND_ASSIGN(auto store,
                       DenseStore::OpenOrCreate(*vfs_, kStore, request));
  EXPECT_EQ(store->size(), 0u);
  EXPECT_EQ(store->record_bytes(), 16u);
}

TEST_F(UnfinishedCreationTest, GarbageMetaWithStoreZrIsRefusedUntouched) {
  MakeStore(0);
  Put("meta.zr", Garbage());
  ExpectCreateRefused({"already holds a store"});
}

TEST_F(UnfinishedCreationTest, GarbageMetaWithAnUnknownFileIsRefusedUntouched) {
  MakeGarbledCreation();
  Put("notes.txt", "mine");
  ExpectCreateRefused({"notes.txt", "not part of a store"});
}

TEST_F(UnfinishedCreationTest, GarbageMetaOfAStoreWithRecordsIsCorruptNotLost) {
  // Its header overwritten after the store was closed (not a crash of
  // ours, which `Open` repairs from checksums.lx: the crash suites):
  // `Open` reports the damage, `Create` refuses, nothing changes.
  MakeStore(3);
  Put("meta.zr", Garbage());
  ExpectOpenReportsDamage(
      [&] { return DenseStore::Open(*vfs_, kStore).status(); });
  ExpectCreateRefused({"already holds a store"});
}

TEST_F(UnfinishedCreationTest, GarbageMetaOfAReferenceStoreIsCorruptNotLost) {
  // As 1.7.7 leaves a store: no checksums.lx.
  MakeStore(3);
  Remove(integrity_format::kIntegrityFile);
  Put("meta.zr", Garbage());
  ExpectOpenReportsDamage(
      [&] { return DenseStore::Open(*vfs_, kStore).status(); });
  ExpectCreateRefused({"already holds a store"});
}

TEST_F(UnfinishedCreationTest, GarbageMetaOfABareStoreWithRecordsIsRefused) {
  // An engine store (no store.zr) with records: its table says records
  // were committed.
  {
    ASSERT_OK_AND_ASSIGN(auto engine, RecordEngine::Create(*vfs_, kStore, {}));
    ASSERT_OK(engine->AppendFixed(std::string(16, 'b'), 2, 8));
  }
  Put("meta.zr", Garbage());
  ExpectOpenReportsDamage(
      [&] { return RecordEngine::Open(*vfs_, kStore).status(); });
  ExpectCreateRefused({"0.loc", "records"});
  const Contents before = Snapshot();
  EXPECT_TRUE(
      absl::IsAlreadyExists(RecordEngine::Create(*vfs_, kStore, {}).status()));
  EXPECT_EQ(Snapshot(), before);
}

TEST_F(UnfinishedCreationTest, GarbageMetaOfABareEmptyStoreIsRefused) {
  // An engine store of no records with its checksums.lx: a store in its
  // own right (its durable state has no store.zr checksum: no typed
  // creation made it), so no creation takes it over.
  { ASSERT_OK(RecordEngine::Create(*vfs_, kStore, {}).status()); }
  Put("meta.zr", Garbage());
  ExpectCreateRefused({"meta.zr", "checksums.lx"});
  ExpectOpenReportsDamage(
      [&] { return RecordEngine::Open(*vfs_, kStore).status(); });
}

TEST_F(UnfinishedCreationTest, GarbageMetaBesideRecordBytesIsRefused) {
  MakeGarbledCreation();
  Put("0.chunk", "record bytes");
  ExpectCreateRefused({"meta.zr", "0.chunk"});
}

TEST_F(UnfinishedCreationTest, GarbageMetaBesideAJournalIsRefused) {
  MakeGarbledCreation();
  Put(kJournalFile, "step");
  ExpectCreateRefused({"meta.zr", std::string(kJournalFile)});
}

TEST_F(UnfinishedCreationTest, GarbageMetaBesideRecordChecksumsIsRefused) {
  MakeGarbledCreation();
  ASSERT_OK_AND_ASSIGN(std::string integrity,
                       ReadFileToString(*vfs_, PathOf("checksums.lx")));
  integrity.resize(
      integrity_format::kEntriesOffset + integrity_format::kEntryBytes, '\x01');
  Put(integrity_format::kIntegrityFile, integrity);
  ExpectCreateRefused({"meta.zr", "checksums"});
}

TEST_F(UnfinishedCreationTest, GarbageMetaBesideASealOfRecordsIsRefused) {
  // The durable state is a creation's, but the seal names a header with
  // records: one was committed after it.
  MakeGarbledCreation();
  store_format::PhysicalHeader header;
  header.length = 5;
  header.tail_offset = 40;
  integrity_format::CommitSeal seal;
  seal.meta = store_format::EncodeHeader(header);
  seal.previous = seal.meta;
  ASSERT_OK_AND_ASSIGN(std::string integrity,
                       ReadFileToString(*vfs_, PathOf("checksums.lx")));
  integrity.replace(integrity_format::kSealOffset, integrity_format::kSealBytes,
                    integrity_format::EncodeSeal(seal));
  Put(integrity_format::kIntegrityFile, integrity);
  ExpectCreateRefused({"meta.zr", "checksums.lx"});
}

TEST_F(UnfinishedCreationTest, AMetaLongerThanAHeaderIsRefused) {
  MakeGarbledCreation();
  Put("meta.zr", Garbage(33));
  ExpectCreateRefused({"meta.zr", "33 bytes"});
}

// --- What a kill leaves: store.zr created and cut short, its staging
// copy, files created and never written. ---

// Every way to open the store reports the unfinished creation, naming the
// path and the way out, and changes nothing.
void ExpectOpenSaysUnfinished(Vfs& vfs, const Contents& before,
                              const std::function<Contents()>& snapshot) {
  StoreRequest no_dtype;
  StoreRequest read_only;
  read_only.read_only = true;
  StoreOptions read_only_options;
  read_only_options.read_only = true;
  const absl::Status statuses[] = {
      DenseStore::Open(vfs, kStore).status(),
      DenseStore::Open(vfs, kStore, read_only_options).status(),
      TypedStore::OpenAny(vfs, kStore).status(),
      DenseStore::OpenOrCreate(vfs, kStore, no_dtype).status(),
      DenseStore::OpenOrCreate(vfs, kStore, read_only).status(),
  };
  for (const absl::Status& status : statuses) {
    EXPECT_TRUE(absl::IsDataLoss(status)) << status;
    EXPECT_TRUE(absl::StrContains(
        status.message(), absl::StrCat("unfinished creation at ", kStore)))
        << status;
    EXPECT_TRUE(absl::StrContains(status.message(), "Create the store again"))
        << status;
  }
  EXPECT_EQ(snapshot(), before);
}

TEST_F(UnfinishedCreationTest, AStoreZrCutShortIsAnUnfinishedCreation) {
  // 1.7.7 (and builds before store.zr.new) wrote store.zr in place: a kill
  // between its creation and its write leaves it empty or partial.
  std::string whole;
  {
    MakeStore(0);
    ASSERT_OK_AND_ASSIGN(whole, ReadFileToString(*vfs_, PathOf("store.zr")));
    for (const auto& [name, bytes] : Snapshot()) Remove(name);
  }
  for (const std::string& leftover :
       {std::string(), std::string("LXST"), whole.substr(0, 31),
        Garbage(whole.size())}) {
    SCOPED_TRACE(leftover.size());
    MakeStore(0);
    Put("store.zr", leftover);
    ExpectOpenSaysUnfinished(*vfs_, Snapshot(), [&] { return Snapshot(); });
    ExpectCreateTakesOver();
    EXPECT_EQ(Snapshot().count("store.zr.new"), 0u);
    for (const auto& [name, bytes] : Snapshot()) Remove(name);
  }
}

TEST_F(UnfinishedCreationTest, AStagedStoreZrIsAnUnfinishedCreation) {
  // Killed while store.zr.new was written, or before its rename.
  for (const std::string& staged : {std::string(), Garbage(40)}) {
    MakeStore(0);
    Remove("store.zr");
    Put("store.zr.new", staged);
    ExpectOpenSaysUnfinished(*vfs_, Snapshot(), [&] { return Snapshot(); });
    ExpectCreateTakesOver();
    EXPECT_EQ(Snapshot().count("store.zr.new"), 0u);
    for (const auto& [name, bytes] : Snapshot()) Remove(name);
  }
}

TEST_F(UnfinishedCreationTest, FilesCreatedAndNeverWrittenAreTakenOver) {
  // A kill right after each file's creating open: empty meta.zr (with or
  // without the others), dict.zr, checksums.lx, journal.lx.
  MakeStore(0);
  Remove("store.zr");
  Put("meta.zr", "");
  ExpectOpenSaysUnfinished(*vfs_, Snapshot(), [&] { return Snapshot(); });
  for (absl::string_view name :
       {"dict.zr", "checksums.lx", "journal.lx", "store.zr"}) {
    Put(name, "");
  }
  ExpectOpenSaysUnfinished(*vfs_, Snapshot(), [&] { return Snapshot(); });
  ExpectCreateTakesOver();
}

TEST_F(UnfinishedCreationTest, ItIsTakenOverByAnotherKindAndCodec) {
  MakeStore(0);
  Put("store.zr", "");
  StoreOptions options;
  options.codec = "zstd";
  ASSERT_OK_AND_ASSIGN(auto store,
                       TypedStore::Create(*vfs_, kStore, "ragged",
                                          {DType::Simple("<i2"), {}}, options));
  EXPECT_EQ(store->kind(), "ragged");
  EXPECT_EQ(store->codec(), "zstd");
}

TEST_F(UnfinishedCreationTest, AStoreZrCutShortBesideRecordsIsDamage) {
  // Records were committed: the store's store.zr is damaged, and nothing
  // is taken over or said to be unfinished.
  MakeStore(3);
  Put("store.zr", "");
  const absl::Status opened = DenseStore::Open(*vfs_, kStore).status();
  EXPECT_TRUE(absl::IsDataLoss(opened)) << opened;
  EXPECT_FALSE(absl::StrContains(opened.message(), "unfinished")) << opened;
  EXPECT_TRUE(absl::StrContains(opened.message(), "store.zr")) << opened;
  StoreRequest request;
  request.dtype = Identity().dtype;
  request.item_shape = Identity().item_shape;
  const absl::Status constructed =
      DenseStore::OpenOrCreate(*vfs_, kStore, request).status();
  EXPECT_TRUE(absl::IsDataLoss(constructed)) << constructed;
  EXPECT_FALSE(absl::StrContains(constructed.message(), "unfinished"))
      << constructed;
  ExpectCreateRefused({"0.loc", "records"});
}

TEST_F(UnfinishedCreationTest, AHeaderOfAnotherVersionIsRefused) {
  // It is a header, of a store this build cannot read: not garbage.
  MakeGarbledCreation();
  std::string header = Garbage();
  header.replace(0, 4, "ZREC");
  Put("meta.zr", header);
  ExpectCreateRefused({"meta.zr", "cannot read"});
}

}  // namespace
}  // namespace loaderx
