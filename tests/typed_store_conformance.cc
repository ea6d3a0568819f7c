#include "tests/typed_store_conformance.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loaderx/dense_store.h"
#include "loaderx/error_code.h"
#include "loaderx/typed_owner_registry.h"
#include "loaderx/vfs_registry.h"
#include "tests/status_testing.h"

namespace loaderx {

std::string OwnerUnderTestName(
    const testing::TestParamInfo<OwnerAndCodec>& info) {
  return absl::StrCat(std::get<0>(info.param).name, "_",
                      std::get<1>(info.param));
}

void TypedStoreConformanceTest::SetUp() {
  ASSERT_OK_AND_ASSIGN(vfs_, CreateVfs("memory"));
  ASSERT_OK_AND_ASSIGN(item_size_, DTypeItemSize(owner().identity.dtype));
}

StoreOptions TypedStoreConformanceTest::Options() const {
  StoreOptions options;
  options.codec = std::get<1>(GetParam());
  return options;
}

std::vector<uint64_t> TypedStoreConformanceTest::ShapeOf(uint64_t i) const {
  return owner().shape_of(i);
}

std::string TypedStoreConformanceTest::BytesOf(uint64_t i) const {
  uint64_t items = 1;
  for (uint64_t dim : ShapeOf(i)) items *= dim;
  std::string bytes(items * item_size_, '\0');
  for (size_t b = 0; b < bytes.size(); ++b) {
    bytes[b] = static_cast<char>((i * 37 + b * 11 + (b >> 5)) & 0xff);
  }
  return bytes;
}

std::unique_ptr<TypedStore> TypedStoreConformanceTest::MakeStore(
    const std::string& path, uint64_t count) {
  auto store = TypedStore::Create(*vfs_, path, owner().kind, owner().identity,
                                  Options());
  EXPECT_TRUE(store.ok()) << store.status();
  if (!store.ok()) return nullptr;
  std::vector<std::string> bytes(count);
  std::vector<ShapedRecord> records(count);
  for (uint64_t i = 0; i < count; ++i) {
    bytes[i] = BytesOf(i);
    records[i] = ShapedRecord{bytes[i], ShapeOf(i), &owner().identity.dtype};
  }
  if (count > 0) {
    auto first = (*store)->Append(records);
    EXPECT_TRUE(first.ok()) << first.status();
    EXPECT_EQ(first.value_or(99), 0u);
  }
  return *std::move(store);
}

void TypedStoreConformanceTest::ExpectRecords(
    const TypedStore& store, const std::vector<uint64_t>& expected) const {
  ASSERT_EQ(store.size(), expected.size());
  // Every record, in reverse, with a duplicate: one `Read`.
  std::vector<uint64_t> indices(expected.size());
  for (size_t k = 0; k < indices.size(); ++k) {
    indices[k] = indices.size() - 1 - k;
  }
  if (!indices.empty()) indices.push_back(indices.front());
  std::string buffer;
  ASSERT_OK_AND_ASSIGN(
      ShapedBatch batch, store.Read(indices, [&](uint64_t bytes) {
        buffer.assign(bytes, '\x5a');
        return absl::StatusOr<absl::Span<char>>(absl::MakeSpan(buffer));
      }));
  ASSERT_EQ(batch.shapes.size(), indices.size());
  ASSERT_EQ(batch.total_bytes, buffer.size());
  for (size_t k = 0; k < indices.size(); ++k) {
    const uint64_t id = expected[indices[k]];
    EXPECT_EQ(batch.shapes[k], ShapeOf(id)) << "record " << indices[k];
    const std::string want = BytesOf(id);
    EXPECT_EQ(buffer.substr(batch.offsets[k], want.size()), want)
        << "record " << indices[k];
  }
  // The same through `Shapes` and `Gather`, into buffers of the caller's.
  ASSERT_OK_AND_ASSIGN(auto shapes, store.Shapes(indices));
  EXPECT_EQ(shapes, batch.shapes.ToVectors());
  std::vector<std::string> owned(indices.size());
  std::vector<absl::Span<char>> destinations(indices.size());
  for (size_t k = 0; k < indices.size(); ++k) {
    owned[k].resize(BytesOf(expected[indices[k]]).size());
    destinations[k] = absl::MakeSpan(owned[k]);
  }
  ASSERT_OK(store.Gather(indices, destinations));
  for (size_t k = 0; k < indices.size(); ++k) {
    EXPECT_EQ(owned[k], BytesOf(expected[indices[k]]))
        << "record " << indices[k];
  }
  // Fixed-width stores gather into one buffer as well.
  if (store.fixed_width()) {
    std::string flat(indices.size() * store.record_bytes(), '\0');
    ASSERT_OK(store.GatherFixed(indices, absl::MakeSpan(flat)));
    EXPECT_EQ(flat, buffer);
  }
}

namespace {

using ::testing::HasSubstr;

// Record ids after a swap-last delete of `targets` from `ids`.
std::vector<uint64_t> SwapLast(std::vector<uint64_t> ids,
                               std::vector<uint64_t> targets) {
  std::sort(targets.begin(), targets.end(), std::greater<>());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  for (uint64_t target : targets) {
    ids[target] = ids.back();
    ids.pop_back();
  }
  return ids;
}

std::vector<uint64_t> Iota(uint64_t count) {
  std::vector<uint64_t> ids(count);
  for (uint64_t i = 0; i < count; ++i) ids[i] = i;
  return ids;
}

TEST_P(TypedStoreConformanceTest, RecordsReadBackExactlyAndPersist) {
  auto store = MakeStore("/s", 7);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->kind(), owner().kind);
  EXPECT_EQ(store->identity(), owner().identity);
  EXPECT_EQ(store->codec(), std::get<1>(GetParam()));
  ExpectRecords(*store, Iota(7));
  store.reset();

  // Any kind opens by its persisted tag; the named kind opens too.
  ASSERT_OK_AND_ASSIGN(store, TypedStore::OpenAny(*vfs_, "/s"));
  EXPECT_EQ(store->kind(), owner().kind);
  EXPECT_EQ(store->identity(), owner().identity);
  ExpectRecords(*store, Iota(7));
  // An array whose first axis counts records appends in one commit.
  const std::vector<uint64_t> shape = ShapeOf(7);
  const std::string one = BytesOf(7);
  std::vector<uint64_t> batch_shape = {3};
  batch_shape.insert(batch_shape.end(), shape.begin(), shape.end());
  const std::string three = one + one + one;
  ASSERT_OK_AND_ASSIGN(uint64_t first,
                       store->AppendBatch(ShapedRecord{three, batch_shape}));
  EXPECT_EQ(first, 7u);
  EXPECT_EQ(store->size(), 10u);
  store.reset();
  ASSERT_OK_AND_ASSIGN(store, TypedStore::Open(*vfs_, "/s", owner().kind));
  ExpectRecords(*store, {0, 1, 2, 3, 4, 5, 6, 7, 7, 7});
}

TEST_P(TypedStoreConformanceTest, DeleteAndCompactKeepEverySurvivor) {
  auto store = MakeStore("/s", 9);
  ASSERT_NE(store, nullptr);
  const std::vector<uint64_t> targets = {0, 0, 4, 8};
  ASSERT_OK(store->Delete(targets));
  const std::vector<uint64_t> survivors = SwapLast(Iota(9), targets);
  ExpectRecords(*store, survivors);
  ASSERT_OK_AND_ASSIGN(StoreStats before, store->Stats());
  EXPECT_EQ(before.records, survivors.size());
  EXPECT_GT(before.reclaimable, 0u);
  ASSERT_OK(store->Compact());
  ASSERT_OK_AND_ASSIGN(StoreStats after, store->Stats());
  EXPECT_EQ(after.records, survivors.size());
  EXPECT_EQ(after.live_bytes, before.live_bytes);
  EXPECT_EQ(after.reclaimable, 0u);
  ExpectRecords(*store, survivors);
  store.reset();
  ASSERT_OK_AND_ASSIGN(store, TypedStore::OpenAny(*vfs_, "/s"));
  ExpectRecords(*store, survivors);
}

TEST_P(TypedStoreConformanceTest, BadInputIsRefusedAndChangesNothing) {
  EXPECT_STATUS_CODE(TypedStore::Create(*vfs_, "/bad", owner().kind,
                                        owner().invalid_identity, Options()),
                     absl::StatusCode::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(bool created, vfs_->Exists("/bad"));
  EXPECT_FALSE(created);

  auto store = MakeStore("/s", 3);
  ASSERT_NE(store, nullptr);
  ASSERT_OK_AND_ASSIGN(StoreStats stats, store->Stats());
  const std::string bytes = BytesOf(3);
  const DType other = owner().other_dtype;
  absl::Status wrong_dtype =
      store->Append({ShapedRecord{bytes, ShapeOf(3), &other}}).status();
  EXPECT_STATUS_CODE(wrong_dtype, absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(wrong_dtype.message(), HasSubstr("dtype"));
  EXPECT_STATUS_CODE(store->Append({}), absl::StatusCode::kInvalidArgument);
  // One byte short, in a batch with a good record: nothing is written.
  EXPECT_STATUS_CODE(store->Append({ShapedRecord{bytes, ShapeOf(3)},
                                    ShapedRecord{bytes.substr(1), ShapeOf(3)}}),
                     absl::StatusCode::kInvalidArgument);
  std::vector<uint64_t> zero = ShapeOf(3);
  zero.push_back(0);
  EXPECT_STATUS_CODE(store->Append({ShapedRecord{"", zero}}),
                     absl::StatusCode::kInvalidArgument);
  EXPECT_STATUS_CODE(store->AppendBatch(ShapedRecord{"", {0}}),
                     absl::StatusCode::kInvalidArgument);
  const std::vector<uint64_t> past_end = {1, 3};
  EXPECT_STATUS_CODE(store->Shapes(past_end), absl::StatusCode::kOutOfRange);
  EXPECT_STATUS_CODE(store->Delete(past_end), absl::StatusCode::kOutOfRange);
  ASSERT_OK_AND_ASSIGN(StoreStats unchanged, store->Stats());
  EXPECT_EQ(unchanged.records, stats.records);
  EXPECT_EQ(unchanged.chunk_bytes, stats.chunk_bytes);
  ExpectRecords(*store, Iota(3));
}

TEST_P(TypedStoreConformanceTest, TheKindIsPersistedAndChecked) {
  auto store = MakeStore("/s", 1);
  ASSERT_NE(store, nullptr);
  store.reset();
  ASSERT_OK_AND_ASSIGN(std::string header,
                       ReadFileToString(*vfs_, "/s/store.zr"));
  ASSERT_OK_AND_ASSIGN(auto registered, FindTypedOwner(owner().kind));
  ASSERT_GT(header.size(), 5u);
  EXPECT_EQ(static_cast<uint8_t>(header[5]), registered->kind_tag());
  const std::string other =
      owner().kind == "ragged" ? std::string("dense") : std::string("ragged");
  absl::Status mismatch = TypedStore::Open(*vfs_, "/s", other).status();
  EXPECT_EQ(ErrorCodeOf(mismatch), ErrorCode::kKindMismatch) << mismatch;
  // The lock was released by the failed open: the right kind opens.
  EXPECT_OK(TypedStore::Open(*vfs_, "/s", owner().kind));
}

TEST_P(TypedStoreConformanceTest, OpenOrCreateIsTheReferencesConstructor) {
  StoreRequest request;
  request.dtype = owner().identity.dtype;
  request.codec = std::get<1>(GetParam());
  ASSERT_OK_AND_ASSIGN(auto registered, FindTypedOwner(owner().kind));
  const bool fixed =
      registered->layout() == RecordGeometry::Layout::kFixedWidth;
  if (fixed) request.item_shape = owner().identity.item_shape;
  // Nothing there and nothing to create it from: NotFound, nothing made.
  EXPECT_STATUS_CODE(
      TypedStore::OpenOrCreate(*vfs_, "/a/b", owner().kind, StoreRequest{}),
      absl::StatusCode::kNotFound);
  ASSERT_OK_AND_ASSIGN(auto store, TypedStore::OpenOrCreate(
                                       *vfs_, "/a/b", owner().kind, request));
  EXPECT_EQ(store->identity(), owner().identity);
  store.reset();
  // Found: opened and checked against the request, of any kind if none is
  // named.
  EXPECT_OK(TypedStore::OpenOrCreate(*vfs_, "/a/b", owner().kind, request));
  ASSERT_OK_AND_ASSIGN(store,
                       TypedStore::OpenOrCreate(*vfs_, "/a/b", "", request));
  EXPECT_EQ(store->kind(), owner().kind);
  store.reset();
  StoreRequest wrong = request;
  wrong.dtype = owner().other_dtype;
  EXPECT_STATUS_CODE(
      TypedStore::OpenOrCreate(*vfs_, "/a/b", owner().kind, wrong),
      absl::StatusCode::kInvalidArgument);
  // A kind is needed to create a store.
  EXPECT_STATUS_CODE(TypedStore::OpenOrCreate(*vfs_, "/c", "", request),
                     absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace loaderx
