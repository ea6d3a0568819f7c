#include "src/record_layout.h"

#include <memory>

#include "absl/strings/str_cat.h"

namespace loaderx {

absl::Status CheckBatchBuffer(absl::Span<char> buffer, uint64_t total_bytes) {
  if (buffer.size() == total_bytes) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("read: the batch needs ", total_bytes,
                   " bytes, the buffer has ", buffer.size()));
}

std::unique_ptr<const RecordLayout> MakeRecordLayout(
    RecordEngine& engine, const TypeIdentity& identity,
    const RecordGeometry& geometry) {
  switch (geometry.layout) {
    case RecordGeometry::Layout::kFixedWidth:
      return MakeFixedWidthLayout(engine, identity.item_shape,
                                  geometry.record_width);
    case RecordGeometry::Layout::kPayloadShapePairs:
      return MakePayloadShapeLayout(engine, geometry.item_size);
  }
  return nullptr;  // `TypedStore` admits only the layouts above.
}

}  // namespace loaderx
