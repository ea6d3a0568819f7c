#include "src/typed_header.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "loaderx/spi/little_endian.h"

namespace loaderx {
namespace {

constexpr char kMagic[4] = {'Z', 'R', 'T', 'Y'};
constexpr uint8_t kVersion = 1;
constexpr size_t kFixedBytes = 32;

}  // namespace

std::string EncodeTypedHeader(const TypedHeader& header) {
  std::string out(kFixedBytes, '\0');
  std::memcpy(out.data(), kMagic, sizeof(kMagic));
  out[4] = static_cast<char>(kVersion);
  out[5] = static_cast<char>(header.kind);
  StoreLittle<uint64_t>(&out[8], header.record_width);
  StoreLittle<uint64_t>(&out[16], header.identity.size(), 4);
  return out + header.identity;
}

absl::StatusOr<TypedHeader> DecodeTypedHeader(absl::string_view bytes,
                                              absl::string_view path) {
  if (bytes.size() < kFixedBytes ||
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    return absl::DataLossError(
        absl::StrCat(path, ": not a loaderx typed store header"));
  }
  if (static_cast<uint8_t>(bytes[4]) != kVersion) {
    return absl::DataLossError(absl::StrCat(
        path, ": typed header version ",
        static_cast<int>(static_cast<uint8_t>(bytes[4])), " is not supported"));
  }
  for (size_t i : {6, 7}) {
    if (bytes[i] != 0) {
      return absl::DataLossError(
          absl::StrCat(path, ": reserved byte ", i, " is not zero"));
    }
  }
  for (size_t i = 20; i < kFixedBytes; ++i) {
    if (bytes[i] != 0) {
      return absl::DataLossError(
          absl::StrCat(path, ": reserved byte ", i, " is not zero"));
    }
  }
  const uint64_t identity_bytes = LoadLittle<uint64_t>(&bytes[16], 4);
  if (identity_bytes != bytes.size() - kFixedBytes) {
    return absl::DataLossError(absl::StrCat(
        path, ": the header declares ", identity_bytes,
        " identity bytes, the file holds ", bytes.size() - kFixedBytes));
  }
  TypedHeader header;
  header.kind = static_cast<uint8_t>(bytes[5]);
  header.record_width = LoadLittle<uint64_t>(&bytes[8]);
  header.identity = std::string(bytes.substr(kFixedBytes));
  return header;
}

}  // namespace loaderx
