#include "src/record_layout.h"

#include <memory>

namespace loaderx {

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
