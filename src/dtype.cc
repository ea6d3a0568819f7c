#include "loaderx/dtype.h"

#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace loaderx {
namespace {

// Item sizes stay below 2^63, far past numpy's own limit (2^31).
constexpr uint64_t kMaxItemSize = uint64_t{1} << 63;

bool CheckedMultiply(uint64_t a, uint64_t b, uint64_t* out) {
  if (a != 0 && b > kMaxItemSize / a) return false;
  *out = a * b;
  return true;
}

// A decimal count as numpy prints it: digits only, no leading zeros.
bool ParseCount(absl::string_view digits, uint64_t* out) {
  if (digits.empty() || digits.size() > 18) return false;
  if (digits.size() > 1 && digits[0] == '0') return false;
  uint64_t value = 0;
  for (char c : digits) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = value;
  return true;
}

// A datetime unit as numpy's `dtype.str` spells it: "[ns]", "[10ms]".
bool IsDatetimeUnit(absl::string_view bracketed) {
  if (bracketed.size() < 3 || bracketed.front() != '[' ||
      bracketed.back() != ']') {
    return false;
  }
  absl::string_view unit = bracketed.substr(1, bracketed.size() - 2);
  size_t digits = 0;
  while (digits < unit.size() &&
         absl::ascii_isdigit(static_cast<unsigned char>(unit[digits]))) {
    ++digits;
  }
  if (digits > 0) {
    uint64_t multiplier = 0;
    if (!ParseCount(unit.substr(0, digits), &multiplier) || multiplier == 0) {
      return false;
    }
  }
  static const std::set<absl::string_view> kUnits = {
      "Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"};
  return kUnits.count(unit.substr(digits)) > 0;
}

absl::StatusOr<uint64_t> SimpleItemSize(absl::string_view str) {
  auto invalid = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dtype \"", absl::CHexEscape(str), "\" is not supported: ", why,
        " (want numpy's dtype.str, e.g. \"<f4\", \"|u1\", \"<U8\" or "
        "\"<M8[ns]\")"));
  };
  // numpy spells object dtypes "|O" (no size).
  if (str.size() >= 2 && str[1] == 'O') {
    return invalid("object dtypes cannot be persisted");
  }
  if (str.size() < 3) return invalid("too short");
  const char order = str[0];
  const char kind = str[1];
  absl::string_view size_text = str.substr(2);
  absl::string_view unit;
  if (kind == 'M' || kind == 'm') {
    const size_t bracket = size_text.find('[');
    if (bracket != absl::string_view::npos) {
      unit = size_text.substr(bracket);
      size_text = size_text.substr(0, bracket);
    }
  }
  if (order != '<' && order != '>' && order != '|') {
    return invalid("unknown byte order");
  }
  uint64_t size = 0;
  if (!ParseCount(size_text, &size)) return invalid("no item size");
  uint64_t item_size = size;
  bool valid_size = false;
  switch (kind) {
    case 'b':
      valid_size = size == 1;
      break;
    case 'i':
    case 'u':
      valid_size = size == 1 || size == 2 || size == 4 || size == 8;
      break;
    case 'f':
      valid_size =
          size == 2 || size == 4 || size == 8 || size == 12 || size == 16;
      break;
    case 'c':
      valid_size = size == 8 || size == 16 || size == 24 || size == 32;
      break;
    case 'S':
    case 'V':
      valid_size = true;
      break;
    case 'U':  // UCS-4 code points.
      valid_size = CheckedMultiply(size, 4, &item_size);
      break;
    case 'M':
    case 'm':
      valid_size = size == 8;
      if (!unit.empty() && !IsDatetimeUnit(unit)) {
        return invalid("unknown datetime unit");
      }
      break;
    default:
      return invalid(
          "unknown kind (numpy's kinds are b, i, u, f, c, S, U, V, M, m)");
  }
  if (!valid_size) return invalid("no such item size for this kind");
  // numpy writes '|' exactly where byte order does not apply.
  const bool orderless = kind == 'b' || kind == 'S' || kind == 'V' ||
                         ((kind == 'i' || kind == 'u') && size == 1);
  if (orderless != (order == '|')) {
    return invalid(orderless ? "this kind takes '|' for its byte order"
                             : "this kind needs '<' or '>' for its byte order");
  }
  return item_size;
}

// UTF-8 as Python's str decoding accepts it (no surrogates, no overlongs).
bool IsUtf8(absl::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char lead = static_cast<unsigned char>(text[i]);
    size_t extra = 0;
    uint32_t point = 0;
    if (lead < 0x80) {
      ++i;
      continue;
    } else if ((lead & 0xE0) == 0xC0) {
      extra = 1, point = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      extra = 2, point = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      extra = 3, point = lead & 0x07;
    } else {
      return false;
    }
    if (i + extra >= text.size()) return false;  // Truncated.
    for (size_t k = 1; k <= extra; ++k) {
      const unsigned char next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      point = (point << 6) | (next & 0x3F);
    }
    static constexpr uint32_t kSmallest[] = {0, 0x80, 0x800, 0x10000};
    if (point < kSmallest[extra] || point > 0x10FFFF ||
        (point >= 0xD800 && point <= 0xDFFF)) {
      return false;
    }
    i += extra + 1;
  }
  return true;
}

absl::StatusOr<uint64_t> ItemSizeAt(const DType& dtype, int depth);

absl::StatusOr<uint64_t> FieldSize(const DTypeField& field, size_t position,
                                   int depth) {
  auto invalid = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("structured dtype field ", position, " (\"",
                     absl::CHexEscape(field.name), "\"): ", why));
  };
  if (!IsUtf8(field.name) || (field.has_title && !IsUtf8(field.title))) {
    return invalid("names and titles must be UTF-8 text");
  }
  if (field.name.empty()) {
    // Padding, as `dtype.descr` writes it: ('', '|V<n>').
    if (field.has_title || field.type.structured || !field.shape.empty() ||
        !absl::StartsWith(field.type.str, "|V")) {
      return invalid("a field without a name must be padding ('', '|V<n>')");
    }
  }
  absl::StatusOr<uint64_t> size = ItemSizeAt(field.type, depth + 1);
  if (!size.ok()) return size.status();
  uint64_t total = *size;
  for (uint64_t dim : field.shape) {
    if (!CheckedMultiply(total, dim, &total)) {
      return invalid("the subarray is too large");
    }
  }
  return total;
}

absl::StatusOr<uint64_t> ItemSizeAt(const DType& dtype, int depth) {
  if (!dtype.structured) {
    if (!dtype.fields.empty()) {
      return absl::InvalidArgumentError("a simple dtype has no fields");
    }
    return SimpleItemSize(dtype.str);
  }
  if (!dtype.str.empty()) {
    return absl::InvalidArgumentError("a structured dtype has no dtype.str");
  }
  if (depth >= kMaxDTypeDepth) {
    return absl::InvalidArgumentError(absl::StrCat(
        "structured dtypes nest at most ", kMaxDTypeDepth, " levels deep"));
  }
  // Names and titles share numpy's `fields` mapping: all must differ.
  std::set<std::string> keys;
  uint64_t total = 0;
  for (size_t i = 0; i < dtype.fields.size(); ++i) {
    const DTypeField& field = dtype.fields[i];
    absl::StatusOr<uint64_t> size = FieldSize(field, i, depth);
    if (!size.ok()) return size.status();
    if (!field.name.empty() && !keys.insert(field.name).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "structured dtype: field name \"", absl::CHexEscape(field.name),
          "\" occurs more than once"));
    }
    if (field.has_title && !keys.insert(field.title).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "structured dtype: title \"", absl::CHexEscape(field.title),
          "\" is already a field's name or title"));
    }
    if (*size > kMaxItemSize - total) {
      return absl::InvalidArgumentError("structured dtype: too large");
    }
    total += *size;
  }
  return total;
}

// Python's repr of a str: single quotes, backslash escapes.
std::string PythonQuote(absl::string_view text) {
  std::string out = "'";
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '\'' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7F) {
      absl::StrAppend(&out, "\\x", absl::Hex(u, absl::kZeroPad2));
    } else {
      out += c;
    }
  }
  return out + "'";
}

void AppendPython(const DType& dtype, std::string* out) {
  if (!dtype.structured) {
    out->append(PythonQuote(dtype.str));
    return;
  }
  out->append("[");
  for (size_t i = 0; i < dtype.fields.size(); ++i) {
    const DTypeField& field = dtype.fields[i];
    if (i > 0) out->append(", ");
    out->append("(");
    if (field.has_title) {
      absl::StrAppend(out, "(", PythonQuote(field.title), ", ",
                      PythonQuote(field.name), ")");
    } else {
      out->append(PythonQuote(field.name));
    }
    out->append(", ");
    AppendPython(field.type, out);
    if (!field.shape.empty()) {
      absl::StrAppend(out, ", (", absl::StrJoin(field.shape, ", "),
                      field.shape.size() == 1 ? ",)" : ")");
    }
    out->append(")");
  }
  out->append("]");
}

}  // namespace

DType DType::Simple(std::string str) {
  DType dtype;
  dtype.str = std::move(str);
  return dtype;
}

DType DType::Structured(std::vector<DTypeField> fields) {
  DType dtype;
  dtype.structured = true;
  dtype.fields = std::move(fields);
  return dtype;
}

bool operator==(const DType& a, const DType& b) {
  return a.structured == b.structured && a.str == b.str && a.fields == b.fields;
}

bool operator==(const DTypeField& a, const DTypeField& b) {
  return a.name == b.name && a.has_title == b.has_title &&
         (!a.has_title || a.title == b.title) && a.type == b.type &&
         a.shape == b.shape;
}

absl::StatusOr<uint64_t> DTypeItemSize(const DType& dtype) {
  return ItemSizeAt(dtype, 0);
}

std::string DTypeToString(const DType& dtype) {
  if (!dtype.structured) return dtype.str;
  std::string out;
  AppendPython(dtype, &out);
  return out;
}

}  // namespace loaderx
