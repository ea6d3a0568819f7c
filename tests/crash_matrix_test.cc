// The crash matrix: a simulated power loss at every write and every sync of
// create, append, delete and compact (each mutating call the operation
// makes, enumerated by count, in both the drop and the garble model of the
// fault VFS), then the store is reopened, read-only first and then for
// writing, and every record is checked against its generator. Zero lost:
// what was durable before the operation is all there. Zero silently wrong:
// every record reads back exactly, a deleted record is either gone or still
// there, never duplicated, and the store stays usable afterwards.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
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
    return {
        {"create",
         [](FaultVfs&, Model&) -> absl::Status { return absl::OkStatus(); },
         [codec](FaultVfs& vfs) -> absl::Status {
           return RecordEngine::Create(vfs, kStore, Options(codec)).status();
         },
         [](const Model&) { return std::vector<Model>{}; }},
        {"append", base,
         [open](FaultVfs& vfs) -> absl::Status {
           LOADERX_ASSIGN_OR_RETURN(auto engine, open(vfs));
           Model ignored;
           LOADERX_RETURN_IF_ERROR(Append(*engine, ignored, 100, 12));
           return engine->Sync();
         },
         [](const Model& before) {
           Model after = before;
           for (uint64_t id = 100; id < 112; ++id) after.push_back(id);
           return std::vector<Model>{before, after};
         }},
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
    SCOPED_TRACE(absl::StrCat(
        scenario.name, ", power lost after ", calls, " calls, ",
        mode == FaultVfs::CrashMode::kDropUnsynced ? "drop" : "garble"));
    auto memory = CreateVfs("memory");
    ASSERT_OK(memory.status());
    FaultVfs vfs(memory->get());
    ASSERT_OK(vfs.CreateDirectory("/d"));
    ASSERT_OK(vfs.SyncDirectory("/"));
    Model before;
    ASSERT_OK(scenario.setup(vfs, before));
    vfs.CutPowerAfter(calls);
    (void)scenario.operation(vfs);  // Fails wherever the power went.
    ASSERT_OK(vfs.SimulateCrash(mode, /*seed=*/calls));
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
                     testing::Values("create", "append", "delete", "compact")),
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

}  // namespace
}  // namespace loaderx
