#include "tests/damage/sample_store.h"

#include <memory>
#include <vector>

#include "loaderx/dtype.h"
#include "loaderx/spi/little_endian.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/store_options.h"
#include "loaderx/typed_store.h"
#include "loaderx/vfs_registry.h"

namespace loaderx::damage {

std::string SampleRecord(absl::string_view kind, uint64_t id) {
  const uint64_t size = kind == "dense" ? kDenseWidth : 9 + 11 * id;
  std::string record(size, '\0');
  StoreLittle<uint64_t>(record.data(), id);
  for (uint64_t i = 8; i < size; ++i) {
    record[i] = static_cast<char>('a' + (id * 7 + i / 5) % 26);
  }
  return record;
}

std::optional<uint64_t> IdentifySample(absl::string_view kind,
                                       absl::string_view bytes,
                                       uint64_t limit) {
  if (bytes.size() < 8) return std::nullopt;
  const uint64_t id = LoadLittle<uint64_t>(bytes.data());
  if (id >= limit || SampleRecord(kind, id) != bytes) return std::nullopt;
  return id;
}

absl::Status CreateSampleStore(const SampleKind& sample,
                               const std::string& path) {
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<Vfs> vfs, CreateVfs("posix"));
  StoreOptions options;
  options.codec = sample.codec;
  // zstd accepts any bytes as a raw-content dictionary.
  if (sample.codec == "zstd_dict") {
    options.dictionary = SampleRecord("ragged", 40);
  }
  const DType bytes = DType::Simple("|u1");
  TypeIdentity identity{bytes, {}};
  if (sample.kind == "dense") identity.item_shape = {kDenseWidth};
  LOADERX_ASSIGN_OR_RETURN(
      std::unique_ptr<TypedStore> store,
      TypedStore::Create(*vfs, path, sample.kind, identity, options));
  std::vector<std::string> data;
  std::vector<ShapedRecord> records;
  for (uint64_t id = 0; id <= kSampleRecords; ++id) {
    data.push_back(SampleRecord(sample.kind, id));
  }
  for (const std::string& record : data) {
    records.push_back(ShapedRecord{record, {record.size()}, &bytes});
  }
  LOADERX_RETURN_IF_ERROR(store->Append(records).status());
  LOADERX_RETURN_IF_ERROR(store->Sync());
  // A delete of the last leaves journal.lx (empty) and bytes to reclaim.
  const uint64_t last[] = {kSampleRecords};
  return store->Delete(last);
}

}  // namespace loaderx::damage
