// `Json` is a JSON value built in memory and written compactly or indented:
// what the `--json` output of every inspecting command is made of. Object
// members keep the order they were added in, so output is stable.
// Integers stay exact (uint64 and int64); strings are escaped per RFC 8259
// (bytes that are not valid UTF-8 are written as U+FFFD).

#ifndef LOADERX_TOOLS_CLI_JSON_WRITER_H_
#define LOADERX_TOOLS_CLI_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace loaderx::cli {

class Json {
 public:
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;

  Json() : value_(nullptr) {}  // null
  Json(bool value) : value_(value) {}
  Json(int value) : value_(static_cast<int64_t>(value)) {}
  Json(int64_t value) : value_(value) {}
  Json(uint64_t value) : value_(value) {}
  Json(double value) : value_(value) {}
  Json(const char* value) : value_(std::string(value)) {}
  Json(std::string value) : value_(std::move(value)) {}
  Json(absl::string_view value) : value_(std::string(value)) {}
  Json(Array value) : value_(std::move(value)) {}

  static Json MakeObject() { return Json(Object{}); }
  static Json MakeArray() { return Json(Array{}); }
  // An array of unsigned integers (shapes, indices).
  static Json Numbers(absl::Span<const uint64_t> numbers);

  // Adds a member to an object (the value must be one).
  Json& Set(std::string key, Json value);
  // Appends to an array (the value must be one).
  Json& Push(Json value);

  // The value as JSON text, indented by two spaces per level when `pretty`.
  std::string Dump(bool pretty = true) const;
  // The value for people: a string as it is, null as "-", anything else as
  // compact JSON.
  std::string Text() const;
  // An object's members (empty for anything else).
  const Object& members() const;

 private:
  explicit Json(Object value) : value_(std::move(value)) {}
  void DumpTo(std::string& out, bool pretty, int depth) const;

  std::variant<std::nullptr_t, bool, int64_t, uint64_t, double, std::string,
               Array, Object>
      value_;
};

// `text` as a JSON string literal, quotes included.
std::string JsonQuote(absl::string_view text);

}  // namespace loaderx::cli

#endif  // LOADERX_TOOLS_CLI_JSON_WRITER_H_
