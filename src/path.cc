#include "loaderx/spi/path.h"

#include <cstdint>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace loaderx {
namespace {

// Windows accepts `\` as well as `/` between components, and users write
// paths with it ("C:\data\store"); elsewhere `\` is an ordinary character.
#ifdef _WIN32
constexpr absl::string_view kSeparators = "/\\";
#else
constexpr absl::string_view kSeparators = "/";
#endif

bool IsSeparator(char c) {
  return kSeparators.find(c) != absl::string_view::npos;
}

// Whether `path` is a drive and its root separator ("C:/"): the root of
// the drive, like "/" elsewhere.
bool IsDriveRoot(absl::string_view path) {
#ifdef _WIN32
  return path.size() == 3 && path[1] == ':' && IsSeparator(path[2]);
#else
  return false;
#endif
}

absl::Status InvalidPath(absl::string_view path, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("path ", why, ": \"", absl::CHexEscape(path), "\""));
}

#ifdef _WIN32
// The length of the UTF-8 sequence at `text[at]`, or 0 if none starts
// there (overlong forms, surrogates and values past U+10FFFF included).
size_t Utf8SequenceLength(absl::string_view text, size_t at) {
  const auto byte = [&](size_t i) {
    return static_cast<unsigned char>(text[i]);
  };
  const unsigned char lead = byte(at);
  if (lead < 0x80) return 1;
  size_t length;
  uint32_t value;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
    value = lead & 0x1f;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    value = lead & 0x0f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    value = lead & 0x07;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  for (size_t i = 1; i < length; ++i) {
    if ((byte(at + i) & 0xc0) != 0x80) return 0;
    value = (value << 6) | (byte(at + i) & 0x3f);
  }
  const uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (value < smallest[length] || value > 0x10ffff ||
      (value >= 0xd800 && value <= 0xdfff)) {
    return 0;
  }
  return length;
}

absl::Status ValidateWindowsPath(absl::string_view path) {
  constexpr absl::string_view kExtendedPrefix = "\\\\?\\";
  // `\\?\` (and `\\?\UNC\`) is the one place a `?` may stand.
  const size_t body =
      absl::StartsWith(path, kExtendedPrefix) ? kExtendedPrefix.size() : 0;
  // A drive letter's colon: "C:..." (after the prefix, if any).
  const size_t drive_colon =
      path.size() > body + 1 && path[body + 1] == ':' &&
              ((path[body] >= 'A' && path[body] <= 'Z') ||
               (path[body] >= 'a' && path[body] <= 'z'))
          ? body + 1
          : absl::string_view::npos;
  for (size_t at = body; at < path.size();) {
    const size_t length = Utf8SequenceLength(path, at);
    if (length == 0) {
      return InvalidPath(path, absl::StrCat("is not UTF-8 at byte ", at));
    }
    const char c = path[at];
    if (length == 1 && static_cast<unsigned char>(c) < 0x20) {
      return InvalidPath(
          path, absl::StrCat("holds control character ", static_cast<int>(c),
                             " at byte ", at, ", which Windows cannot name"));
    }
    if (length == 1 &&
        absl::string_view("<>\"|?*").find(c) != absl::string_view::npos) {
      return InvalidPath(
          path, absl::StrCat("holds '", std::string(1, c), "' at byte ", at,
                             ", which Windows cannot name"));
    }
    if (c == ':' && at != drive_colon) {
      return InvalidPath(
          path, absl::StrCat("holds ':' at byte ", at,
                             ", which Windows reads as a data stream"));
    }
    at += length;
  }
  return absl::OkStatus();
}
#endif  // _WIN32

}  // namespace

absl::Status ValidatePath(absl::string_view path) {
  const size_t nul = path.find('\0');
  if (nul != absl::string_view::npos) {
    return InvalidPath(path, absl::StrCat("contains a NUL byte (at byte ", nul,
                                          "), which no file name can hold"));
  }
#ifdef _WIN32
  return ValidateWindowsPath(path);
#else
  return absl::OkStatus();
#endif
}

std::string ParentDirectory(absl::string_view path) {
  const size_t slash = path.find_last_of(kSeparators);
  if (slash == absl::string_view::npos) return "";
  if (slash == 0) return std::string(path.substr(0, 1));
  if (IsDriveRoot(path.substr(0, slash + 1))) {
    return std::string(path.substr(0, slash + 1));
  }
  return std::string(path.substr(0, slash));
}

absl::string_view BaseName(absl::string_view path) {
  const size_t slash = path.find_last_of(kSeparators);
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

std::string JoinPath(absl::string_view directory, absl::string_view name) {
  if (directory.empty()) return std::string(name);
  if (IsSeparator(directory.back())) return absl::StrCat(directory, name);
  return absl::StrCat(directory, "/", name);
}

}  // namespace loaderx
