// DType accepts exactly what numpy's `dtype.str` and `dtype.descr` produce,
// and knows every such dtype's item size.

#include "loaderx/dtype.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

using ::testing::HasSubstr;

DTypeField Field(std::string name, DType type,
                 std::vector<uint64_t> shape = {}) {
  DTypeField field;
  field.name = std::move(name);
  field.type = std::move(type);
  field.shape = std::move(shape);
  return field;
}

DTypeField Padding(uint64_t bytes) {
  return Field("", DType::Simple(absl::StrCat("|V", bytes)));
}

uint64_t SizeOf(const std::string& str) {
  absl::StatusOr<uint64_t> size = DTypeItemSize(DType::Simple(str));
  EXPECT_TRUE(size.ok()) << str << ": " << size.status();
  return size.value_or(0);
}

TEST(DTypeTest, SimpleDtypesHaveNumpysItemSizes) {
  EXPECT_EQ(SizeOf("|b1"), 1u);
  EXPECT_EQ(SizeOf("|i1"), 1u);
  EXPECT_EQ(SizeOf("|u1"), 1u);
  EXPECT_EQ(SizeOf("<i2"), 2u);
  EXPECT_EQ(SizeOf(">u8"), 8u);
  EXPECT_EQ(SizeOf("<f2"), 2u);
  EXPECT_EQ(SizeOf(">f4"), 4u);
  EXPECT_EQ(SizeOf("<f16"), 16u);  // long double on x86-64
  EXPECT_EQ(SizeOf("<c8"), 8u);
  EXPECT_EQ(SizeOf("<c32"), 32u);
  EXPECT_EQ(SizeOf("<U3"), 12u);  // UCS-4
  EXPECT_EQ(SizeOf(">U1"), 4u);
  EXPECT_EQ(SizeOf("<U0"), 0u);
  EXPECT_EQ(SizeOf("|S5"), 5u);
  EXPECT_EQ(SizeOf("|V24"), 24u);
  EXPECT_EQ(SizeOf("<M8"), 8u);  // generic unit
  EXPECT_EQ(SizeOf("<M8[ns]"), 8u);
  EXPECT_EQ(SizeOf(">m8[D]"), 8u);
  EXPECT_EQ(SizeOf("<M8[10ms]"), 8u);
  EXPECT_EQ(SizeOf("<m8[us]"), 8u);
}

TEST(DTypeTest, AnythingNumpyWouldNotWriteIsInvalid) {
  for (const char* str : {"",         "f4",
                          "<f3",      "<x4",
                          "?f4",      "=f4",
                          "<i1",      "|f4",
                          "<b1",      "<S5",
                          "|U3",      "|O8",
                          "<O8",      "<M4",
                          "<M8[ns",   "<M8[lightyears]",
                          "<M8[0s]",  "<f04",
                          "<i-4",     "<i 4",
                          "<M8[01s]", "<i99999999999999999999"}) {
    SCOPED_TRACE(str);
    EXPECT_STATUS_CODE(DTypeItemSize(DType::Simple(str)),
                       absl::StatusCode::kInvalidArgument);
  }
  // numpy's own spelling, "|O", and the sized one.
  for (const char* object : {"|O", "|O8"}) {
    EXPECT_THAT(DTypeItemSize(DType::Simple(object)).status().message(),
                HasSubstr("object dtypes cannot be persisted"));
  }
}

TEST(DTypeTest, StructuredDtypesSumTheirFieldsAndPadding) {
  // np.dtype({'names': ['a', 'b'], 'formats': ['<i4', '<f8'],
  //           'offsets': [0, 8], 'itemsize': 24}).descr
  const DType padded =
      DType::Structured({Field("a", DType::Simple("<i4")), Padding(4),
                         Field("b", DType::Simple("<f8")), Padding(8)});
  ASSERT_OK_AND_ASSIGN(uint64_t size, DTypeItemSize(padded));
  EXPECT_EQ(size, 24u);
  EXPECT_EQ(DTypeToString(padded),
            "[('a', '<i4'), ('', '|V4'), ('b', '<f8'), ('', '|V8')]");

  // [('p', [('x', '<i2'), ('y', '|u1')], (2,)), ('q', '<M8[ms]')]
  DTypeField titled = Field("a", DType::Simple(">f4"), {2, 3});
  titled.has_title = true;
  titled.title = "T";
  const DType nested = DType::Structured(
      {Field("p",
             DType::Structured({Field("x", DType::Simple("<i2")),
                                Field("y", DType::Simple("|u1"))}),
             {2}),
       Field("q", DType::Simple("<M8[ms]")), titled});
  ASSERT_OK_AND_ASSIGN(size, DTypeItemSize(nested));
  EXPECT_EQ(size, 2u * 3 + 8 + 4 * 6);
  EXPECT_EQ(DTypeToString(nested),
            "[('p', [('x', '<i2'), ('y', '|u1')], (2,)), ('q', '<M8[ms]'), "
            "(('T', 'a'), '>f4', (2, 3))]");

  ASSERT_OK_AND_ASSIGN(size, DTypeItemSize(DType::Structured({})));
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(DTypeToString(DType::Simple("<f4")), "<f4");
}

TEST(DTypeTest, MalformedStructuredDtypesAreInvalid) {
  const DType f4 = DType::Simple("<f4");
  DTypeField titled = Field("b", f4);
  titled.has_title = true;
  titled.title = "a";  // clashes with field a's name
  DTypeField titled_padding = Padding(2);
  titled_padding.has_title = true;
  titled_padding.title = "t";
  DType deep = f4;
  for (int i = 0; i <= kMaxDTypeDepth; ++i) {
    deep = DType::Structured({Field("x", deep)});
  }
  DType both = f4;
  both.structured = true;
  const struct {
    DType dtype;
    const char* why;
  } cases[] = {
      {DType::Structured({Field("a", f4), Field("a", f4)}),
       "occurs more than once"},
      {DType::Structured({Field("a", f4), titled}), "already a field's name"},
      {DType::Structured({Field("", f4)}), "must be padding"},
      {DType::Structured({Field("", DType::Simple("|V4"), {2})}),
       "must be padding"},
      {DType::Structured({titled_padding}), "must be padding"},
      {DType::Structured({Field("o", DType::Simple("|O8"))}), "object"},
      {DType::Structured({Field("a", f4, {1ULL << 40, 1ULL << 40})}),
       "too large"},
      {DType::Structured({Field(std::string("\xff", 1), f4)}), "UTF-8"},
      {deep, "nest at most"},
      {both, "has no dtype.str"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.why);
    absl::Status status = DTypeItemSize(c.dtype).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(status.message(), HasSubstr(c.why));
  }
}

TEST(DTypeTest, EqualityComparesTheWholeTree) {
  const DType a = DType::Structured({Field("x", DType::Simple("<i4"))});
  DType b = a;
  EXPECT_EQ(a, b);
  b.fields[0].shape = {2};
  EXPECT_FALSE(a == b);
  EXPECT_FALSE(DType::Simple("<f4") == DType::Simple(">f4"));
  EXPECT_FALSE(DType::Structured({}) == DType::Simple(""));
}

}  // namespace
}  // namespace loaderx
