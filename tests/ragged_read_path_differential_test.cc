// A ragged store's reads go through mappings where the VFS maps and
// through positional reads where it does not (`RecordEngine::Locate` for
// the table entries, then the engine's gather for payloads and shape
// records); both must give the same answers. This applies the same seeded
// random sequences of appends, reads, shape queries, gathers, deletes,
// compactions, reopenings (read-only, checksums off) and damaged chunk bytes
// (shape records among them) to four stores: the memory VFS mapped and not (the
// fault VFS declining), the POSIX VFS mapped and not. Every call's status,
// error code and message (the directory left out), shapes and bytes must agree,
// and the call counts show which path each side took. A failure names the seed
// and step.

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "loaderx/error_code.h"
#include "loaderx/ragged_store.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"
#include "tests/read_path_sides.h"
#include "tests/status_testing.h"
#include "tests/temp_dir.h"

namespace loaderx {
namespace {

const DType& U2() {
  static const DType* dtype = new DType(DType::Simple("<u2"));
  return *dtype;
}

// One store under test: its side (filesystem and directory) and its open
// store.
struct Side : ReadPathSide {
  std::unique_ptr<RaggedStore> store;
  bool read_only = false;
};

std::vector<Side> MakeSides(const std::string& codec, uint64_t seed) {
  std::vector<Side> sides;
  for (ReadPathSide& side :
       MakeReadPathSides("ragged_", absl::StrCat("_", codec, seed))) {
    Side store_side;
    static_cast<ReadPathSide&>(store_side) = std::move(side);
    sides.push_back(std::move(store_side));
  }
  return sides;
}

StoreOptions Options(const std::string& codec, bool read_only,
                     bool verify = true) {
  StoreOptions options;
  options.codec = codec;
  options.read_only = read_only;
  options.verify_checksums = verify;
  return options;
}

// What a call produced, comparable across sides: the status (its message
// with the side's directory left out) or the call's results.
std::string Outcome(const Side& side, const absl::Status& status,
                    const std::string& results) {
  if (status.ok()) return absl::StrCat("OK ", results);
  return absl::StrCat(
      absl::StatusCodeToString(status.code()), " error code ",
      static_cast<int>(ErrorCodeOf(status)), ": ",
      absl::StrReplaceAll(status.message(), {{side.dir, "<dir>"}}));
}

std::string ShapesText(const std::vector<std::vector<uint64_t>>& shapes) {
  std::vector<std::string> parts;
  for (const std::vector<uint64_t>& shape : shapes) {
    parts.push_back(absl::StrCat("(", absl::StrJoin(shape, ","), ")"));
  }
  return absl::StrJoin(parts, " ");
}

// `RaggedStore::Read` of `batch`: shapes, offsets and bytes.
std::string ReadOutcome(const Side& side, const std::vector<uint64_t>& batch) {
  std::string buffer;
  absl::StatusOr<RaggedBatch> read = side.store->Read(
      batch, [&](uint64_t bytes) -> absl::StatusOr<absl::Span<char>> {
        buffer.assign(bytes, '\0');
        return absl::MakeSpan(buffer);
      });
  if (!read.ok()) return Outcome(side, read.status(), "");
  return Outcome(side, absl::OkStatus(),
                 absl::StrCat(ShapesText(read->shapes.ToVectors()), " @",
                              absl::StrJoin(read->offsets, ","), " ",
                              absl::BytesToHexString(buffer)));
}

// Records of rank 0-3, dimensions 1-5, their bytes drawn from `choices`.
std::vector<std::string> AppendRecords(Side& side, std::mt19937_64& choices,
                                       absl::Status& status) {
  const uint64_t count = 1 + choices() % 12;
  std::vector<std::string> data(count);
  std::vector<RaggedRecord> records(count);
  for (uint64_t k = 0; k < count; ++k) {
    std::vector<uint64_t> shape(choices() % 4);
    uint64_t items = 1;
    for (uint64_t& dim : shape) items *= (dim = 1 + choices() % 5);
    data[k].resize(2 * items);
    for (char& byte : data[k]) byte = static_cast<char>(choices());
    records[k] = RaggedRecord{data[k], shape};
  }
  status = side.store->Append(records).status();
  return data;
}

// Flips one byte of chunk 0 at `position` (mod its size); false if the
// chunk is empty.
bool FlipChunkByte(Side& side, uint64_t position) {
  return FlipFileByte(side, "0.chunk", position, 0x21);
}

void Reopen(Side& side, const std::string& codec, bool read_only,
            bool verify = true) {
  side.store.reset();
  side.read_only = read_only;
  auto opened = RaggedStore::Open(side.vfs(), side.dir,
                                  Options(codec, read_only, verify));
  if (opened.ok()) side.store = std::move(*opened);
}

// One random step on `side`; `choices` replayed on another side makes the
// same choices. Returns what the step produced.
std::string ApplyStep(Side& side, const std::string& codec,
                      std::mt19937_64 choices) {
  auto pick = [&](uint64_t n) { return choices() % n; };
  if (side.store == nullptr) {
    Reopen(side, codec, false);
    return side.store == nullptr ? "no store" : "reopened";
  }
  RaggedStore& store = *side.store;
  const uint64_t size = store.size();
  // Indices mostly in range, sometimes one past the end.
  auto indices = [&](uint64_t n) {
    std::vector<uint64_t> out(n);
    for (uint64_t& index : out) {
      index = pick(20) == 0 || size == 0 ? size + pick(3) : pick(size);
    }
    return out;
  };
  switch (pick(12)) {
    case 0:
    case 1: {
      absl::Status appended;
      AppendRecords(side, choices, appended);
      return Outcome(side, appended, absl::StrCat(store.size()));
    }
    case 2:
    case 3:
    case 4:
      return ReadOutcome(side, indices(1 + pick(40)));
    case 5: {
      absl::StatusOr<std::vector<std::vector<uint64_t>>> shapes =
          store.Shapes(indices(1 + pick(20)));
      return Outcome(side, shapes.status(),
                     shapes.ok() ? ShapesText(*shapes) : "");
    }
    case 6: {  // Shapes, then a gather into per-record slots.
      const std::vector<uint64_t> batch = indices(1 + pick(20));
      absl::StatusOr<std::vector<std::vector<uint64_t>>> shapes =
          store.Shapes(batch);
      if (!shapes.ok()) return Outcome(side, shapes.status(), "");
      std::vector<std::string> records(batch.size());
      std::vector<absl::Span<char>> slots;
      for (size_t k = 0; k < batch.size(); ++k) {
        uint64_t items = 1;
        for (uint64_t dim : (*shapes)[k]) items *= dim;
        records[k].resize(2 * items);
        slots.push_back(absl::MakeSpan(records[k]));
      }
      return Outcome(side, store.Gather(batch, slots),
                     absl::BytesToHexString(absl::StrJoin(records, "|")));
    }
    case 7:
      return Outcome(side, store.Delete(indices(1 + pick(3))), "");
    case 8:
      return Outcome(side, store.Compact(), "");
    case 9:  // Reopen, read-only one time in three.
      Reopen(side, codec, pick(3) == 0);
      return side.store == nullptr ? "open failed" : "reopened";
    default: {  // Damage a byte of chunk 0, reopen, read, then repair.
      const uint64_t position = choices();
      const bool verify = pick(2) == 0;
      side.store.reset();
      if (!FlipChunkByte(side, position)) {
        Reopen(side, codec, false);
        return "empty chunk";
      }
      // Read-only: a writable open would adopt the damage.
      Reopen(side, codec, /*read_only=*/true, verify);
      std::string outcome = side.store == nullptr ? "open failed" : "opened";
      if (side.store != nullptr) {
        // Record by record: which ones are damaged must agree too, and
        // then the whole store in one batch.
        std::vector<uint64_t> all(side.store->size());
        for (uint64_t i = 0; i < all.size(); ++i) {
          all[i] = i;
          absl::StrAppend(&outcome, " | ", ReadOutcome(side, {i}));
        }
        if (!all.empty()) {
          absl::StrAppend(&outcome, " || ", ReadOutcome(side, all));
        }
      }
      side.store.reset();
      FlipChunkByte(side, position);  // Repaired.
      Reopen(side, codec, false);
      return outcome;
    }
  }
}

class RaggedReadPathDifferentialTest
    : public ::testing::TestWithParam<std::string> {};

TEST_P(RaggedReadPathDifferentialTest, EveryPathGivesTheSameAnswers) {
  const std::string codec = GetParam();
  // Damaged shape records were read (through both paths) and reported.
  int shape_damage = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    std::vector<Side> sides = MakeSides(codec, seed);
    for (Side& side : sides) {
      ASSERT_OK_AND_ASSIGN(side.store,
                           RaggedStore::Create(side.vfs(), side.dir, U2(),
                                               Options(codec, false)));
    }
    std::mt19937_64 steps(seed);
    for (int step = 0; step < 80; ++step) {
      const std::mt19937_64 choices(steps());
      const std::string expected = ApplyStep(sides[0], codec, choices);
      if (expected.find("its shape record") != std::string::npos) {
        ++shape_damage;
      }
      for (size_t s = 1; s < sides.size(); ++s) {
        ASSERT_EQ(ApplyStep(sides[s], codec, choices), expected)
            << "seed " << seed << " step " << step << ": " << sides[s].name
            << " differs from " << sides[0].name;
      }
    }
    // Each side took the path it was meant to.
    EXPECT_GT(sides[0].fault->CallCount(VfsOp::kMapReadOnly), 0);
    EXPECT_EQ(sides[1].fault->CallCount(VfsOp::kMapReadOnly), 0);
    EXPECT_GT(sides[1].fault->CallCount(VfsOp::kReadAt), 0);
    EXPECT_EQ(sides[3].fault->CallCount(VfsOp::kMapReadOnly), 0);
  }
  EXPECT_GT(shape_damage, 0);
}

INSTANTIATE_TEST_SUITE_P(Codecs, RaggedReadPathDifferentialTest,
                         ::testing::Values("raw", "zstd"));

// A reader reading ragged batches while the writer appends sees every
// committed record whole, shape and bytes, through mappings that grow with
// the store (and through positional reads where the VFS does not map).
TEST(RaggedReadPathTest, ReadsFollowAStoreThatGrowsWhileRead) {
  for (const std::string vfs_name : {"memory", "posix"}) {
    for (const bool mapping : {true, false}) {
      FaultVfs vfs(CreateVfs(vfs_name).value());
      vfs.set_mapping(mapping);
      const std::string dir =
          absl::StrCat(vfs_name == "posix" ? TestTempDir() : "",
                       "/ragged_growing", mapping ? "_mapped" : "_pread");
      ASSERT_OK_AND_ASSIGN(
          auto store,
          RaggedStore::Create(vfs, dir, U2(), Options("raw", false)));
      // Record i is shaped (1 + i % 7, 3), every item i.
      auto record = [](uint64_t i) {
        std::vector<uint16_t> items(3 * (1 + i % 7), static_cast<uint16_t>(i));
        return std::string(reinterpret_cast<const char*>(items.data()),
                           2 * items.size());
      };
      auto append = [&](uint64_t first, uint64_t count) {
        std::vector<std::string> data;
        std::vector<RaggedRecord> records;
        for (uint64_t i = first; i < first + count; ++i)
          data.push_back(record(i));
        for (uint64_t k = 0; k < count; ++k) {
          records.push_back(RaggedRecord{data[k], {1 + (first + k) % 7, 3}});
        }
        return store->Append(records).status();
      };
      ASSERT_OK(append(0, 8));
      std::thread writer([&] {
        for (uint64_t batch = 0; batch < 120; ++batch) {
          ASSERT_OK(append(8 + batch * 5, 5));
        }
      });
      std::mt19937_64 random(11);
      for (int round = 0; round < 200; ++round) {
        const uint64_t size = store->size();
        std::vector<uint64_t> batch(12);
        for (uint64_t& index : batch) index = random() % size;
        std::string buffer;
        ASSERT_OK_AND_ASSIGN(
            RaggedBatch read,
            store->Read(
                batch, [&](uint64_t bytes) -> absl::StatusOr<absl::Span<char>> {
                  buffer.assign(bytes, '\0');
                  return absl::MakeSpan(buffer);
                }));
        for (size_t k = 0; k < batch.size(); ++k) {
          const std::string want = record(batch[k]);
          ASSERT_EQ(read.shapes[k],
                    (std::vector<uint64_t>{1 + batch[k] % 7, 3}))
              << vfs_name << " round " << round;
          ASSERT_EQ(buffer.substr(read.offsets[k], want.size()), want)
              << vfs_name << " round " << round << " record " << batch[k];
        }
      }
      writer.join();
      EXPECT_EQ(store->size(), 8 + 120 * 5);
      EXPECT_EQ(vfs.CallCount(VfsOp::kMapReadOnly) > 0, mapping) << vfs_name;
    }
  }
}

}  // namespace
}  // namespace loaderx
