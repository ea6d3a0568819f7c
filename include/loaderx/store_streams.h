// `LoaderStream` adapters over the typed stores: what a `DataLoader` reads
// when it loads a `DenseStore`, a `RaggedStore` or a `TypedStore` of any
// kind. These functions are the only place the loader's world meets the
// stores' API.
//
// `DenseStoreStream` and `RaggedStoreStream` refer to the store without
// owning it: the store must outlive every loader reading it (a loader reads
// nothing after its `Close` returns). `TypedStoreStream` shares its store,
// which then stays open (lock included) while the stream exists. A store may
// be appended to meanwhile; the loader's sampler keeps the length the store
// had when the loader was created.

#ifndef LOADERX_STORE_STREAMS_H_
#define LOADERX_STORE_STREAMS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "loaderx/dense_store.h"
#include "loaderx/loader_stream.h"
#include "loaderx/ragged_store.h"
#include "loaderx/store_set.h"
#include "loaderx/typed_store.h"

namespace loaderx {

// Records of the store's `(dtype, item_shape)`: one `pread`/decode per
// record straight into the batch's contiguous buffer.
absl::StatusOr<std::unique_ptr<LoaderStream>> DenseStoreStream(
    const DenseStore& store);

// Records of the store's dtype, each with its own shape, read in the store's
// one pass (`RaggedStore::Read`): the payloads back to back in the batch's
// buffer, in batch order.
absl::StatusOr<std::unique_ptr<LoaderStream>> RaggedStoreStream(
    const RaggedStore& store);

// Any typed store, by its owner's geometry: a fixed-width kind is a dense
// stream of its `(dtype, item_shape)`, a shaped kind a ragged stream read in
// the store's one pass. The stream keeps `store` alive. InvalidArgument for
// a null store.
absl::StatusOr<std::unique_ptr<LoaderStream>> TypedStoreStream(
    std::shared_ptr<const TypedStore> store);

// A store set as one stream: its members' records in set order, dense for
// a fixed-width set, ragged (payloads back to back in batch order) for a
// shaped one; every gather resolves its positions to members in one pass
// and reads the members in parallel. The stream keeps `set` alive; its
// fingerprint is the set's. InvalidArgument for a null set.
absl::StatusOr<std::unique_ptr<LoaderStream>> StoreSetStream(
    std::shared_ptr<const StoreSet> set);

}  // namespace loaderx

#endif  // LOADERX_STORE_STREAMS_H_
