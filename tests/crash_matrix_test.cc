// The crash matrix: a simulated power loss at every write and every sync of
// create, append, delete and compact (each mutating call the operation
// makes, enumerated by count, in both the drop and the garble model of the
// fault VFS), then the store is reopened, read-only first and then for
// writing, and every record is checked against its generator. Zero lost:
// what was durable before the operation is all there. Zero silently wrong:
// every record reads back exactly, a deleted record is either gone or still
// there, never duplicated, and the store stays usable afterwards. The fault
// VFS runs the engine's order-free syncs one after another, so each count
// is the same cut every run; a second test overlaps them as a real
// filesystem does and fails every set of them instead.

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/vfs_registry.h"
#include "src/record_engine.h"
#include "tests/foreign_writer.h"
#include "tests/record_testing.h"
#include "tests/status_testing.h"
#include "vfs/fault/fault_vfs.h"

namespace loaderx {
namespace {

constexpr char kStore[] = "/d/store";
using Model = std::vector<uint64_t>;  // Record ids by index.

// Record `id`: its size and bytes depend on it alone.
std::string Record(uint64_t id) { return RecordFor(id, 40 + (id * 37) % 160); }

RecordEngineOptions Options(const std::string& codec) {
  RecordEngineOptions options;
  options.codec = codec;
  if (codec == "zstd_dict") options.codec_options.dictionary = Record(999);
  options.chunk_capacity = 900;  // Several chunks.
  options.compaction_batch_bytes = 500;
  options.compaction_batch_records = 3;  // Several batches, and staging.
  return options;
}

absl::Status Append(RecordEngine& engine, Model& model, uint64_t first,
                    uint64_t count) {
  std::vector<std::string> records;
  for (uint64_t id = first; id < first + count; ++id) {
    records.push_back(Record(id));
  }
  std::vector<absl::string_view> views(records.begin(), records.end());
  LOADERX_RETURN_IF_ERROR(engine.AppendVariable(views).status());
  for (uint64_t id = first; id < first + count; ++id) model.push_back(id);
  return absl::OkStatus();
}

void DeleteFromModel(Model& model, std::vector<uint64_t> indices) {
  std::sort(indices.rbegin(), indices.rend());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  for (uint64_t index : indices) {
    model[index] = model.back();
    model.pop_back();
  }
}

// The ids `engine` holds, or an error if a record does not read back as
// some generated record.
absl::StatusOr<Model> ReadAll(const RecordEngine& engine) {
  Model ids;
  for (uint64_t i = 0; i < engine.length(); ++i) {
    LOADERX_ASSIGN_OR_RETURN(auto sizes, engine.RecordSizes({i}));
    std::string bytes(sizes[0], '\0');
    const absl::Span<char> slot = absl::MakeSpan(bytes);
    LOADERX_RETURN_IF_ERROR(engine.GatherVariable({i}, {slot}));
    // "record-<id>-..." names the generator input.
    uint64_t id = 0;
    const std::vector<absl::string_view> parts = absl::StrSplit(bytes, '-');
    if (parts.size() < 2 || parts[0] != "record" ||
        !absl::SimpleAtoi(parts[1], &id) || bytes != Record(id)) {
      return absl::DataLossError(
          absl::StrCat("record ", i, " is not any generated record"));
    }
    ids.push_back(id);
  }
  return ids;
}

// A file or directory an operation syncs.
struct SyncTarget {
  std::string path;
  bool directory;
};

// The sets of sync targets (as bit masks over `n` of them) whose syncs the
// overlapped-sync test fails: every non-empty one, or for many targets
// each one, each pair, each all-but-one and all.
std::vector<uint64_t> FailedSets(size_t n) {
  std::vector<uint64_t> sets;
  const uint64_t all = (uint64_t{1} << n) - 1;
  if (n <= 6) {
    for (uint64_t set = 1; set <= all; ++set) sets.push_back(set);
    return sets;
  }
  for (size_t i = 0; i < n; ++i) {
    sets.push_back(uint64_t{1} << i);
    sets.push_back(all & ~(uint64_t{1} << i));
    for (size_t j = i + 1; j < n; ++j) {
      sets.push_back((uint64_t{1} << i) | (uint64_t{1} << j));
    }
  }
  sets.push_back(all);
  return sets;
}

struct Scenario {
  std::string name;
  // Builds the durable state before the operation; fills `model`.
  std::function<absl::Status(FaultVfs&, Model&)> setup;
  // The operation under test.
  std::function<absl::Status(FaultVfs&)> operation;
  // What a crash may leave, given the model before the operation; an empty
  // list means the store may also be absent or an unfinished creation.
  std::function<std::vector<Model>(const Model&)> outcomes;
};

// (codec, operation): one test per pair, so the suite shards.
class CrashMatrixTest
    : public testing::TestWithParam<std::tuple<std::string, std::string>> {
 protected:
  const std::string& Codec() const { return std::get<0>(GetParam()); }

  Scenario Find() {
    for (Scenario& scenario : Scenarios()) {
      if (scenario.name == std::get<1>(GetParam())) return scenario;
    }
    ADD_FAILURE() << "no scenario " << std::get<1>(GetParam());
    return {};
  }

  std::vector<Scenario> Scenarios() {
    const std::string codec = Codec();
    auto base = [codec](FaultVfs& vfs, Model& model) -> absl::Status {
      LOADERX_ASSIGN_OR_RETURN(
          auto engine, RecordEngine::Create(vfs, kStore, Options(codec)));
      for (uint64_t first = 0; first < 24; first += 8) {
        LOADERX_RETURN_IF_ERROR(Append(*engine, model, first, 8));
      }
      return engine->Sync();
    };
    auto with_holes = [base, codec](FaultVfs& vfs,
                                    Model& model) -> absl::Status {
      LOADERX_RETURN_IF_ERROR(base(vfs, model));
      LOADERX_ASSIGN_OR_RETURN(auto engine,
                               RecordEngine::Open(vfs, kStore, Options(codec)));
      // The first record goes too: the hole before the others is smaller
      // than they are, so compaction must stage.
      const std::vector<uint64_t> doomed = {0, 5, 6, 17};
      LOADERX_RETURN_IF_ERROR(engine->Delete(doomed));
      DeleteFromModel(model, doomed);
      return absl::OkStatus();
    };
    auto open = [codec](FaultVfs& vfs) {
      return RecordEngine::Open(vfs, kStore, Options(codec));
    };
    // Appends records 100 .. 100 + count - 1 to the base store and syncs.
    auto appending = [base, open](const char* name,
                                  uint64_t count) -> Scenario {
      return {name, base,
              [open, count](FaultVfs& vfs) -> absl::Status {
                LOADERX_ASSIGN_OR_RETURN(auto engine, open(vfs));
                Model ignored;
                LOADERX_RETURN_IF_ERROR(Append(*engine, ignored, 100, count));
                return engine->Sync();
              },
              [count](const Model& before) {
                Model after = before;
                for (uint64_t id = 100; id < 100 + count; ++id) {
                  after.push_back(id);
                }
                return std::vector<Model>{before, after};
              }};
    };
    return {
        {"create",
         [](FaultVfs&, Model&) -> absl::Status { return absl::OkStatus(); },
         [codec](FaultVfs& vfs) -> absl::Status {
           return RecordEngine::Create(vfs, kStore, Options(codec)).status();
         },
         [](const Model&) { return std::vector<Model>{}; }},
        appending("append", 12),
        // Records that fit the tail chunk: no file is created, so the
        // directory sync cannot hide how the other syncs were ordered.
        appending("append_in_place", 4),
        {"delete", base,
         [open](FaultVfs& vfs) -> absl::Status {
           LOADERX_ASSIGN_OR_RETURN(auto engine, open(vfs));
           return engine->Delete({2, 9, 10, 23, 9});
         },
         [](const Model& before) {
           Model after = before;
           DeleteFromModel(after, {2, 9, 10, 23});
           return std::vector<Model>{before, after};
         }},
        {"compact", with_holes,
         [open](FaultVfs& vfs) -> absl::Status {
           LOADERX_ASSIGN_OR_RETURN(auto engine, open(vfs));
           return engine->Compact();
         },
         [](const Model& before) { return std::vector<Model>{before}; }},
    };
  }

  // One point of the matrix: power lost after `calls` mutating calls.
  void RunPoint(const Scenario& scenario, int64_t calls,
                FaultVfs::CrashMode mode) {
    RunPoint(
        scenario, absl::StrCat("power lost after ", calls, " calls"),
        [calls](FaultVfs& vfs) { vfs.CutPowerAfter(calls); }, calls, mode);
  }

  // The same for any fault: `arm` sets it up just before the operation.
  void RunPoint(const Scenario& scenario, const std::string& fault,
                const std::function<void(FaultVfs&)>& arm, uint64_t seed,
                FaultVfs::CrashMode mode) {
    SCOPED_TRACE(
        absl::StrCat(scenario.name, ", ", fault, ", ",
                     mode == FaultVfs::CrashMode::kDropUnsynced     ? "drop"
                     : mode == FaultVfs::CrashMode::kGarbleUnsynced ? "garble"
                                                                    : "kill"));
    auto memory = CreateVfs("memory");
    ASSERT_OK(memory.status());
    FaultVfs vfs(memory->get());
    ASSERT_OK(vfs.CreateDirectory("/d"));
    ASSERT_OK(vfs.SyncDirectory("/"));
    Model before;
    ASSERT_OK(scenario.setup(vfs, before));
    arm(vfs);
    (void)scenario.operation(vfs);  // Fails wherever the power went.
    ASSERT_OK(vfs.SimulateCrash(mode, seed));
    vfs.ClearFaults();  // The machine comes back up healthy.
    const std::vector<Model> outcomes = scenario.outcomes(before);

    RecordEngineOptions read_only = Options(Codec());
    read_only.read_only = true;
    absl::StatusOr<std::unique_ptr<RecordEngine>> reader =
        RecordEngine::Open(vfs, kStore, read_only);
    if (outcomes.empty() && !reader.ok()) {
      // An interrupted creation: no store, or one that says so.
      EXPECT_TRUE(absl::IsNotFound(reader.status()) ||
                  absl::IsDataLoss(reader.status()))
          << reader.status();
      if (mode == FaultVfs::CrashMode::kKillProcess) {
        // A kill garbles nothing: what it left is taken over.
        EXPECT_OK(RecordEngine::Create(vfs, kStore, Options(Codec())).status());
      }
      return;
    }
    ASSERT_OK(reader.status());
    ASSERT_OK_AND_ASSIGN(const Model seen, ReadAll(**reader));
    if (outcomes.empty()) {
      EXPECT_TRUE(seen.empty());
    } else {
      EXPECT_TRUE(std::find(outcomes.begin(), outcomes.end(), seen) !=
                  outcomes.end())
          << "read-only open found ids " << absl::StrJoin(seen, ",");
    }
    reader->reset();

    // Writable: finishes what the crash interrupted; the same records.
    ASSERT_OK_AND_ASSIGN(auto writer,
                         RecordEngine::Open(vfs, kStore, Options(Codec())));
    ASSERT_OK_AND_ASSIGN(const Model recovered, ReadAll(*writer));
    EXPECT_EQ(recovered, seen);
    ASSERT_OK_AND_ASSIGN(const VerifyReport report, writer->Verify());
    EXPECT_TRUE(report.damaged.empty()) << absl::StrJoin(report.problems, "; ");
    // And it carries on: what it appends now survives the next open (the
    // recovery is not repeated over it).
    Model model = recovered;
    ASSERT_OK(Append(*writer, model, 500, 2));
    writer.reset();
    ASSERT_OK_AND_ASSIGN(writer,
                         RecordEngine::Open(vfs, kStore, Options(Codec())));
    ASSERT_OK_AND_ASSIGN(const Model appended, ReadAll(*writer));
    EXPECT_EQ(appended, model);
    if (!model.empty()) ASSERT_OK(writer->Delete({0}));
    if (!model.empty()) DeleteFromModel(model, {0});
    ASSERT_OK(writer->Compact());
    writer.reset();
    ASSERT_OK_AND_ASSIGN(auto again,
                         RecordEngine::Open(vfs, kStore, Options(Codec())));
    ASSERT_OK_AND_ASSIGN(const Model final_ids, ReadAll(*again));
    EXPECT_EQ(final_ids, model);
    // The crash cost no checksum its authority: a flipped byte is damage.
    if (final_ids.empty()) return;
    again.reset();
    ForeignWriter files(vfs, kStore);
    ASSERT_OK_AND_ASSIGN(auto loc, files.Loc(0));
    const std::string chunk = store_format::ChunkFileName(loc.chunk_id);
    ASSERT_OK_AND_ASSIGN(std::string bytes, files.Read(chunk));
    ASSERT_OK(
        files.Write(chunk, loc.offset, std::string(1, bytes[loc.offset] ^ 1)));
    ASSERT_OK_AND_ASSIGN(again,
                         RecordEngine::Open(vfs, kStore, Options(Codec())));
    ASSERT_OK_AND_ASSIGN(const VerifyReport damaged, again->Verify());
    EXPECT_EQ(damaged.damaged, std::vector<uint64_t>{0});
  }

  // The files and directories `scenario`'s operation syncs, uninterrupted
  // (through a second fault VFS over the same files, so that only its own
  // calls are seen).
  std::vector<SyncTarget> SyncTargetsOf(const Scenario& scenario) {
    auto memory = CreateVfs("memory");
    EXPECT_OK(memory.status());
    FaultVfs setup(memory->get());
    EXPECT_OK(setup.CreateDirectory("/d"));
    Model before;
    EXPECT_OK(scenario.setup(setup, before));
    FaultVfs vfs(memory->get());
    EXPECT_OK(scenario.operation(vfs));
    std::vector<SyncTarget> targets;
    std::set<std::string> files = vfs.PathsCalled(VfsOp::kSyncData);
    files.merge(vfs.PathsCalled(VfsOp::kSync));
    for (const std::string& path : files) targets.push_back({path, false});
    for (const std::string& path : vfs.PathsCalled(VfsOp::kSyncDirectory)) {
      targets.push_back({path, true});
    }
    return targets;
  }

  // The mutating calls `scenario`'s operation makes, uninterrupted.
  int64_t CallsOf(const Scenario& scenario) {
    auto memory = CreateVfs("memory");
    EXPECT_OK(memory.status());
    FaultVfs vfs(memory->get());
    EXPECT_OK(vfs.CreateDirectory("/d"));
    Model before;
    EXPECT_OK(scenario.setup(vfs, before));
    const int64_t start = vfs.MutatingCalls();
    EXPECT_OK(scenario.operation(vfs));
    return vfs.MutatingCalls() - start;
  }
};

INSTANTIATE_TEST_SUITE_P(
    CodecsAndOperations, CrashMatrixTest,
    testing::Combine(testing::Values("raw", "zstd", "zstd_dict"),
                     testing::Values("create", "append", "append_in_place",
                                     "delete", "compact")),
    [](const auto& info) {
      return std::get<0>(info.param) + "_" + std::get<1>(info.param);
    });

TEST_P(CrashMatrixTest, PowerLossAtEveryWriteAndSyncLosesNothing) {
  const Scenario scenario = Find();
  const int64_t calls = CallsOf(scenario);
  ASSERT_GT(calls, 0) << scenario.name;
  // Power lost after 0, 1, ..., all of its calls.
  for (int64_t k = 0; k <= calls; ++k) {
    for (auto mode : {FaultVfs::CrashMode::kDropUnsynced,
                      FaultVfs::CrashMode::kGarbleUnsynced}) {
      RunPoint(scenario, k, mode);
      if (HasFatalFailure()) return;
    }
  }
  std::printf("crash matrix (%s, %s): %ld points x 2 modes = %ld cases\n",
              Codec().c_str(), scenario.name.c_str(),
              static_cast<long>(calls + 1), static_cast<long>(2 * (calls + 1)));
}

// The process killed (SIGKILL) before each mutating call instead: every
// call that completed stays, synced or not, including a file created and
// never written (a state the power-cut models above never leave).
TEST_P(CrashMatrixTest, KillBeforeEveryWriteAndSyncLosesNothing) {
  const Scenario scenario = Find();
  const int64_t calls = CallsOf(scenario);
  ASSERT_GT(calls, 0) << scenario.name;
  for (int64_t k = 0; k < calls; ++k) {
    RunPoint(scenario, k, FaultVfs::CrashMode::kKillProcess);
    if (HasFatalFailure()) return;
  }
  std::printf("crash matrix (%s, %s): %ld kill points\n", Codec().c_str(),
              scenario.name.c_str(), static_cast<long>(calls));
}

// The same operations with their order-free syncs overlapped, as on a
// real filesystem. Those syncs then reach the disk in any order, and a
// power cut among them leaves any subset durable, not only a prefix of one
// order: so every set of the operation's sync targets (`FailedSets`) has
// its syncs fail (their bytes never reach the disk, the others' of the same
// group do, nothing after the group runs) before the crash. Then power cuts
// at every count again, with the overlap on (which calls a cut inside a
// group lets through depends on the threads: each run is some valid cut).
// Every surviving state must be the store before or after the operation.
TEST_P(CrashMatrixTest, OverlappedSyncsLeaveTheStoreBeforeOrAfter) {
  const Scenario scenario = Find();
  const std::vector<SyncTarget> targets = SyncTargetsOf(scenario);
  ASSERT_FALSE(targets.empty()) << scenario.name;
  const std::vector<uint64_t> sets = FailedSets(targets.size());
  for (uint64_t set : sets) {
    std::vector<std::string> failed;
    for (size_t i = 0; i < targets.size(); ++i) {
      if (set & (uint64_t{1} << i)) failed.push_back(targets[i].path);
    }
    auto arm = [&](FaultVfs& vfs) {
      vfs.set_concurrent_syncs(true);
      for (size_t i = 0; i < targets.size(); ++i) {
        if (!(set & (uint64_t{1} << i))) continue;
        const absl::Status cut = absl::UnavailableError("power cut");
        if (targets[i].directory) {
          vfs.FailOnCall(VfsOp::kSyncDirectory, 1, cut, true, targets[i].path);
        } else {
          vfs.FailOnCall(VfsOp::kSyncData, 1, cut, true, targets[i].path);
          vfs.FailOnCall(VfsOp::kSync, 1, cut, true, targets[i].path);
        }
      }
    };
    for (auto mode : {FaultVfs::CrashMode::kDropUnsynced,
                      FaultVfs::CrashMode::kGarbleUnsynced}) {
      RunPoint(scenario,
               absl::StrCat("syncs of ", absl::StrJoin(failed, ", "),
                            " never reached the disk"),
               arm, set, mode);
      if (HasFatalFailure()) return;
    }
  }
  const int64_t calls = CallsOf(scenario);
  for (int64_t k = 0; k <= calls; ++k) {
    for (auto mode : {FaultVfs::CrashMode::kDropUnsynced,
                      FaultVfs::CrashMode::kGarbleUnsynced}) {
      RunPoint(
          scenario, absl::StrCat("overlapped, power lost after ", k, " calls"),
          [k](FaultVfs& vfs) {
            vfs.set_concurrent_syncs(true);
            vfs.CutPowerAfter(k);
          },
          k, mode);
      if (HasFatalFailure()) return;
    }
  }
  std::printf(
      "overlapped syncs (%s, %s): %zu sync targets, %zu failed sets and %ld "
      "cuts x 2 modes\n",
      Codec().c_str(), scenario.name.c_str(), targets.size(), sets.size(),
      static_cast<long>(calls + 1));
}

// A full disk at every point an operation uses space (each write past a
// file's end, extending truncation or allocation, new file: the fault
// VFS's `kUseSpace` calls, enumerated by count), with ENOSPC's and
// EDQUOT's errors: from that call on the disk stays full. The operation
// fails cleanly (ResourceExhausted) or succeeds; while the disk is still
// full the store opens read-only and writable with the records before or
// after the operation, and deletes; once space returns it takes appends
// and holds exactly what the model says.
// The errors of a full device and of a used-up quota (MinGW's <cerrno> has
// no EDQUOT: Windows builds inject ENOSPC alone).
constexpr int kNoSpaceErrors[] = {
    ENOSPC,
#ifdef EDQUOT
    EDQUOT,
#endif
};

TEST_P(CrashMatrixTest, AFullDiskAtEveryWriteLosesNothing) {
  const Scenario scenario = Find();
  // The space-using calls the operation makes, uninterrupted.
  int64_t uses = 0;
  {
    auto memory = CreateVfs("memory");
    ASSERT_OK(memory.status());
    FaultVfs vfs(memory->get());
    ASSERT_OK(vfs.CreateDirectory("/d"));
    Model before;
    ASSERT_OK(scenario.setup(vfs, before));
    const int64_t start = vfs.CallCount(VfsOp::kUseSpace);
    ASSERT_OK(scenario.operation(vfs));
    uses = vfs.CallCount(VfsOp::kUseSpace) - start;
  }
  int64_t cases = 0;
  for (int64_t k = 1; k <= uses; ++k) {
    for (int error_number : kNoSpaceErrors) {
      SCOPED_TRACE(absl::StrCat(scenario.name, ", disk full from space use ", k,
                                " of ", uses, ", errno ", error_number));
      ++cases;
      auto memory = CreateVfs("memory");
      ASSERT_OK(memory.status());
      FaultVfs vfs(memory->get());
      ASSERT_OK(vfs.CreateDirectory("/d"));
      Model before;
      ASSERT_OK(scenario.setup(vfs, before));
      vfs.FailOnCall(VfsOp::kUseSpace, k,
                     absl::ErrnoToStatus(error_number, "disk full"),
                     /*sticky=*/true);
      const absl::Status status = scenario.operation(vfs);
      EXPECT_TRUE(status.ok() || absl::IsResourceExhausted(status)) << status;
      const std::vector<Model> outcomes = scenario.outcomes(before);

      RecordEngineOptions read_only = Options(Codec());
      read_only.read_only = true;
      absl::StatusOr<std::unique_ptr<RecordEngine>> reader =
          RecordEngine::Open(vfs, kStore, read_only);
      if (outcomes.empty() && !reader.ok()) {
        // A creation the full disk stopped: no store, or one that says so.
        EXPECT_TRUE(absl::IsNotFound(reader.status()) ||
                    absl::IsDataLoss(reader.status()))
            << reader.status();
        continue;
      }
      ASSERT_OK(reader.status());
      ASSERT_OK_AND_ASSIGN(const Model seen, ReadAll(**reader));
      if (outcomes.empty()) {
        EXPECT_TRUE(seen.empty());
      } else {
        EXPECT_TRUE(std::find(outcomes.begin(), outcomes.end(), seen) !=
                    outcomes.end())
            << "found ids " << absl::StrJoin(seen, ",");
      }
      reader->reset();
      Model model = seen;
      {
        // Still full: a writable open, its reads and a delete need no space.
        ASSERT_OK_AND_ASSIGN(auto writer,
                             RecordEngine::Open(vfs, kStore, Options(Codec())));
        ASSERT_OK_AND_ASSIGN(const Model recovered, ReadAll(*writer));
        EXPECT_EQ(recovered, seen);
        if (!model.empty()) {
          ASSERT_OK(writer->Delete({0}));
          DeleteFromModel(model, {0});
        }
      }
      vfs.ClearFaults();  // Space returns.
      {
        ASSERT_OK_AND_ASSIGN(auto writer,
                             RecordEngine::Open(vfs, kStore, Options(Codec())));
        ASSERT_OK(Append(*writer, model, 500, 2));
        ASSERT_OK(writer->Compact());
      }
      ASSERT_OK_AND_ASSIGN(auto again,
                           RecordEngine::Open(vfs, kStore, Options(Codec())));
      ASSERT_OK_AND_ASSIGN(const Model final_ids, ReadAll(*again));
      EXPECT_EQ(final_ids, model);
      ASSERT_OK_AND_ASSIGN(const VerifyReport report, again->Verify());
      EXPECT_TRUE(report.damaged.empty())
          << absl::StrJoin(report.problems, "; ");
      if (HasFatalFailure()) return;
    }
  }
  std::printf(
      "full disk (%s, %s): %ld space uses x ENOSPC, EDQUOT = %ld "
      "cases\n",
      Codec().c_str(), scenario.name.c_str(), static_cast<long>(uses),
      static_cast<long>(cases));
}

}  // namespace
}  // namespace loaderx
