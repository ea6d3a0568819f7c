#include "tools/cli/npy_format.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_testing.h"
#include "tools/cli/python_literal.h"

namespace loaderx::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A version 1.0 header around `text`, with its length (no padding).
std::string V1(absl::string_view text) {
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(text.size() & 0xFF));
  out.push_back(static_cast<char>(text.size() >> 8));
  out.append(text.data(), text.size());
  return out;
}

// Headers numpy 1.24 wrote (`np.save` of zeros of that dtype and shape).
std::string NumpyHeader(absl::string_view dict, size_t padding) {
  return V1(absl::StrCat(dict, std::string(padding, ' '), "\n"));
}

TEST(NpyFormatTest, EncodesExactlyAsNumpy) {
  EXPECT_EQ(EncodeNpyHeader(DType::Simple("|u1"), {3, 4, 5}),
            NumpyHeader("{'descr': '|u1', 'fortran_order': False, 'shape': "
                        "(3, 4, 5), }",
                        55));
  EXPECT_EQ(EncodeNpyHeader(DType::Simple("<f4"), {}),
            NumpyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(), }",
                        62));
  DType structured =
      DType::Structured({{"x", false, "", DType::Simple("<i4"), {}},
                         {"y", false, "", DType::Simple("<f4"), {2}}});
  EXPECT_EQ(EncodeNpyHeader(structured, {5}),
            NumpyHeader("{'descr': [('x', '<i4'), ('y', '<f4', (2,))], "
                        "'fortran_order': False, 'shape': (5,), }",
                        31));
  for (const std::vector<uint64_t>& shape :
       {std::vector<uint64_t>{}, {1}, {123456789, 3}}) {
    const std::string header = EncodeNpyHeader(structured, shape);
    EXPECT_EQ(header.size() % 64, 0u);
    ASSERT_OK_AND_ASSIGN(NpyHeader parsed, ParseNpyHeader(header));
    EXPECT_EQ(parsed.dtype, structured);
    EXPECT_EQ(parsed.shape, shape);
    EXPECT_EQ(parsed.data_offset, header.size());
  }
}

TEST(NpyFormatTest, ParsesWhatNumpyWrites) {
  ASSERT_OK_AND_ASSIGN(
      NpyHeader header,
      ParseNpyHeader(NumpyHeader("{'descr': [(('T', 't'), '<u2'), ('f1', "
                                 "'|V2')], 'fortran_order': False, 'shape': "
                                 "(7,), }",
                                 29)));
  ASSERT_TRUE(header.dtype.structured);
  ASSERT_EQ(header.dtype.fields.size(), 2u);
  EXPECT_TRUE(header.dtype.fields[0].has_title);
  EXPECT_EQ(header.dtype.fields[0].title, "T");
  EXPECT_EQ(header.dtype.fields[0].name, "t");
  EXPECT_EQ(header.item_size, 4u);
  EXPECT_THAT(header.shape, ElementsAre(7));
  EXPECT_EQ(header.data_bytes, 28u);
  EXPECT_FALSE(header.fortran_order);

  // Python 2's longs, other key order, double quotes, a version 2.0 file.
  ASSERT_OK_AND_ASSIGN(
      header, ParseNpyHeader(V1("{\"shape\": (2L, 3L), 'fortran_order': True, "
                                "'descr': '<U3'}\n")));
  EXPECT_THAT(header.shape, ElementsAre(2, 3));
  EXPECT_TRUE(header.fortran_order);
  EXPECT_EQ(header.data_bytes, 2u * 3u * 12u);
  std::string v2("\x93NUMPY\x02\x00", 8);
  const std::string text =
      "{'descr': '<i8', 'fortran_order': False, 'shape': (4,), }\n";
  v2.push_back(static_cast<char>(text.size()));
  v2.append(3, '\0');
  v2 += text;
  ASSERT_OK_AND_ASSIGN(header, ParseNpyHeader(v2));
  EXPECT_EQ(header.data_offset, 12 + text.size());
}

TEST(NpyFormatTest, RefusesWhatNumpyWouldNotWrite) {
  const auto error = [](absl::string_view bytes) {
    absl::StatusOr<NpyHeader> header = ParseNpyHeader(bytes);
    EXPECT_EQ(header.status().code(), absl::StatusCode::kInvalidArgument)
        << bytes;
    return std::string(header.status().message());
  };
  EXPECT_THAT(error("PK\x03\x04 not numpy"), HasSubstr("no .npy magic"));
  EXPECT_THAT(error(std::string("\x93NUMPY\x04\x00\x00\x00", 10)),
              HasSubstr("unknown format version 4.0"));
  EXPECT_THAT(error(V1("{'descr': '<f4', 'fortran_order': False, 'shape': "
                       "(2,)}")),
              HasSubstr("newline"));
  EXPECT_THAT(error(V1("{'descr': '<f4', 'shape': (2,)}\n")),
              HasSubstr("keys"));
  EXPECT_THAT(error(V1("{'descr': '<f4', 'fortran_order': False, 'shape': "
                       "(2,), 'extra': 1}\n")),
              HasSubstr("keys"));
  EXPECT_THAT(error(V1("{'descr': '|O', 'fortran_order': False, 'shape': "
                       "(2,)}\n")),
              HasSubstr("'descr'"));
  EXPECT_THAT(error(V1("{'descr': '<f4', 'fortran_order': 0, 'shape': "
                       "(2,)}\n")),
              HasSubstr("fortran_order"));
  EXPECT_THAT(error(V1("{'descr': '<f4', 'fortran_order': False, 'shape': "
                       "(-2,)}\n")),
              HasSubstr("unexpected '-'"));
  EXPECT_THAT(error(V1("{'descr': '<f4', 'fortran_order': False, 'shape': "
                       "(2.5,)}\n")),
              HasSubstr("expected"));
  EXPECT_THAT(error(V1("{'descr': '<f8', 'fortran_order': False, 'shape': "
                       "(4294967296, 4294967296)}\n")),
              HasSubstr("overflows"));
  EXPECT_THAT(error(V1("{'descr': '<f8', 'fortran_order': False, 'shape': "
                       "(99999999999999999999999,)}\n")),
              HasSubstr("too large"));
  // A header that claims more bytes than there are.
  EXPECT_THAT(error(V1("{'descr'").substr(0, 10) + std::string("\xff\xff", 2)),
              HasSubstr("truncated"));
  std::string huge("\x93NUMPY\x02\x00\x00\x00\x00\x10", 12);
  EXPECT_THAT(std::string(NpyHeaderLength(huge).status().message()),
              HasSubstr("larger than"));
}

TEST(PythonLiteralTest, ParsesReprsStrictly) {
  ASSERT_OK_AND_ASSIGN(PyLiteral value,
                       ParsePyLiteral("  ['a\\'b', \"c\\\\\", '\\xe9\\u20ac', "
                                      "(1,), (), (2), True, None]  "));
  ASSERT_EQ(value.kind, PyLiteral::Kind::kList);
  ASSERT_EQ(value.items.size(), 8u);
  EXPECT_EQ(value.items[0].text, "a'b");
  EXPECT_EQ(value.items[1].text, "c\\");
  EXPECT_EQ(value.items[2].text, "\xc3\xa9\xe2\x82\xac");
  EXPECT_EQ(value.items[3].kind, PyLiteral::Kind::kTuple);
  EXPECT_EQ(value.items[3].items.size(), 1u);
  EXPECT_EQ(value.items[4].items.size(), 0u);
  EXPECT_EQ(value.items[5].kind, PyLiteral::Kind::kInt);  // (2) is 2.
  EXPECT_TRUE(value.items[6].boolean);
  EXPECT_EQ(value.items[7].kind, PyLiteral::Kind::kNone);

  for (absl::string_view bad :
       {"", "[1 2]", "{'a': 1, 'a': 2}", "{1: 2}", "'unterminated", "Truth",
        "[1,,]", "012", "'\\q'", "'\\xZZ'", "1 2", "b'bytes'", "(1, 2"}) {
    EXPECT_FALSE(ParsePyLiteral(bad).ok()) << bad;
  }
  std::string deep(100, '[');
  deep += std::string(100, ']');
  EXPECT_FALSE(ParsePyLiteral(deep).ok());
  EXPECT_TRUE(ParsePyLiteral(deep, 200).ok());
}

}  // namespace
}  // namespace loaderx::cli
