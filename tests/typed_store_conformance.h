// The typed-store conformance suite: one parameterized gtest suite that a
// store of every typed owner runs, loaderx's "dense" and "ragged" and a
// user's own, so they all honour `loaderx/typed_store.h` the same way
// through the one composition. An owner joins by instantiating it with an
// `OwnerUnderTest`, crossed with the codecs to run under:
//
//   INSTANTIATE_TEST_SUITE_P(
//       Dense, TypedStoreConformanceTest,
//       testing::Combine(testing::Values(OwnerUnderTest{...}),
//                        testing::Values("raw", "zstd")),
//       OwnerUnderTestName);
//
// Stores live on the in-memory VFS; record i's bytes are a pattern of i, so
// every read is checked byte for byte.

#ifndef LOADERX_TESTS_TYPED_STORE_CONFORMANCE_H_
#define LOADERX_TESTS_TYPED_STORE_CONFORMANCE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "loaderx/typed_store.h"
#include "loaderx/vfs.h"

namespace loaderx {

struct OwnerUnderTest {
  // A name for test output; letters, digits and underscores only.
  std::string name;
  // The registered kind and a valid identity of it.
  std::string kind;
  TypeIdentity identity;
  // Record i's shape; for a fixed-width kind always `identity.item_shape`.
  std::function<std::vector<uint64_t>(uint64_t)> shape_of;
  // An identity the owner refuses, and a dtype that is not the store's.
  TypeIdentity invalid_identity;
  DType other_dtype;
};

using OwnerAndCodec = std::tuple<OwnerUnderTest, std::string>;

std::string OwnerUnderTestName(
    const testing::TestParamInfo<OwnerAndCodec>& info);

class TypedStoreConformanceTest : public testing::TestWithParam<OwnerAndCodec> {
 protected:
  void SetUp() override;

  const OwnerUnderTest& owner() const { return std::get<0>(GetParam()); }
  StoreOptions Options() const;

  // Record i as the suite writes it: its shape and bytes.
  std::vector<uint64_t> ShapeOf(uint64_t i) const;
  std::string BytesOf(uint64_t i) const;

  // A fresh store of the owner's kind at `path`, holding records
  // 0..count-1.
  std::unique_ptr<TypedStore> MakeStore(const std::string& path,
                                        uint64_t count);

  // Checks that `store` holds exactly the records `expected` (record k of
  // the store is record `expected[k]` as written), through every read.
  void ExpectRecords(const TypedStore& store,
                     const std::vector<uint64_t>& expected) const;

  std::unique_ptr<Vfs> vfs_;
  uint64_t item_size_ = 0;
};

}  // namespace loaderx

#endif  // LOADERX_TESTS_TYPED_STORE_CONFORMANCE_H_
