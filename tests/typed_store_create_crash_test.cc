// Power lost at every point of a typed store's creation (`DenseStore::Create`
// over the fault VFS, unsynced writes dropped or garbled), into an empty
// directory and over an unfinished creation it takes over. Whatever the
// crash leaves is one of: no store (not found), an unfinished creation that
// the next `Create` takes over (also when the crash garbled meta.zr), or the
// empty store whose store.zr matches the checksum recorded before it was
// written (`metadata_verified`), so a store.zr is never taken on trust. Once
// `Create` has returned, the store survives the crash. The same again with
// the creation's order-free syncs overlapped (any subset of them durable).

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "loaderx/dense_store.h"
#include "loaderx/dtype.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/typed_store.h"
#include "loaderx/vfs_registry.h"
#include "tests/status_testing.h"
#include "vfs/fault/fault_vfs.h"

namespace loaderx {
namespace {

constexpr char kStore[] = "/d/store";

// The store after the crash: opens empty with its store.zr verified, or is
// absent, or is an unfinished creation that a new `Create` finishes (also
// when the power cut garbled meta.zr itself: the directory shows that no
// record was committed there, `creation_site.h`).
void ExpectEmptyVerifiedOrRecreatable(Vfs& vfs) {
  absl::StatusOr<std::unique_ptr<DenseStore>> opened =
      DenseStore::Open(vfs, kStore);
  if (opened.ok()) {
    EXPECT_EQ((*opened)->size(), 0u);
    ASSERT_OK_AND_ASSIGN(VerifyReport report, (*opened)->Verify());
    EXPECT_TRUE(report.metadata_verified)
        << "store.zr survived without the checksum recorded before it";
    return;
  }
  absl::StatusOr<std::unique_ptr<DenseStore>> created =
      DenseStore::Create(vfs, kStore, {DType::Simple("<u4"), {2}});
  ASSERT_OK(created.status());
  EXPECT_EQ((*created)->size(), 0u);
  created->reset();
  ASSERT_OK_AND_ASSIGN(auto reopened, DenseStore::Open(vfs, kStore));
  ASSERT_OK_AND_ASSIGN(VerifyReport report, reopened->Verify());
  EXPECT_TRUE(report.metadata_verified);
}

// Whether the crash left meta.zr holding bytes that are not a header.
bool MetaIsGarbage(Vfs& vfs) {
  absl::StatusOr<std::string> meta =
      ReadFileToString(vfs, absl::StrCat(kStore, "/meta.zr"));
  return meta.ok() && !meta->empty() && !absl::StartsWith(*meta, "ZREC");
}

// What is in the directory before the creation: durable, so the power cut
// only takes what the creation itself writes.
using Setup = std::function<absl::Status(FaultVfs&)>;

absl::Status NothingThere(FaultVfs&) { return absl::OkStatus(); }

// The leftovers of a creation whose store.zr never landed: what a takeover
// rewrites (meta.zr, 0.chunk, checksums.lx) was durable before it.
absl::Status AnUnfinishedCreation(FaultVfs& vfs) {
  LOADERX_RETURN_IF_ERROR(
      DenseStore::Create(vfs, kStore, {DType::Simple("<u4"), {2}}).status());
  LOADERX_RETURN_IF_ERROR(vfs.Remove(absl::StrCat(kStore, "/store.zr")));
  return vfs.SyncDirectory(kStore);
}

// Cuts the power at every mutating call of a `Create` made after `setup`,
// in both crash modes, and checks what each crash leaves; returns how many
// crashes left a meta.zr of garbage.
int EveryPowerCut(const Setup& setup) {
  int64_t total = 0;
  {
    absl::StatusOr<std::unique_ptr<Vfs>> memory = CreateVfs("memory");
    EXPECT_OK(memory.status());
    FaultVfs vfs(memory->get());
    EXPECT_OK(vfs.CreateDirectory("/d"));
    EXPECT_OK(setup(vfs));
    const int64_t before = vfs.MutatingCalls();
    EXPECT_OK(DenseStore::Create(vfs, kStore, {DType::Simple("<u4"), {2}}));
    total = vfs.MutatingCalls() - before;
  }
  EXPECT_GT(total, 5);
  int garbage_headers = 0;
  for (auto mode : {FaultVfs::CrashMode::kDropUnsynced,
                    FaultVfs::CrashMode::kGarbleUnsynced}) {
    for (int64_t calls = 0; calls <= total; ++calls) {
      SCOPED_TRACE(absl::StrCat("power lost after ", calls, " of ", total,
                                " calls, mode ", static_cast<int>(mode)));
      absl::StatusOr<std::unique_ptr<Vfs>> memory = CreateVfs("memory");
      EXPECT_OK(memory.status());
      FaultVfs vfs(memory->get());
      EXPECT_OK(vfs.CreateDirectory("/d"));
      EXPECT_OK(vfs.SyncDirectory("/"));
      EXPECT_OK(setup(vfs));
      vfs.CutPowerAfter(calls);
      const bool created =
          DenseStore::Create(vfs, kStore, {DType::Simple("<u4"), {2}}).ok();
      EXPECT_OK(vfs.SimulateCrash(mode, /*seed=*/calls));
      if (created) {
        absl::StatusOr<std::unique_ptr<DenseStore>> store =
            DenseStore::Open(vfs, kStore);
        EXPECT_OK(store.status());
        if (!store.ok()) continue;
        EXPECT_EQ((*store)->size(), 0u);
        absl::StatusOr<VerifyReport> report = (*store)->Verify();
        EXPECT_OK(report.status());
        if (report.ok()) {
          EXPECT_TRUE(report->metadata_verified);
        }
        continue;
      }
      garbage_headers += MetaIsGarbage(vfs);
      ExpectEmptyVerifiedOrRecreatable(vfs);
    }
  }
  return garbage_headers;
}

TEST(TypedStoreCreateCrashTest, EveryPowerCutLeavesAStoreOrARecreatableOne) {
  // The garbled power cut between meta.zr's write and its sync is among
  // them: the case that must not leave the directory refused for ever.
  EXPECT_GT(EveryPowerCut(NothingThere), 0);
}

TEST(TypedStoreCreateCrashTest, EveryPowerCutInATakeoverLeavesOneToo) {
  // Taking over rewrites files that were durable, so garbage lands in
  // checksums.lx as well as in meta.zr.
  EXPECT_GT(EveryPowerCut(AnUnfinishedCreation), 0);
}

// The process killed (SIGKILL: everything it wrote stays, synced or not)
// before each mutating call of a creation of every kind in every codec,
// into an empty directory and over an unfinished creation: the states a
// power cut that drops whole writes never leaves, such as a file created
// and never written. The store is then whole, or nothing is there, or
// every open reports the unfinished creation and a new `Create` (of the
// other kind and codec) takes it over. Adds the kill points to `points`.
void EveryKill(absl::string_view kind, absl::string_view codec,
               const Setup& setup, int& points) {
  const TypeIdentity identity{
      DType::Simple("<u4"),
      kind == "dense" ? std::vector<uint64_t>{2} : std::vector<uint64_t>{}};
  StoreOptions options;
  options.codec = std::string(codec);
  if (codec == "zstd_dict") options.dictionary = std::string(256, 'd');
  auto create = [&](Vfs& vfs) {
    return TypedStore::Create(vfs, kStore, kind, identity, options).status();
  };
  int64_t total = 0;
  {
    absl::StatusOr<std::unique_ptr<Vfs>> memory = CreateVfs("memory");
    EXPECT_OK(memory.status());
    FaultVfs vfs(memory->get());
    EXPECT_OK(vfs.CreateDirectory("/d"));
    EXPECT_OK(setup(vfs));
    const int64_t before = vfs.MutatingCalls();
    EXPECT_OK(create(vfs));
    total = vfs.MutatingCalls() - before;
  }
  EXPECT_GT(total, 5);
  points += static_cast<int>(total);
  for (int64_t calls = 0; calls < total; ++calls) {
    SCOPED_TRACE(absl::StrCat(kind, " ", codec, ": killed after ", calls,
                              " of ", total, " calls"));
    absl::StatusOr<std::unique_ptr<Vfs>> memory = CreateVfs("memory");
    EXPECT_OK(memory.status());
    FaultVfs vfs(memory->get());
    EXPECT_OK(vfs.CreateDirectory("/d"));
    EXPECT_OK(setup(vfs));
    vfs.CutPowerAfter(calls);
    EXPECT_FALSE(create(vfs).ok());
    EXPECT_OK(vfs.SimulateCrash(FaultVfs::CrashMode::kKillProcess));
    absl::StatusOr<std::unique_ptr<TypedStore>> opened =
        TypedStore::OpenAny(vfs, kStore);
    if (opened.ok()) {
      EXPECT_EQ((*opened)->size(), 0u);
      EXPECT_EQ((*opened)->kind(), kind);
      continue;
    }
    EXPECT_TRUE(absl::IsNotFound(opened.status()) ||
                (absl::IsDataLoss(opened.status()) &&
                 absl::StrContains(opened.status().message(),
                                   "unfinished creation at")))
        << opened.status();
    // Taken over by another kind, dtype and codec.
    const bool dense = kind != "dense";
    absl::StatusOr<std::unique_ptr<TypedStore>> created = TypedStore::Create(
        vfs, kStore, dense ? "dense" : "ragged",
        {DType::Simple("<f8"),
         dense ? std::vector<uint64_t>{2} : std::vector<uint64_t>{}},
        StoreOptions{});
    ASSERT_OK(created.status());
    created->reset();
    ASSERT_OK_AND_ASSIGN(auto reopened, TypedStore::OpenAny(vfs, kStore));
    EXPECT_EQ(reopened->size(), 0u);
    ASSERT_OK_AND_ASSIGN(VerifyReport report, reopened->Verify());
    EXPECT_TRUE(report.metadata_verified);
  }
}

TEST(TypedStoreCreateCrashTest, EveryKillOfEveryKindAndCodecLeavesOneToo) {
  int points = 0;
  for (absl::string_view kind : {"dense", "ragged"}) {
    for (absl::string_view codec : {"raw", "zstd", "zstd_dict"}) {
      EveryKill(kind, codec, NothingThere, points);
      EveryKill(kind, codec, AnUnfinishedCreation, points);
      if (testing::Test::HasFatalFailure()) return;
    }
  }
  std::printf(
      "typed store creation: %d kill points, every one reopened or "
      "created again\n",
      points);
}

// The creation's order-free syncs overlapped, as on a real filesystem: any
// subset of them may be durable at a power cut. After `setup`, every set of
// the files and directories the creation syncs has its syncs fail (never
// reaching the disk, while the rest of their group's do) before the crash;
// then a power cut at every count with the overlap on.
void EveryOverlappedCut(const Setup& setup) {
  std::vector<std::pair<std::string, bool>> targets;  // Path, directory.
  int64_t total = 0;
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Vfs> memory, CreateVfs("memory"));
    FaultVfs vfs(memory.get());
    ASSERT_OK(vfs.CreateDirectory("/d"));
    ASSERT_OK(setup(vfs));
    FaultVfs creating(memory.get());  // Sees the creation's calls only.
    creating.set_concurrent_syncs(true);
    const int64_t before = creating.MutatingCalls();
    ASSERT_OK(
        DenseStore::Create(creating, kStore, {DType::Simple("<u4"), {2}}));
    total = creating.MutatingCalls() - before;
    std::set<std::string> files = creating.PathsCalled(VfsOp::kSyncData);
    files.merge(creating.PathsCalled(VfsOp::kSync));
    for (const std::string& path : files) targets.emplace_back(path, false);
    for (const std::string& path :
         creating.PathsCalled(VfsOp::kSyncDirectory)) {
      targets.emplace_back(path, true);
    }
  }
  ASSERT_GE(targets.size(), 5u);
  ASSERT_LE(targets.size(), 8u);
  auto crash_and_check = [&](const std::string& fault,
                             const std::function<void(FaultVfs&)>& arm,
                             FaultVfs::CrashMode mode, uint64_t seed) {
    SCOPED_TRACE(absl::StrCat(fault, ", mode ", static_cast<int>(mode)));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<Vfs> memory, CreateVfs("memory"));
    FaultVfs vfs(memory.get());
    ASSERT_OK(vfs.CreateDirectory("/d"));
    ASSERT_OK(vfs.SyncDirectory("/"));
    ASSERT_OK(setup(vfs));
    vfs.set_concurrent_syncs(true);
    arm(vfs);
    const bool created =
        DenseStore::Create(vfs, kStore, {DType::Simple("<u4"), {2}}).ok();
    ASSERT_OK(vfs.SimulateCrash(mode, seed));
    vfs.ClearFaults();
    if (created) {
      ASSERT_OK_AND_ASSIGN(auto store, DenseStore::Open(vfs, kStore));
      EXPECT_EQ(store->size(), 0u);
      ASSERT_OK_AND_ASSIGN(VerifyReport report, store->Verify());
      EXPECT_TRUE(report.metadata_verified);
      return;
    }
    ExpectEmptyVerifiedOrRecreatable(vfs);
  };
  for (auto mode : {FaultVfs::CrashMode::kDropUnsynced,
                    FaultVfs::CrashMode::kGarbleUnsynced}) {
    for (uint64_t set = 1; set < (uint64_t{1} << targets.size()); ++set) {
      std::vector<std::string> failed;
      for (size_t i = 0; i < targets.size(); ++i) {
        if (set & (uint64_t{1} << i)) failed.push_back(targets[i].first);
      }
      crash_and_check(
          absl::StrCat("syncs of ", absl::StrJoin(failed, ", "), " failed"),
          [&](FaultVfs& vfs) {
            const absl::Status cut = absl::UnavailableError("power cut");
            for (size_t i = 0; i < targets.size(); ++i) {
              if (!(set & (uint64_t{1} << i))) continue;
              const auto& [path, directory] = targets[i];
              if (directory) {
                vfs.FailOnCall(VfsOp::kSyncDirectory, 1, cut, true, path);
              } else {
                vfs.FailOnCall(VfsOp::kSyncData, 1, cut, true, path);
                vfs.FailOnCall(VfsOp::kSync, 1, cut, true, path);
              }
            }
          },
          mode, set);
      if (testing::Test::HasFatalFailure()) return;
    }
    for (int64_t calls = 0; calls <= total; ++calls) {
      crash_and_check(
          absl::StrCat("power lost after ", calls, " of ", total, " calls"),
          [calls](FaultVfs& vfs) { vfs.CutPowerAfter(calls); }, mode, calls);
      if (testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(TypedStoreCreateCrashTest, OverlappedSyncsLeaveAStoreOrARecreatableOne) {
  EveryOverlappedCut(NothingThere);
}

TEST(TypedStoreCreateCrashTest, OverlappedSyncsInATakeoverLeaveOneToo) {
  EveryOverlappedCut(AnUnfinishedCreation);
}

}  // namespace
}  // namespace loaderx
