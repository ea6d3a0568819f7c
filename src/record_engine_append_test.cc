// The fixed-width raw append (`AppendFixed` on a raw store) against the
// record-by-record one (`AppendVariable`): the same batches into two stores
// must leave byte-identical chunk files, record tables, headers and
// checksum entries, across chunk rollovers, records wider than a chunk,
// flush sizes that split a batch, and with the pool's overlap on or off.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "loaderx/thread_pool.h"
#include "loaderx/vfs_registry.h"
#include "src/integrity_format.h"
#include "src/record_engine.h"
#include "src/store_format.h"
#include "tests/record_testing.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

struct Case {
  uint64_t width;
  uint64_t chunk_capacity;
  uint64_t flush_bytes;
  std::vector<uint64_t> batches;  // Records per append.
  int threads;
};

std::string Contents(Vfs& vfs, const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFileToString(vfs, path);
  return bytes.ok() ? *bytes
                    : absl::StrCat("<", bytes.status().ToString(), ">");
}

class FixedAppendTest : public ::testing::TestWithParam<Case> {};

TEST_P(FixedAppendTest, WritesWhatRecordByRecordAppendsWrite) {
  const Case& c = GetParam();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Vfs> vfs, CreateVfs("memory"));
  RecordEngineOptions options;
  options.chunk_capacity = c.chunk_capacity;
  options.flush_bytes = c.flush_bytes;
  options.contiguous_write_bytes = c.flush_bytes;
  options.thread_pool = std::make_shared<ThreadPool>(c.threads - 1);
  ASSERT_OK_AND_ASSIGN(auto fixed,
                       RecordEngine::Create(*vfs, "/fixed", options));
  ASSERT_OK_AND_ASSIGN(auto each, RecordEngine::Create(*vfs, "/each", options));
  uint64_t next = 0;
  for (uint64_t count : c.batches) {
    std::string data;
    std::vector<std::string> records;
    for (uint64_t i = 0; i < count; ++i) {
      records.push_back(RecordFor(next + i, c.width));
      data += records.back();
    }
    ASSERT_OK_AND_ASSIGN(uint64_t first_fixed,
                         fixed->AppendFixed(data, count, c.width));
    std::vector<absl::string_view> views(records.begin(), records.end());
    ASSERT_OK_AND_ASSIGN(uint64_t first_each, each->AppendVariable(views));
    EXPECT_EQ(first_fixed, next);
    EXPECT_EQ(first_each, next);
    next += count;
  }
  ASSERT_EQ(fixed->length(), next);
  // Every record reads back, verified against its checksum.
  std::vector<uint64_t> all(next);
  for (uint64_t i = 0; i < next; ++i) all[i] = i;
  std::string out(next * c.width, '\0');
  ASSERT_OK(fixed->GatherFixed(all, c.width, absl::MakeSpan(out)));
  for (uint64_t i = 0; i < next; ++i) {
    ASSERT_EQ(out.substr(i * c.width, c.width), RecordFor(i, c.width)) << i;
  }
  ASSERT_OK(fixed->Sync());
  ASSERT_OK(each->Sync());
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> names, vfs->List("/each"));
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> fixed_names,
                       vfs->List("/fixed"));
  EXPECT_EQ(fixed_names, names);
  for (const std::string& name : names) {
    const std::string a = Contents(*vfs, "/fixed/" + name);
    const std::string b = Contents(*vfs, "/each/" + name);
    if (name == integrity_format::kIntegrityFile) {
      // The state slots and seal carry modification stamps; the entries
      // must match.
      EXPECT_EQ(a.substr(integrity_format::kEntriesOffset),
                b.substr(integrity_format::kEntriesOffset));
    } else {
      EXPECT_EQ(a, b) << name;
    }
  }
  // And after reopening.
  fixed.reset();
  ASSERT_OK_AND_ASSIGN(fixed, RecordEngine::Open(*vfs, "/fixed"));
  EXPECT_EQ(fixed->length(), next);
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, FixedAppendTest,
    ::testing::Values(
        // 4096 small records in one write, overlapped on two threads.
        Case{64, store_format::kChunkCapacity - 1, 256 << 10, {4096, 4096}, 2},
        // The same on the calling thread alone.
        Case{64, store_format::kChunkCapacity - 1, 256 << 10, {4096, 4096}, 1},
        // Rollovers mid-batch with slack at each chunk's end (1000 = 3 * 300
        // + 100), flush sizes that split runs.
        Case{300, 1000, 700, {7, 1, 12, 3}, 2},
        Case{300, 1000, 700, {7, 1, 12, 3}, 1},
        // Records wider than a chunk: one record per chunk.
        Case{5000, 4096, 1 << 20, {3, 2}, 2},
        // An exact fit, and a batch large enough to overlap with rollovers.
        Case{256, 1024, 4096, {5, 2000, 11}, 2}),
    [](const ::testing::TestParamInfo<Case>& info) {
      return absl::StrCat("case", info.index);
    });

}  // namespace
}  // namespace loaderx
