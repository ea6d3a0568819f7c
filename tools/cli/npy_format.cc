#include "tools/cli/npy_format.h"

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tools/cli/python_literal.h"

namespace loaderx::cli {
namespace {

constexpr absl::string_view kMagic = "\x93NUMPY";
constexpr uint64_t kAlignment = 64;
// numpy leaves room for the growing axis to reach this many digits.
constexpr size_t kGrowthAxisMaxDigits = 21;

absl::Status HeaderError(absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("not a valid .npy file: ", what));
}

uint64_t ReadLittleEndian(absl::string_view bytes) {
  uint64_t value = 0;
  for (size_t i = bytes.size(); i-- > 0;) {
    value = (value << 8) | static_cast<uint8_t>(bytes[i]);
  }
  return value;
}

// Latin-1 bytes as UTF-8 text.
std::string Latin1ToUtf8(absl::string_view bytes) {
  std::string out;
  for (char c : bytes) AppendUtf8(static_cast<uint8_t>(c), out);
  return out;
}

// UTF-8 text as Latin-1 bytes, if every code point fits.
bool Utf8ToLatin1(absl::string_view text, std::string& out) {
  for (size_t i = 0; i < text.size(); ++i) {
    const uint8_t c = static_cast<uint8_t>(text[i]);
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else if ((c & 0xFE) == 0xC2 && i + 1 < text.size()) {
      out.push_back(static_cast<char>(
          ((c & 0x03) << 6) | (static_cast<uint8_t>(text[++i]) & 0x3F)));
    } else {
      return false;
    }
  }
  return true;
}

absl::StatusOr<DType> DTypeFromDescr(const PyLiteral& descr, int depth);

absl::StatusOr<std::vector<uint64_t>> ShapeFromTuple(const PyLiteral& tuple,
                                                     absl::string_view what) {
  if (tuple.kind == PyLiteral::Kind::kInt) return std::vector{tuple.integer};
  if (tuple.kind != PyLiteral::Kind::kTuple) {
    return HeaderError(absl::StrCat(what, " is not a tuple of integers"));
  }
  std::vector<uint64_t> shape;
  for (const PyLiteral& item : tuple.items) {
    if (item.kind != PyLiteral::Kind::kInt) {
      return HeaderError(absl::StrCat(what, " is not a tuple of integers"));
    }
    shape.push_back(item.integer);
  }
  return shape;
}

absl::StatusOr<DTypeField> FieldFromDescr(const PyLiteral& item, int depth) {
  if ((item.kind != PyLiteral::Kind::kTuple) || item.items.size() < 2 ||
      item.items.size() > 3) {
    return HeaderError("a structured descr field is not (name, type[, shape])");
  }
  DTypeField field;
  const PyLiteral& name = item.items[0];
  if (name.kind == PyLiteral::Kind::kString) {
    field.name = name.text;
  } else if (name.kind == PyLiteral::Kind::kTuple && name.items.size() == 2 &&
             name.items[0].kind == PyLiteral::Kind::kString &&
             name.items[1].kind == PyLiteral::Kind::kString) {
    field.has_title = true;
    field.title = name.items[0].text;
    field.name = name.items[1].text;
  } else {
    return HeaderError("a field name is not a string or (title, name)");
  }
  absl::StatusOr<DType> type = DTypeFromDescr(item.items[1], depth + 1);
  if (!type.ok()) return type.status();
  field.type = *std::move(type);
  if (item.items.size() == 3) {
    absl::StatusOr<std::vector<uint64_t>> shape =
        ShapeFromTuple(item.items[2], "a field's shape");
    if (!shape.ok()) return shape.status();
    field.shape = *std::move(shape);
  }
  return field;
}

absl::StatusOr<DType> DTypeFromDescr(const PyLiteral& descr, int depth) {
  if (depth > kMaxDTypeDepth) return HeaderError("descr nested too deep");
  if (descr.kind == PyLiteral::Kind::kString) return DType::Simple(descr.text);
  if (descr.kind != PyLiteral::Kind::kList) {
    return HeaderError("'descr' is not a string or a list of fields");
  }
  std::vector<DTypeField> fields;
  for (const PyLiteral& item : descr.items) {
    absl::StatusOr<DTypeField> field = FieldFromDescr(item, depth);
    if (!field.ok()) return field.status();
    fields.push_back(*std::move(field));
  }
  return DType::Structured(std::move(fields));
}

std::string ShapeRepr(absl::Span<const uint64_t> shape) {
  if (shape.size() == 1) return absl::StrCat("(", shape[0], ",)");
  return absl::StrCat("(", absl::StrJoin(shape, ", "), ")");
}

}  // namespace

absl::StatusOr<uint64_t> NpyHeaderLength(absl::string_view preamble) {
  if (preamble.size() < kNpyPreambleV1 ||
      preamble.substr(0, kMagic.size()) != kMagic) {
    return HeaderError("no .npy magic (\\x93NUMPY) at the start");
  }
  const int major = static_cast<uint8_t>(preamble[6]);
  const int minor = static_cast<uint8_t>(preamble[7]);
  if (major < 1 || major > 3 || minor != 0) {
    return HeaderError(
        absl::StrCat("unknown format version ", major, ".", minor));
  }
  if (major == 1) {
    return kNpyPreambleV1 + ReadLittleEndian(preamble.substr(8, 2));
  }
  if (preamble.size() < kNpyPreambleV2)
    return HeaderError("truncated preamble");
  const uint64_t length = ReadLittleEndian(preamble.substr(8, 4));
  if (length > kMaxNpyHeaderBytes) {
    return HeaderError(absl::StrCat("a ", length,
                                    "-byte header is larger than ",
                                    kMaxNpyHeaderBytes, " bytes"));
  }
  return kNpyPreambleV2 + length;
}

absl::StatusOr<NpyHeader> ParseNpyHeader(absl::string_view prefix) {
  absl::StatusOr<uint64_t> end = NpyHeaderLength(prefix);
  if (!end.ok()) return end.status();
  if (prefix.size() < *end) return HeaderError("truncated header");
  const int major = static_cast<uint8_t>(prefix[6]);
  const size_t start = major == 1 ? kNpyPreambleV1 : kNpyPreambleV2;
  const absl::string_view raw = prefix.substr(start, *end - start);
  if (raw.empty() || raw.back() != '\n') {
    return HeaderError("the header does not end in a newline");
  }
  const std::string text = major == 3 ? std::string(raw) : Latin1ToUtf8(raw);
  absl::StatusOr<PyLiteral> literal =
      ParsePyLiteral(text, 2 * kMaxDTypeDepth + 8);
  if (!literal.ok()) return HeaderError(literal.status().message());
  if (literal->kind != PyLiteral::Kind::kDict) {
    return HeaderError("the header is not a dict");
  }
  const PyLiteral* descr = literal->Find("descr");
  const PyLiteral* fortran = literal->Find("fortran_order");
  const PyLiteral* shape = literal->Find("shape");
  if (descr == nullptr || fortran == nullptr || shape == nullptr ||
      literal->keys.size() != 3) {
    return HeaderError(
        "the header's keys are not exactly 'descr', 'fortran_order', 'shape'");
  }
  if (fortran->kind != PyLiteral::Kind::kBool) {
    return HeaderError("'fortran_order' is not True or False");
  }
  NpyHeader header;
  header.fortran_order = fortran->boolean;
  if (shape->kind != PyLiteral::Kind::kTuple) {
    return HeaderError("'shape' is not a tuple");
  }
  absl::StatusOr<std::vector<uint64_t>> dims =
      ShapeFromTuple(*shape, "'shape'");
  if (!dims.ok()) return dims.status();
  if (dims->size() > 64) return HeaderError("more than 64 dimensions");
  header.shape = *std::move(dims);
  absl::StatusOr<DType> dtype = DTypeFromDescr(*descr, 0);
  if (!dtype.ok()) return dtype.status();
  absl::StatusOr<uint64_t> item_size = DTypeItemSize(*dtype);
  if (!item_size.ok()) {
    return HeaderError(absl::StrCat("'descr': ", item_size.status().message()));
  }
  header.dtype = *std::move(dtype);
  header.item_size = *item_size;
  uint64_t bytes = header.item_size;
  for (uint64_t dim : header.shape) {
    if (dim != 0 && bytes > std::numeric_limits<uint64_t>::max() / 2 / dim) {
      return HeaderError("the array's size overflows");
    }
    bytes *= dim;
  }
  header.data_bytes = bytes;
  header.data_offset = *end;
  return header;
}

std::string EncodeNpyHeader(const DType& dtype,
                            absl::Span<const uint64_t> shape) {
  const std::string descr = dtype.structured
                                ? DTypeToString(dtype)
                                : absl::StrCat("'", dtype.str, "'");
  std::string header = absl::StrCat(
      "{'descr': ", descr,
      ", 'fortran_order': False, 'shape': ", ShapeRepr(shape), ", }");
  if (!shape.empty()) {
    const size_t digits = absl::StrCat(shape[0]).size();
    if (digits < kGrowthAxisMaxDigits) {
      header.append(kGrowthAxisMaxDigits - digits, ' ');
    }
  }
  // The first version that holds it: 1.0 (latin-1, u16 length), 2.0
  // (latin-1, u32), 3.0 (UTF-8, u32).
  std::string latin1;
  const bool is_latin1 = Utf8ToLatin1(header, latin1);
  for (int major = 1; major <= 3; ++major) {
    if ((major < 3) != is_latin1) continue;
    const std::string& body = major < 3 ? latin1 : header;
    const uint64_t preamble = major == 1 ? kNpyPreambleV1 : kNpyPreambleV2;
    const uint64_t with_newline = body.size() + 1;
    const uint64_t padding =
        kAlignment - (preamble + with_newline) % kAlignment;
    const uint64_t length = with_newline + padding;
    if (major == 1 && length > 0xFFFF) continue;
    std::string out(kMagic);
    out.push_back(static_cast<char>(major));
    out.push_back('\0');
    for (uint64_t i = 0; i < preamble - kNpyPreambleV1 + 2; ++i) {
      out.push_back(static_cast<char>((length >> (8 * i)) & 0xFF));
    }
    out += body;
    out.append(padding, ' ');
    out.push_back('\n');
    return out;
  }
  return {};  // Not reached: version 3.0 holds any header.
}

}  // namespace loaderx::cli
