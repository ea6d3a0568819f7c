#include "tests/cross_platform_stores.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "loaderx/dense_store.h"
#include "loaderx/dtype.h"
#include "loaderx/ragged_store.h"
#include "loaderx/spi/path.h"
#include "loaderx/spi/status_macros.h"
#include "src/record_engine.h"

namespace loaderx {
namespace {

// Which generated record sits at each index of a store, as its operations
// dictate: appends take the next ids, a delete moves the last record into
// the hole (the engine's swap-last deletion).
class RecordModel {
 public:
  void Append(uint64_t count) {
    for (uint64_t i = 0; i < count; ++i) ids_.push_back(next_id_++);
  }
  void Delete(uint64_t index) {
    ids_[index] = ids_.back();
    ids_.pop_back();
  }
  const std::vector<uint64_t>& ids() const { return ids_; }

 private:
  std::vector<uint64_t> ids_;
  uint64_t next_id_ = 0;
};

template <typename T>
std::string Pack(const std::vector<T>& values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

absl::Status Mismatch(absl::string_view store, uint64_t index) {
  return absl::DataLossError(
      absl::StrCat(store, ": record ", index, " has the wrong contents"));
}

absl::Status CheckSize(absl::string_view store, uint64_t size,
                       uint64_t expected) {
  if (size == expected) return absl::OkStatus();
  return absl::DataLossError(
      absl::StrCat(store, " holds ", size, " records, expected ", expected));
}

StoreOptions Options(absl::string_view codec) {
  StoreOptions options;
  options.codec = std::string(codec);
  return options;
}

// --- dense_raw: "<f4" (3, 5), raw ----------------------------------------

constexpr char kDenseRaw[] = "dense_raw";
constexpr uint64_t kDenseRawFloats = 15;

std::string DenseRawRecords(uint64_t first_id, uint64_t count) {
  std::vector<float> values;
  for (uint64_t id = first_id; id < first_id + count; ++id) {
    for (uint64_t j = 0; j < kDenseRawFloats; ++j) {
      values.push_back(static_cast<float>(id * 100 + j) * 0.25f);
    }
  }
  return Pack(values);
}

RecordModel DenseRawModel(bool extended) {
  RecordModel model;
  model.Append(10);
  model.Append(1);
  model.Append(25);
  model.Delete(4);
  if (extended) model.Append(7);
  return model;
}

// --- dense_zstd: "<u2" (64,), zstd ---------------------------------------

constexpr char kDenseZstd[] = "dense_zstd";
constexpr uint64_t kDenseZstdValues = 64;

std::string DenseZstdRecords(uint64_t first_id, uint64_t count) {
  std::vector<uint16_t> values;
  for (uint64_t id = first_id; id < first_id + count; ++id) {
    for (uint64_t j = 0; j < kDenseZstdValues; ++j) {
      values.push_back(static_cast<uint16_t>((id * 7 + j / 4) % 50));
    }
  }
  return Pack(values);
}

RecordModel DenseZstdModel(bool extended) {
  RecordModel model;
  model.Append(40);
  model.Append(40);
  if (extended) model.Append(20);
  return model;
}

// --- dense_struct: a structured dtype, (4,) records, zstd ----------------

constexpr char kDenseStruct[] = "dense_struct";
constexpr uint64_t kStructItems = 4;
constexpr uint64_t kStructItemBytes = 16;

// numpy's [('id', '<u4'), ('xy', '<f4', (2,)), ('', '|V4')]: a scalar, a
// subarray field and trailing padding, persisted as a msgpack descr tree.
DType StructDType() {
  return DType::Structured({
      DTypeField{"id", false, "", DType::Simple("<u4"), {}},
      DTypeField{"xy", false, "", DType::Simple("<f4"), {2}},
      DTypeField{"", false, "", DType::Simple("|V4"), {}},
  });
}

std::string DenseStructRecords(uint64_t first_id, uint64_t count) {
  std::string bytes(count * kStructItems * kStructItemBytes, '\0');
  char* out = bytes.data();
  for (uint64_t id = first_id; id < first_id + count; ++id) {
    for (uint64_t e = 0; e < kStructItems; ++e) {
      const uint32_t key = static_cast<uint32_t>(id * kStructItems + e);
      const float xy[2] = {static_cast<float>(id) + 0.5f * e,
                           -static_cast<float>(e)};
      std::memcpy(out, &key, sizeof(key));
      std::memcpy(out + 4, xy, sizeof(xy));
      out += kStructItemBytes;  // The padding stays zero.
    }
  }
  return bytes;
}

RecordModel DenseStructModel(bool extended) {
  RecordModel model;
  model.Append(24);
  if (extended) model.Append(8);
  return model;
}

// --- ragged_dict: "<i4", zstd_dict -----------------------------------------

constexpr char kRaggedDict[] = "ragged_dict";

// Record `id` has `id % 4` dimensions.
std::vector<uint64_t> RaggedShape(uint64_t id) {
  std::vector<uint64_t> shape;
  for (uint64_t d = 0; d < id % 4; ++d) shape.push_back(1 + (id + d) % 5);
  return shape;
}

std::string RaggedPayload(uint64_t id) {
  uint64_t elements = 1;
  for (uint64_t extent : RaggedShape(id)) elements *= extent;
  std::vector<int32_t> values;
  for (uint64_t e = 0; e < elements; ++e) {
    values.push_back(static_cast<int32_t>(id * 1000 + e) - 500);
  }
  return Pack(values);
}

std::string FixedDictionary() {
  std::vector<int32_t> values;
  for (int32_t i = 0; i < 1024; ++i) values.push_back(i * 1000 % 7919 - 500);
  return Pack(values);
}

absl::Status AppendRagged(RaggedStore& store, uint64_t first_id,
                          uint64_t count) {
  std::vector<std::string> payloads;
  for (uint64_t id = first_id; id < first_id + count; ++id) {
    payloads.push_back(RaggedPayload(id));
  }
  std::vector<RaggedRecord> records;
  for (uint64_t i = 0; i < count; ++i) {
    records.push_back({payloads[i], RaggedShape(first_id + i)});
  }
  return store.Append(records).status();
}

RecordModel RaggedModel(bool extended) {
  RecordModel model;
  model.Append(12);
  model.Append(18);
  if (extended) model.Append(10);
  return model;
}

// --- engine_chunks: the record engine, raw, 4 KiB chunks -------------------

constexpr char kEngineChunks[] = "engine_chunks";

RecordEngineOptions EngineOptions() {
  RecordEngineOptions options;
  options.codec = "raw";
  options.chunk_capacity = 4096;
  options.flush_bytes = 1024;
  return options;
}

std::string EngineRecord(uint64_t id) {
  std::string record((id * 37) % 900 + 1, '\0');
  for (size_t i = 0; i < record.size(); ++i) {
    record[i] = static_cast<char>((id * 131 + i * 7) & 0xff);
  }
  return record;
}

absl::Status AppendEngine(RecordEngine& engine, uint64_t first_id,
                          uint64_t count) {
  std::vector<std::string> records;
  for (uint64_t id = first_id; id < first_id + count; ++id) {
    records.push_back(EngineRecord(id));
  }
  std::vector<absl::string_view> views(records.begin(), records.end());
  return engine.AppendVariable(views).status();
}

RecordModel EngineModel(bool extended) {
  RecordModel model;
  model.Append(15);
  model.Append(25);
  model.Delete(2);
  if (extended) model.Append(10);
  return model;
}

// --- checks ---------------------------------------------------------------

absl::Status VerifyDense(Vfs& vfs, absl::string_view directory,
                         absl::string_view name, const TypeIdentity& identity,
                         const RecordModel& model,
                         std::string (*records)(uint64_t, uint64_t)) {
  LOADERX_ASSIGN_OR_RETURN(auto store,
                           DenseStore::Open(vfs, JoinPath(directory, name)));
  if (!(store->identity() == identity)) {
    return absl::DataLossError(absl::StrCat(
        name, " has dtype ", DTypeToString(store->identity().dtype),
        ", expected ", DTypeToString(identity.dtype)));
  }
  const std::vector<uint64_t>& ids = model.ids();
  LOADERX_RETURN_IF_ERROR(CheckSize(name, store->size(), ids.size()));
  std::vector<uint64_t> indices(ids.size());
  for (uint64_t i = 0; i < ids.size(); ++i) indices[i] = i;
  std::string all(ids.size() * store->record_bytes(), '\0');
  LOADERX_RETURN_IF_ERROR(store->Gather(indices, absl::MakeSpan(all)));
  for (uint64_t i = 0; i < ids.size(); ++i) {
    if (all.substr(i * store->record_bytes(), store->record_bytes()) !=
        records(ids[i], 1)) {
      return Mismatch(name, i);
    }
  }
  return absl::OkStatus();
}

absl::Status VerifyRagged(Vfs& vfs, absl::string_view directory,
                          const RecordModel& model) {
  LOADERX_ASSIGN_OR_RETURN(
      auto store, RaggedStore::Open(vfs, JoinPath(directory, kRaggedDict)));
  const std::vector<uint64_t>& ids = model.ids();
  LOADERX_RETURN_IF_ERROR(CheckSize(kRaggedDict, store->size(), ids.size()));
  for (uint64_t i = 0; i < ids.size(); ++i) {
    LOADERX_ASSIGN_OR_RETURN(auto shapes, store->Shapes({i}));
    if (shapes.size() != 1 || shapes[0] != RaggedShape(ids[i])) {
      return Mismatch(kRaggedDict, i);
    }
    const std::string expected = RaggedPayload(ids[i]);
    std::string payload(expected.size(), '\0');
    const absl::Span<char> destination[] = {absl::MakeSpan(payload)};
    LOADERX_RETURN_IF_ERROR(store->Gather({i}, destination));
    if (payload != expected) return Mismatch(kRaggedDict, i);
  }
  return absl::OkStatus();
}

absl::Status VerifyEngine(Vfs& vfs, absl::string_view directory,
                          const RecordModel& model) {
  LOADERX_ASSIGN_OR_RETURN(
      auto engine, RecordEngine::Open(vfs, JoinPath(directory, kEngineChunks),
                                      EngineOptions()));
  const std::vector<uint64_t>& ids = model.ids();
  LOADERX_RETURN_IF_ERROR(
      CheckSize(kEngineChunks, engine->length(), ids.size()));
  for (uint64_t i = 0; i < ids.size(); ++i) {
    const std::string expected = EngineRecord(ids[i]);
    std::string record(expected.size(), '\0');
    const absl::Span<char> destination[] = {absl::MakeSpan(record)};
    LOADERX_RETURN_IF_ERROR(engine->GatherVariable({i}, destination));
    if (record != expected) return Mismatch(kEngineChunks, i);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteStoreSet(Vfs& vfs, absl::string_view directory) {
  {
    LOADERX_ASSIGN_OR_RETURN(
        auto store,
        DenseStore::Create(vfs, JoinPath(directory, kDenseRaw),
                           TypeIdentity{DType::Simple("<f4"), {3, 5}},
                           Options("raw")));
    LOADERX_RETURN_IF_ERROR(store->Append(DenseRawRecords(0, 10)).status());
    LOADERX_RETURN_IF_ERROR(store->Append(DenseRawRecords(10, 1)).status());
    LOADERX_RETURN_IF_ERROR(store->Append(DenseRawRecords(11, 25)).status());
    LOADERX_RETURN_IF_ERROR(store->Delete({4}));
    LOADERX_RETURN_IF_ERROR(store->Compact());
  }
  {
    LOADERX_ASSIGN_OR_RETURN(
        auto store, DenseStore::Create(vfs, JoinPath(directory, kDenseZstd),
                                       TypeIdentity{DType::Simple("<u2"), {64}},
                                       Options("zstd")));
    LOADERX_RETURN_IF_ERROR(store->Append(DenseZstdRecords(0, 40)).status());
    LOADERX_RETURN_IF_ERROR(store->Append(DenseZstdRecords(40, 40)).status());
  }
  {
    LOADERX_ASSIGN_OR_RETURN(
        auto store,
        DenseStore::Create(vfs, JoinPath(directory, kDenseStruct),
                           TypeIdentity{StructDType(), {kStructItems}},
                           Options("zstd")));
    LOADERX_RETURN_IF_ERROR(store->Append(DenseStructRecords(0, 24)).status());
  }
  {
    StoreOptions options = Options("zstd_dict");
    options.dictionary = FixedDictionary();
    LOADERX_ASSIGN_OR_RETURN(
        auto store, RaggedStore::Create(vfs, JoinPath(directory, kRaggedDict),
                                        DType::Simple("<i4"), options));
    LOADERX_RETURN_IF_ERROR(AppendRagged(*store, 0, 12));
    LOADERX_RETURN_IF_ERROR(AppendRagged(*store, 12, 18));
  }
  {
    LOADERX_ASSIGN_OR_RETURN(
        auto engine,
        RecordEngine::Create(vfs, JoinPath(directory, kEngineChunks),
                             EngineOptions()));
    LOADERX_RETURN_IF_ERROR(AppendEngine(*engine, 0, 15));
    LOADERX_RETURN_IF_ERROR(AppendEngine(*engine, 15, 25));
    LOADERX_RETURN_IF_ERROR(engine->Delete({2}));
    LOADERX_RETURN_IF_ERROR(engine->Sync());
  }
  return absl::OkStatus();
}

absl::Status ExtendStoreSet(Vfs& vfs, absl::string_view directory) {
  {
    LOADERX_ASSIGN_OR_RETURN(
        auto store,
        DenseStore::Open(vfs, JoinPath(directory, kDenseRaw), Options("raw")));
    LOADERX_RETURN_IF_ERROR(store->Append(DenseRawRecords(36, 7)).status());
  }
  {
    LOADERX_ASSIGN_OR_RETURN(
        auto store, DenseStore::Open(vfs, JoinPath(directory, kDenseZstd),
                                     Options("zstd")));
    LOADERX_RETURN_IF_ERROR(store->Append(DenseZstdRecords(80, 20)).status());
  }
  {
    LOADERX_ASSIGN_OR_RETURN(
        auto store, DenseStore::Open(vfs, JoinPath(directory, kDenseStruct),
                                     Options("zstd")));
    LOADERX_RETURN_IF_ERROR(store->Append(DenseStructRecords(24, 8)).status());
  }
  {
    LOADERX_ASSIGN_OR_RETURN(
        auto store, RaggedStore::Open(vfs, JoinPath(directory, kRaggedDict),
                                      Options("zstd_dict")));
    LOADERX_RETURN_IF_ERROR(AppendRagged(*store, 30, 10));
  }
  {
    LOADERX_ASSIGN_OR_RETURN(
        auto engine, RecordEngine::Open(vfs, JoinPath(directory, kEngineChunks),
                                        EngineOptions()));
    LOADERX_RETURN_IF_ERROR(AppendEngine(*engine, 40, 10));
    LOADERX_RETURN_IF_ERROR(engine->Sync());
  }
  return absl::OkStatus();
}

absl::Status VerifyStoreSet(Vfs& vfs, absl::string_view directory,
                            bool extended) {
  LOADERX_RETURN_IF_ERROR(VerifyDense(
      vfs, directory, kDenseRaw, TypeIdentity{DType::Simple("<f4"), {3, 5}},
      DenseRawModel(extended), &DenseRawRecords));
  LOADERX_RETURN_IF_ERROR(VerifyDense(
      vfs, directory, kDenseZstd, TypeIdentity{DType::Simple("<u2"), {64}},
      DenseZstdModel(extended), &DenseZstdRecords));
  LOADERX_RETURN_IF_ERROR(VerifyDense(
      vfs, directory, kDenseStruct, TypeIdentity{StructDType(), {kStructItems}},
      DenseStructModel(extended), &DenseStructRecords));
  LOADERX_RETURN_IF_ERROR(VerifyRagged(vfs, directory, RaggedModel(extended)));
  return VerifyEngine(vfs, directory, EngineModel(extended));
}

absl::Status CopyTree(Vfs& vfs, absl::string_view from, absl::string_view to) {
  LOADERX_ASSIGN_OR_RETURN(std::vector<std::string> names, vfs.List(from));
  for (const std::string& name : names) {
    const std::string source = JoinPath(from, name);
    const std::string target = JoinPath(to, name);
    absl::StatusOr<std::vector<std::string>> children = vfs.List(source);
    if (children.ok()) {
      LOADERX_RETURN_IF_ERROR(vfs.CreateDirectory(target));
      LOADERX_RETURN_IF_ERROR(CopyTree(vfs, source, target));
      continue;
    }
    if (!absl::IsFailedPrecondition(children.status())) {
      return children.status();
    }
    LOADERX_ASSIGN_OR_RETURN(std::string contents,
                             ReadFileToString(vfs, source));
    LOADERX_RETURN_IF_ERROR(
        WriteStringToFile(vfs, target, contents, /*sync=*/true));
  }
  return vfs.SyncDirectory(to);
}

absl::StatusOr<std::map<std::string, std::string>> ReadTree(
    Vfs& vfs, absl::string_view directory) {
  std::map<std::string, std::string> files;
  std::vector<std::string> pending = {""};
  while (!pending.empty()) {
    const std::string relative = pending.back();
    pending.pop_back();
    const std::string path = relative.empty() ? std::string(directory)
                                              : JoinPath(directory, relative);
    LOADERX_ASSIGN_OR_RETURN(std::vector<std::string> names, vfs.List(path));
    for (const std::string& name : names) {
      const std::string child = JoinPath(relative, name);
      absl::StatusOr<std::vector<std::string>> listed =
          vfs.List(JoinPath(directory, child));
      if (listed.ok()) {
        pending.push_back(child);
        continue;
      }
      if (!absl::IsFailedPrecondition(listed.status())) return listed.status();
      LOADERX_ASSIGN_OR_RETURN(
          files[child], ReadFileToString(vfs, JoinPath(directory, child)));
    }
  }
  return files;
}

}  // namespace loaderx
