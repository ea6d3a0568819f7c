#include "tests/fuzz/file_bundle.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "loaderx/spi/little_endian.h"

namespace loaderx::fuzz {

FileBundle DecodeBundle(absl::string_view bytes) {
  FileBundle files;
  while (!bytes.empty()) {
    const size_t name_length = static_cast<uint8_t>(bytes[0]);
    bytes.remove_prefix(1);
    if (name_length == 0 || name_length > bytes.size()) break;
    std::string name(bytes.substr(0, name_length));
    bytes.remove_prefix(name_length);
    if (bytes.size() < 4) break;
    const uint32_t size = LoadLittle<uint32_t>(bytes.data());
    bytes.remove_prefix(4);
    const size_t taken = std::min<size_t>(size, bytes.size());
    files.emplace_back(std::move(name), std::string(bytes.substr(0, taken)));
    bytes.remove_prefix(taken);
  }
  return files;
}

std::string EncodeBundle(const FileBundle& files) {
  std::string out;
  for (const auto& [name, contents] : files) {
    out.push_back(static_cast<char>(name.size()));
    out += name;
    char size[4];
    StoreLittle<uint32_t>(size, static_cast<uint32_t>(contents.size()));
    out.append(size, sizeof(size));
    out += contents;
  }
  return out;
}

}  // namespace loaderx::fuzz
