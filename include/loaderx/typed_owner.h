// `TypedOwner` is the typed layer over the byte engine. The engine stores
// untyped records; an owner ("dense", "ragged", or a user's own) gives a
// store its exact type identity and says how its records are laid out, and
// the one typed-store composition (`loaderx/typed_store.h`) serves a store
// of any registered owner from that alone. The layouts it knows:
//
//   fixed width   every record is one array of the identity's `item_shape`,
//                 so all records share one byte width and a batch read is a
//                 fixed-stride gather with no per-record metadata ("dense").
//   shaped        every record carries its own shape, so the engine stores
//                 payload/shape pairs at physical records 2i, 2i+1 and a
//                 read returns each record with its shape ("ragged").
//
// The identity is encoded by the owner (for dense and ragged, msgpack byte
// for byte as the reference's Python layer writes it) and persisted
// opaquely in the store's typed header; decoding rejects anything but the
// exact fields and forms the owner defines. An owner is stateless and
// thread-safe; the same instance serves every store of its kind. A user's
// owner registers with `TypedOwnerRegistration` (`typed_owner_registry.h`)
// under a kind tag of 128..255 and needs nothing else: README, "Adding a
// typed owner".

#ifndef LOADERX_TYPED_OWNER_H_
#define LOADERX_TYPED_OWNER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "loaderx/dtype.h"

namespace loaderx {

// The static type of a store's records, in numpy terms.
struct TypeIdentity {
  // The records' dtype: any numpy dtype but object (see `dtype.h`).
  DType dtype;
  // The shape of every record, for fixed-width kinds (empty: scalar
  // records); always empty for shaped kinds, whose shapes are per record.
  std::vector<uint64_t> item_shape;

  friend bool operator==(const TypeIdentity&, const TypeIdentity&) = default;
};

// How an owner's records sit in the engine.
struct RecordGeometry {
  enum class Layout : uint8_t {
    // One physical record per logical record, each one array of the
    // identity's `item_shape`: `record_width` = item_size * prod(item_shape).
    kFixedWidth = 0,
    // Two physical records per logical record: payload at 2i, shape at 2i+1.
    kPayloadShapePairs = 1,
  };
  Layout layout = Layout::kFixedWidth;
  // Bytes per record for `kFixedWidth` (persisted in the typed header); 0
  // for `kPayloadShapePairs`.
  uint64_t record_width = 0;
  // Bytes per element of the dtype (numpy's `itemsize`).
  uint64_t item_size = 0;
};

class TypedOwner {
 public:
  TypedOwner() = default;
  TypedOwner(const TypedOwner&) = delete;
  TypedOwner& operator=(const TypedOwner&) = delete;
  virtual ~TypedOwner() = default;

  // The registered kind name ("dense", "ragged", ...).
  virtual absl::string_view kind() const = 0;

  // The kind's persisted tag in the typed header (dense = 1, ragged = 2;
  // 128..255 for owners defined outside loaderx).
  virtual uint8_t kind_tag() const = 0;

  // How every store of this kind lays out its records. Fixed-width kinds'
  // identities carry their records' `item_shape` (so creating one needs
  // it); shaped kinds' carry none.
  virtual RecordGeometry::Layout layout() const = 0;

  // Validates `identity` for this kind and encodes it for the typed header.
  // InvalidArgument names the offending field (an unsupported dtype, a
  // zero-sized record, an item shape on a ragged identity, ...); a record
  // wider than 2^31 bytes also carries `ErrorCode::kRecordTooLarge`.
  virtual absl::StatusOr<std::string> EncodeIdentity(
      const TypeIdentity& identity) const = 0;

  // Decodes an identity this kind encoded. DataLoss if `encoded` is
  // malformed, carries unexpected fields, or fails validation.
  virtual absl::StatusOr<TypeIdentity> DecodeIdentity(
      absl::string_view encoded) const = 0;

  // The geometry of records of `identity`: `layout()` with the sizes. The
  // composition checks it against the identity (a fixed width must be
  // item_size * prod(item_shape)) and refuses a store whose owner
  // disagrees with itself (Internal).
  virtual absl::StatusOr<RecordGeometry> Geometry(
      const TypeIdentity& identity) const = 0;
};

}  // namespace loaderx

#endif  // LOADERX_TYPED_OWNER_H_
