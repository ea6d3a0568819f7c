#include "vfs/win32/win32_path.h"

#include <climits>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "loaderx/spi/path.h"
#include "vfs/win32/windows_include.h"

namespace loaderx {
namespace {

constexpr std::wstring_view kExtendedPrefix = L"\\\\?\\";
constexpr std::wstring_view kUncExtendedPrefix = L"\\\\?\\UNC\\";
constexpr std::wstring_view kUncPrefix = L"\\\\";
constexpr std::wstring_view kDevicePrefix = L"\\\\.\\";

bool StartsWith(std::wstring_view text, std::wstring_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// How many leading characters of an extended-length path name its root:
// `\\?\C:\`, `\\?\UNC\server\share\`, or `\\?\Volume{...}\`.
size_t RootLength(std::wstring_view path) {
  if (StartsWith(path, kUncExtendedPrefix)) {
    const size_t server_end = path.find(L'\\', kUncExtendedPrefix.size());
    if (server_end == std::wstring_view::npos) return path.size();
    const size_t share_end = path.find(L'\\', server_end + 1);
    return share_end == std::wstring_view::npos ? path.size() : share_end + 1;
  }
  const size_t end = path.find(L'\\', kExtendedPrefix.size());
  return end == std::wstring_view::npos ? path.size() : end + 1;
}

// `GetFullPathNameW` into a string, retrying if the current directory
// changed (and the answer grew) between the two calls.
absl::StatusOr<std::wstring> FullPathName(const std::wstring& path,
                                          absl::string_view original) {
  std::wstring full;
  DWORD capacity = MAX_PATH;
  for (;;) {
    full.resize(capacity);
    const DWORD length =
        ::GetFullPathNameW(path.c_str(), capacity, full.data(), nullptr);
    if (length == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("path ", original, " is not a valid Windows path"));
    }
    if (length < capacity) {
      full.resize(length);
      return full;
    }
    capacity = length;  // Too small: `length` includes the terminator.
  }
}

}  // namespace

absl::StatusOr<std::wstring> Utf8ToWide(absl::string_view utf8) {
  if (utf8.empty()) return std::wstring();
  if (utf8.size() > static_cast<size_t>(INT_MAX)) {
    return absl::InvalidArgumentError("path is too long");
  }
  const int length = static_cast<int>(utf8.size());
  const int wide_length = ::MultiByteToWideChar(
      CP_UTF8, MB_ERR_INVALID_CHARS, utf8.data(), length, nullptr, 0);
  if (wide_length <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", absl::CHexEscape(utf8), "\" is not valid UTF-8"));
  }
  std::wstring wide(static_cast<size_t>(wide_length), L'\0');
  ::MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8.data(), length,
                        wide.data(), wide_length);
  return wide;
}

absl::StatusOr<std::string> WideToUtf8(std::wstring_view wide) {
  if (wide.empty()) return std::string();
  if (wide.size() > static_cast<size_t>(INT_MAX)) {
    return absl::InvalidArgumentError("name is too long");
  }
  const int length = static_cast<int>(wide.size());
  const int utf8_length =
      ::WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, wide.data(), length,
                            nullptr, 0, nullptr, nullptr);
  if (utf8_length <= 0) {
    return absl::InvalidArgumentError(
        "a file name is not valid UTF-16 (an unpaired surrogate)");
  }
  std::string utf8(static_cast<size_t>(utf8_length), '\0');
  ::WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, wide.data(), length,
                        utf8.data(), utf8_length, nullptr, nullptr);
  return utf8;
}

absl::StatusOr<std::wstring> ToWin32Path(absl::string_view path) {
  if (path.empty()) return absl::NotFoundError("empty path");
  // NUL, bytes that are not UTF-8, and what no Windows name may hold.
  if (absl::Status valid = ValidatePath(path); !valid.ok()) return valid;
  absl::StatusOr<std::wstring> wide = Utf8ToWide(path);
  if (!wide.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("path ", wide.status().message()));
  }
  if (StartsWith(*wide, kExtendedPrefix)) return *std::move(wide);
  for (wchar_t& c : *wide) {
    if (c == L'/') c = L'\\';
  }
  absl::StatusOr<std::wstring> full = FullPathName(*wide, path);
  if (!full.ok()) return full.status();
  if (StartsWith(*full, kDevicePrefix)) return full;  // `\\.\` devices.
  std::wstring extended =
      StartsWith(*full, kUncPrefix)
          ? std::wstring(kUncExtendedPrefix) + full->substr(kUncPrefix.size())
          : std::wstring(kExtendedPrefix) + *full;
  // `GetFullPathNameW` keeps a trailing separator; a root keeps its own.
  while (extended.size() > RootLength(extended) && extended.back() == L'\\') {
    extended.pop_back();
  }
  return extended;
}

std::wstring Win32ParentPath(std::wstring_view path) {
  const size_t root = RootLength(path);
  if (path.size() <= root) return std::wstring();
  const size_t last = path.rfind(L'\\');
  if (last == std::wstring_view::npos || last + 1 <= root) {
    return std::wstring(path.substr(0, root));
  }
  return std::wstring(path.substr(0, last));
}

}  // namespace loaderx
