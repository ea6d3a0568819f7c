// loaderx's own owners, "dense" and "ragged", through the typed-store
// conformance suite (a user's owner runs it in tests/owners/).

#include "tests/typed_store_conformance.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace loaderx {
namespace {

DTypeField Field(std::string name, const char* type) {
  DTypeField field;
  field.name = std::move(name);
  field.type = DType::Simple(type);
  return field;
}

OwnerUnderTest Dense() {
  const std::vector<uint64_t> shape = {2, 3};
  return OwnerUnderTest{"dense",
                        "dense",
                        {DType::Simple("<f4"), shape},
                        [shape](uint64_t) { return shape; },
                        {DType::Simple("<f4"), {2, 0}},
                        DType::Simple("<f8")};
}

OwnerUnderTest DenseStructured() {
  const DType pair = DType::Structured({Field("x", "<i4"), Field("y", ">f8")});
  return OwnerUnderTest{"dense_structured",
                        "dense",
                        {pair, {}},
                        [](uint64_t) { return std::vector<uint64_t>{}; },
                        {DType::Simple("|O8"), {}},
                        DType::Structured({Field("x", "<i4")})};
}

OwnerUnderTest Ragged() {
  return OwnerUnderTest{"ragged",
                        "ragged",
                        {DType::Simple("<i2"), {}},
                        [](uint64_t i) -> std::vector<uint64_t> {
                          switch (i % 4) {
                            case 0:
                              return {};  // A scalar.
                            case 1:
                              return {i + 1};
                            case 2:
                              return {2, i % 3 + 1};
                            default:
                              return {1, 2, 2};
                          }
                        },
                        {DType::Simple("<i2"), {3}},
                        DType::Simple("<u2")};
}

INSTANTIATE_TEST_SUITE_P(
    LoaderxOwners, TypedStoreConformanceTest,
    testing::Combine(testing::Values(Dense(), DenseStructured(), Ragged()),
                     testing::Values("raw", "zstd")),
    OwnerUnderTestName);

}  // namespace
}  // namespace loaderx
