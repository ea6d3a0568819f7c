#include "tools/cli/json_writer.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace loaderx::cli {
namespace {

// The length of the UTF-8 sequence starting at `text[i]`, or 0 if it is
// not a valid one.
size_t Utf8SequenceLength(absl::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t lead = byte(i);
  size_t length;
  uint32_t minimum;
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) {
    length = 2, minimum = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, minimum = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, minimum = 0x10000;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  uint32_t code = lead & (0x7F >> length);
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  if (code < minimum || code > 0x10FFFF || (code >= 0xD800 && code < 0xE000)) {
    return 0;
  }
  return length;
}

void Indent(std::string& out, bool pretty, int depth) {
  if (!pretty) return;
  out.push_back('\n');
  out.append(static_cast<size_t>(depth) * 2, ' ');
}

}  // namespace

std::string JsonQuote(absl::string_view text) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<uint8_t>(c) < 0x20) {
          absl::StrAppendFormat(&out, "\\u%04x", static_cast<int>(c));
          break;
        }
        const size_t length = Utf8SequenceLength(text, i);
        if (length == 0) {
          out += "\\ufffd";
          ++i;
          continue;
        }
        out.append(text.data() + i, length);
        i += length;
        continue;
    }
    ++i;
  }
  out.push_back('"');
  return out;
}

Json Json::Numbers(absl::Span<const uint64_t> numbers) {
  Array array(numbers.begin(), numbers.end());
  return Json(std::move(array));
}

Json& Json::Set(std::string key, Json value) {
  std::get<Object>(value_).emplace_back(std::move(key), std::move(value));
  return *this;
}

Json& Json::Push(Json value) {
  std::get<Array>(value_).push_back(std::move(value));
  return *this;
}

std::string Json::Text() const {
  if (const std::string* s = std::get_if<std::string>(&value_)) return *s;
  if (std::holds_alternative<std::nullptr_t>(value_)) return "-";
  return Dump(false);
}

const Json::Object& Json::members() const {
  static const Object* const kEmpty = new Object();
  const Object* object = std::get_if<Object>(&value_);
  return object != nullptr ? *object : *kEmpty;
}

std::string Json::Dump(bool pretty) const {
  std::string out;
  DumpTo(out, pretty, 0);
  return out;
}

void Json::DumpTo(std::string& out, bool pretty, int depth) const {
  if (std::holds_alternative<std::nullptr_t>(value_)) {
    out += "null";
  } else if (const bool* b = std::get_if<bool>(&value_)) {
    out += *b ? "true" : "false";
  } else if (const int64_t* i = std::get_if<int64_t>(&value_)) {
    absl::StrAppend(&out, *i);
  } else if (const uint64_t* u = std::get_if<uint64_t>(&value_)) {
    absl::StrAppend(&out, *u);
  } else if (const double* d = std::get_if<double>(&value_)) {
    // JSON has no NaN or infinity.
    if (std::isfinite(*d)) {
      absl::StrAppendFormat(&out, "%.17g", *d);
    } else {
      out += "null";
    }
  } else if (const std::string* s = std::get_if<std::string>(&value_)) {
    out += JsonQuote(*s);
  } else if (const Array* array = std::get_if<Array>(&value_)) {
    // Arrays of scalars (shapes, indices) stay on one line.
    bool nested = false;
    for (const Json& element : *array) {
      nested = nested || std::holds_alternative<Array>(element.value_) ||
               std::holds_alternative<Object>(element.value_);
    }
    const bool indent = pretty && nested;
    out.push_back('[');
    for (size_t k = 0; k < array->size(); ++k) {
      if (k > 0) out += indent ? "," : ", ";
      Indent(out, indent, depth + 1);
      (*array)[k].DumpTo(out, indent, depth + 1);
    }
    if (indent && !array->empty()) Indent(out, indent, depth);
    out.push_back(']');
  } else {
    const Object& object = std::get<Object>(value_);
    out.push_back('{');
    for (size_t k = 0; k < object.size(); ++k) {
      if (k > 0) out.push_back(',');
      Indent(out, pretty, depth + 1);
      out += JsonQuote(object[k].first);
      out += pretty ? ": " : ":";
      object[k].second.DumpTo(out, pretty, depth + 1);
    }
    if (!object.empty()) Indent(out, pretty, depth);
    out.push_back('}');
  }
}

}  // namespace loaderx::cli
