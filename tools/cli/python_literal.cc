#include "tools/cli/python_literal.h"

#include <limits>
#include <string>
#include <tuple>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace loaderx::cli {
namespace {

class Parser {
 public:
  Parser(absl::string_view text, int max_depth)
      : text_(text), max_depth_(max_depth) {}

  absl::StatusOr<PyLiteral> ParseAll() {
    absl::StatusOr<PyLiteral> value = ParseValue(0);
    if (!value.ok()) return value;
    SkipSpace();
    if (position_ != text_.size())
      return Error("unexpected text after the literal");
    return value;
  }

 private:
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " at offset ", position_, " of the header"));
  }

  void SkipSpace() {
    while (position_ < text_.size() &&
           (text_[position_] == ' ' || text_[position_] == '\t' ||
            text_[position_] == '\n' || text_[position_] == '\r')) {
      ++position_;
    }
  }

  bool Consume(absl::string_view token) {
    if (text_.substr(position_, token.size()) != token) return false;
    position_ += token.size();
    return true;
  }

  absl::StatusOr<PyLiteral> ParseValue(int depth) {
    if (depth > max_depth_) return Error("literal nested too deep");
    SkipSpace();
    if (position_ >= text_.size()) return Error("unexpected end");
    const char c = text_[position_];
    PyLiteral value;
    if (c == '\'' || c == '"') {
      value.kind = PyLiteral::Kind::kString;
      absl::StatusOr<std::string> text = ParseString();
      if (!text.ok()) return text.status();
      value.text = *std::move(text);
      return value;
    }
    if (absl::ascii_isdigit(static_cast<unsigned char>(c))) return ParseInt();
    if (c == '(' || c == '[') return ParseSequence(depth);
    if (c == '{') return ParseDict(depth);
    for (auto [word, kind, boolean] :
         {std::tuple{"True", PyLiteral::Kind::kBool, true},
          std::tuple{"False", PyLiteral::Kind::kBool, false},
          std::tuple{"None", PyLiteral::Kind::kNone, false}}) {
      if (Consume(word)) {
        if (position_ < text_.size() &&
            (absl::ascii_isalnum(
                 static_cast<unsigned char>(text_[position_])) ||
             text_[position_] == '_')) {
          return Error("unknown name");
        }
        value.kind = kind;
        value.boolean = boolean;
        return value;
      }
    }
    return Error(absl::StrCat("unexpected '", text_.substr(position_, 1), "'"));
  }

  absl::StatusOr<PyLiteral> ParseInt() {
    PyLiteral value;
    value.kind = PyLiteral::Kind::kInt;
    const size_t start = position_;
    while (position_ < text_.size() &&
           absl::ascii_isdigit(static_cast<unsigned char>(text_[position_]))) {
      const uint64_t digit = text_[position_] - '0';
      if (value.integer > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
        return Error("integer too large");
      }
      value.integer = value.integer * 10 + digit;
      ++position_;
    }
    if (text_[start] == '0' && position_ - start > 1) {
      return Error("integer with a leading zero");
    }
    Consume("L");  // Python 2's long.
    return value;
  }

  // Reads `count` hex digits as a code point.
  absl::StatusOr<uint32_t> ParseHex(int count) {
    uint32_t code = 0;
    for (int i = 0; i < count; ++i, ++position_) {
      if (position_ >= text_.size()) return Error("short escape");
      const char c = text_[position_];
      int digit;
      if (c >= '0' && c <= '9') {
        digit = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        digit = c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        digit = c - 'A' + 10;
      } else {
        return Error("bad hex digit in an escape");
      }
      code = code * 16 + digit;
    }
    if (code > 0x10FFFF || (code >= 0xD800 && code < 0xE000)) {
      return Error("escape is not a code point");
    }
    return code;
  }

  absl::StatusOr<std::string> ParseString() {
    const char quote = text_[position_++];
    std::string out;
    while (true) {
      if (position_ >= text_.size()) return Error("unterminated string");
      const char c = text_[position_++];
      if (c == quote) return out;
      if (c == '\n') return Error("newline in a string");
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (position_ >= text_.size()) return Error("unterminated string");
      const char escape = text_[position_++];
      switch (escape) {
        case '\\':
        case '\'':
        case '"':
          out.push_back(escape);
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'x':
        case 'u':
        case 'U': {
          absl::StatusOr<uint32_t> code = ParseHex(escape == 'x'   ? 2
                                                   : escape == 'u' ? 4
                                                                   : 8);
          if (!code.ok()) return code.status();
          AppendUtf8(*code, out);
          break;
        }
        default:
          return Error(
              absl::StrCat("unknown escape '\\", std::string(1, escape), "'"));
      }
    }
  }

  // A tuple or list: "(" [value ("," value)* [","]] ")"; a one-item tuple
  // needs its comma, as in Python.
  absl::StatusOr<PyLiteral> ParseSequence(int depth) {
    const char open = text_[position_++];
    const char close = open == '(' ? ')' : ']';
    PyLiteral value;
    value.kind = open == '(' ? PyLiteral::Kind::kTuple : PyLiteral::Kind::kList;
    bool trailing_comma = false;
    while (true) {
      SkipSpace();
      if (Consume(std::string(1, close))) break;
      if (!value.items.empty() && !trailing_comma) return Error("expected ','");
      absl::StatusOr<PyLiteral> item = ParseValue(depth + 1);
      if (!item.ok()) return item.status();
      value.items.push_back(*std::move(item));
      SkipSpace();
      trailing_comma = Consume(",");
      if (!trailing_comma) {
        SkipSpace();
        if (!Consume(std::string(1, close)))
          return Error(absl::StrCat("expected '", std::string(1, close), "'"));
        break;
      }
    }
    if (value.kind == PyLiteral::Kind::kTuple && value.items.size() == 1 &&
        !trailing_comma) {
      return value.items[0];  // "(x)" is x, as in Python.
    }
    return value;
  }

  absl::StatusOr<PyLiteral> ParseDict(int depth) {
    ++position_;  // '{'
    PyLiteral value;
    value.kind = PyLiteral::Kind::kDict;
    while (true) {
      SkipSpace();
      if (Consume("}")) return value;
      if (position_ >= text_.size() ||
          (text_[position_] != '\'' && text_[position_] != '"')) {
        return Error("dict keys must be strings");
      }
      absl::StatusOr<std::string> key = ParseString();
      if (!key.ok()) return key.status();
      if (value.Find(*key) != nullptr) {
        return Error(absl::StrCat("duplicate key '", *key, "'"));
      }
      SkipSpace();
      if (!Consume(":")) return Error("expected ':'");
      absl::StatusOr<PyLiteral> item = ParseValue(depth + 1);
      if (!item.ok()) return item.status();
      value.keys.push_back(*std::move(key));
      value.items.push_back(*std::move(item));
      SkipSpace();
      if (Consume(",")) continue;
      SkipSpace();
      if (!Consume("}")) return Error("expected '}'");
      return value;
    }
  }

  absl::string_view text_;
  const int max_depth_;
  size_t position_ = 0;
};

}  // namespace

const PyLiteral* PyLiteral::Find(absl::string_view key) const {
  if (kind != Kind::kDict) return nullptr;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == key) return &items[i];
  }
  return nullptr;
}

void AppendUtf8(uint32_t code, std::string& out) {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
}

absl::StatusOr<PyLiteral> ParsePyLiteral(absl::string_view text,
                                         int max_depth) {
  return Parser(text, max_depth).ParseAll();
}

}  // namespace loaderx::cli
