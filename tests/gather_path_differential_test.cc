// The engine reads a store through mappings where the VFS maps and through
// positional reads where it does not; both must give the same answers. This
// applies the same seeded random sequences of appends, gathers (fixed,
// variable, located), deletes, compactions, reopenings (also read-only)
// and damaged files to four stores: the memory VFS mapped and not (the
// fault VFS declining), the POSIX VFS mapped and not. Every gather's status
// code, error code and bytes must agree across the four, and the call
// counts show which path each side took. A failure names the seed and step.

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "loaderx/error_code.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"
#include "src/record_engine.h"
#include "src/store_format.h"
#include "tests/read_path_sides.h"
#include "tests/record_testing.h"
#include "tests/status_testing.h"
#include "tests/temp_dir.h"

namespace loaderx {
namespace {

constexpr uint64_t kChunkCapacity = 4096;  // Several chunks per store.

// One store under test: its side (filesystem and directory) and its open
// engine.
struct Side : ReadPathSide {
  std::unique_ptr<RecordEngine> engine;
  bool read_only = false;
};

std::vector<Side> MakeSides(const std::string& codec, uint64_t seed) {
  std::vector<Side> sides;
  for (ReadPathSide& side :
       MakeReadPathSides("", absl::StrCat("_", codec, seed))) {
    Side store_side;
    static_cast<ReadPathSide&>(store_side) = std::move(side);
    sides.push_back(std::move(store_side));
  }
  return sides;
}

RecordEngineOptions Options(const std::string& codec, bool read_only) {
  RecordEngineOptions options;
  options.codec = codec;
  options.chunk_capacity = kChunkCapacity;
  options.read_only = read_only;
  return options;
}

std::string Outcome(const absl::Status& status, const std::string& bytes) {
  if (status.ok()) return absl::StrCat("OK ", bytes);
  return absl::StrCat(absl::StatusCodeToString(status.code()), " error code ",
                      static_cast<int>(ErrorCodeOf(status)));
}

void Reopen(Side& side, const std::string& codec, bool read_only) {
  side.engine.reset();
  side.read_only = read_only;
  auto opened =
      RecordEngine::Open(side.vfs(), side.dir, Options(codec, read_only));
  if (opened.ok()) side.engine = std::move(*opened);
}

// Flips one byte of chunk `chunk` at `position` (mod its size); false if
// the chunk does not exist or is empty.
bool FlipChunkByte(Side& side, uint64_t chunk, uint64_t position) {
  return FlipFileByte(side, store_format::ChunkFileName(chunk), position, 0x5A);
}

// One random step on `side`, whose records are mostly `width` bytes;
// `choices` replayed on another side makes the same choices. Returns what
// the step produced.
std::string ApplyStep(Side& side, const std::string& codec, uint64_t width,
                      std::mt19937_64 choices) {
  auto pick = [&](uint64_t n) { return choices() % n; };
  if (side.engine == nullptr) {
    Reopen(side, codec, false);
    return side.engine == nullptr ? "no store" : "reopened";
  }
  RecordEngine& engine = *side.engine;
  const uint64_t length = engine.length();
  // Indices mostly in range, sometimes one past the end.
  auto indices = [&](uint64_t n) {
    std::vector<uint64_t> out(n);
    for (uint64_t& index : out) {
      index = pick(20) == 0 || length == 0 ? length + pick(3) : pick(length);
    }
    return out;
  };
  switch (pick(12)) {
    case 0:
    case 1: {  // Append records of the store's usual width (or others).
      const uint64_t count = 1 + pick(40);
      const uint64_t appended = pick(8) == 0 ? 1 + pick(900) : width;
      absl::StatusOr<uint64_t> first = engine.AppendFixed(
          RecordsFor(length, count, appended), count, appended);
      return Outcome(first.status(), first.ok() ? absl::StrCat(*first) : "");
    }
    case 2:
    case 3:
    case 4: {  // A fixed-width gather.
      const std::vector<uint64_t> batch = indices(1 + pick(64));
      std::string out(batch.size() * width, '\0');
      return Outcome(engine.GatherFixed(batch, width, absl::MakeSpan(out)),
                     out);
    }
    case 5:
    case 6: {  // A variable gather, sized by `RecordSizes`.
      const std::vector<uint64_t> batch = indices(1 + pick(32));
      absl::StatusOr<std::vector<uint64_t>> sizes = engine.RecordSizes(batch);
      if (!sizes.ok()) return Outcome(sizes.status(), "");
      std::vector<std::string> records(batch.size());
      std::vector<absl::Span<char>> spans;
      for (size_t i = 0; i < batch.size(); ++i) {
        records[i].resize((*sizes)[i]);
        spans.push_back(absl::MakeSpan(records[i]));
      }
      return Outcome(engine.GatherVariable(batch, spans),
                     absl::StrJoin(records, "|"));
    }
    case 7: {  // Located first (sizes from the entries), then gathered.
      const std::vector<uint64_t> batch = indices(1 + pick(32));
      auto locs = engine.Locate(batch);
      if (!locs.ok()) return Outcome(locs.status(), "");
      std::vector<std::string> records(batch.size());
      std::vector<absl::Span<char>> spans;
      for (size_t i = 0; i < batch.size(); ++i) {
        records[i].resize((*locs)[i].logic_length);
        spans.push_back(absl::MakeSpan(records[i]));
      }
      return Outcome(engine.GatherVariable(batch, spans),
                     absl::StrJoin(records, "|"));
    }
    case 8:  // Delete a few (the last records move into their places).
      return Outcome(engine.Delete(indices(1 + pick(4))), "");
    case 9:
      return Outcome(engine.Compact(), "");
    case 10:  // Reopen, read-only one time in three.
      Reopen(side, codec, pick(3) == 0);
      return side.engine == nullptr ? "open failed" : "reopened";
    default: {  // Damage a byte of a chunk, reopen, read, then repair.
      const uint64_t chunk = pick(4);
      const uint64_t position = choices();
      side.engine.reset();
      if (!FlipChunkByte(side, chunk, position)) {
        Reopen(side, codec, false);
        return "no such chunk";
      }
      Reopen(side, codec, side.read_only);
      std::string outcome = side.engine == nullptr ? "open failed" : "opened";
      if (side.engine != nullptr && side.engine->length() > 0) {
        std::vector<uint64_t> all(side.engine->length());
        for (uint64_t i = 0; i < all.size(); ++i) all[i] = i;
        auto sizes = side.engine->RecordSizes(all);
        if (sizes.ok()) {
          std::vector<std::string> records(all.size());
          std::vector<absl::Span<char>> spans;
          for (size_t i = 0; i < all.size(); ++i) {
            records[i].resize((*sizes)[i]);
            spans.push_back(absl::MakeSpan(records[i]));
          }
          // Record by record: which ones are damaged must agree too.
          for (size_t i = 0; i < all.size(); ++i) {
            absl::Status one =
                side.engine->GatherVariable(absl::MakeConstSpan(&all[i], 1),
                                            absl::MakeConstSpan(&spans[i], 1));
            absl::StrAppend(&outcome, " ", Outcome(one, records[i]));
          }
        }
        // And all at once, at the usual width: the first failing record
        // must agree.
        std::string out(all.size() * width, '\0');
        absl::StrAppend(
            &outcome, " all: ",
            Outcome(side.engine->GatherFixed(all, width, absl::MakeSpan(out)),
                    out));
      }
      side.engine.reset();
      FlipChunkByte(side, chunk, position);  // Repaired.
      Reopen(side, codec, false);
      return outcome;
    }
  }
}

class GatherPathDifferentialTest
    : public ::testing::TestWithParam<std::string> {};

TEST_P(GatherPathDifferentialTest, EveryPathGivesTheSameAnswers) {
  const std::string codec = GetParam();
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    // Records mostly of 100 bytes, or of 64 (the block-checked width).
    const uint64_t width = seed <= 2 ? 100 : 64;
    std::vector<Side> sides = MakeSides(codec, seed);
    for (Side& side : sides) {
      ASSERT_OK_AND_ASSIGN(
          side.engine,
          RecordEngine::Create(side.vfs(), side.dir, Options(codec, false)));
    }
    std::mt19937_64 steps(seed);
    for (int step = 0; step < 80; ++step) {
      const std::mt19937_64 choices(steps());
      const std::string expected = ApplyStep(sides[0], codec, width, choices);
      for (size_t s = 1; s < sides.size(); ++s) {
        ASSERT_EQ(ApplyStep(sides[s], codec, width, choices), expected)
            << "seed " << seed << " step " << step << ": " << sides[s].name
            << " differs from " << sides[0].name;
      }
    }
    // Each side took the path it was meant to.
    EXPECT_GT(sides[0].fault->CallCount(VfsOp::kMapReadOnly), 0);
    EXPECT_EQ(sides[1].fault->CallCount(VfsOp::kMapReadOnly), 0);
    EXPECT_EQ(sides[3].fault->CallCount(VfsOp::kMapReadOnly), 0);
    EXPECT_GT(sides[0].fault->CallCount(VfsOp::kReadAt), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Codecs, GatherPathDifferentialTest,
                         ::testing::Values("raw", "zstd"));

// Readers gathering while the writer appends see every committed record
// whole, through mappings (and a resident index) that grow with the store.
TEST(GatherPathTest, MappingsFollowAStoreThatGrowsWhileRead) {
  for (const std::string vfs_name : {"memory", "posix"}) {
    std::unique_ptr<Vfs> vfs = CreateVfs(vfs_name).value();
    const std::string dir =
        vfs_name == "posix" ? TestTempDir() + "/growing" : "/growing";
    ASSERT_OK_AND_ASSIGN(
        auto engine, RecordEngine::Create(*vfs, dir, Options("raw", false)));
    constexpr uint64_t kWidth = 64;
    ASSERT_OK(engine->AppendFixed(RecordsFor(0, 8, kWidth), 8, kWidth));
    std::thread writer([&] {
      for (uint64_t batch = 0; batch < 150; ++batch) {
        const uint64_t first = 8 + batch * 7;
        ASSERT_OK(engine->AppendFixed(RecordsFor(first, 7, kWidth), 7, kWidth));
      }
    });
    // Two readers: they race to extend the mappings and the resident index.
    const auto read = [&](uint64_t seed) {
      std::mt19937_64 random(seed);
      for (int round = 0; round < 300; ++round) {
        const uint64_t length = engine->length();
        std::vector<uint64_t> batch(16);
        for (uint64_t& index : batch) index = random() % length;
        std::string out(batch.size() * kWidth, '\0');
        ASSERT_OK(engine->GatherFixed(batch, kWidth, absl::MakeSpan(out)));
        for (size_t i = 0; i < batch.size(); ++i) {
          ASSERT_EQ(out.substr(i * kWidth, kWidth), RecordFor(batch[i], kWidth))
              << vfs_name << " round " << round;
        }
      }
    };
    std::thread second_reader(read, 8);
    read(7);
    second_reader.join();
    writer.join();
    // Past the first chunk: the later chunks were mapped as they came.
    EXPECT_GT(engine->length() * kWidth, kChunkCapacity);
  }
}

// A chunk cut short under an open engine, before anything mapped it: the
// mapping is made of what the file has, and the records past its end are
// DataLoss on both paths, never a fault.
TEST(GatherPathTest, AChunkTruncatedBeforeMappingIsDataLoss) {
  for (const bool mapping : {true, false}) {
    FaultVfs vfs(CreateVfs("posix").value());
    vfs.set_mapping(mapping);
    const std::string dir = TestTempDir() + "/truncated" + (mapping ? "m" : "");
    {
      ASSERT_OK_AND_ASSIGN(
          auto writer, RecordEngine::Create(vfs, dir, Options("raw", false)));
      ASSERT_OK(writer->AppendFixed(RecordsFor(0, 40, 50), 40, 50));
    }
    ASSERT_OK_AND_ASSIGN(auto engine,
                         RecordEngine::Open(vfs, dir, Options("raw", false)));
    ASSERT_OK_AND_ASSIGN(auto chunk,
                         vfs.Open(dir + "/0.chunk", OpenMode::kReadWrite));
    ASSERT_OK(chunk->Truncate(1000));  // Records 0..19 remain.
    std::string out(50, '\0');
    const uint64_t first = 3, past = 30;
    EXPECT_OK(engine->GatherFixed(absl::MakeConstSpan(&first, 1), 50,
                                  absl::MakeSpan(out)));
    EXPECT_EQ(out, RecordFor(3, 50));
    EXPECT_STATUS_CODE(engine->GatherFixed(absl::MakeConstSpan(&past, 1), 50,
                                           absl::MakeSpan(out)),
                       absl::StatusCode::kDataLoss);
  }
}

}  // namespace
}  // namespace loaderx
