#include "src/typed_header.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "loaderx/spi/little_endian.h"

namespace loaderx {
namespace {

constexpr char kMagic[4] = {'L', 'X', 'S', 'T'};
constexpr uint8_t kVersion = 1;
constexpr size_t kFixedBytes = 32;

// Field offsets.
constexpr size_t kVersionAt = 4;
constexpr size_t kKindAt = 5;
constexpr size_t kRecordBytesAt = 8;
constexpr size_t kIdentityLengthAt = 16;
constexpr size_t kReservedRanges[][2] = {{6, 8}, {24, 32}};

}  // namespace

std::string EncodeTypedHeader(const TypedHeader& header) {
  std::string out(kFixedBytes, '\0');
  std::memcpy(out.data(), kMagic, sizeof(kMagic));
  out[kVersionAt] = static_cast<char>(kVersion);
  out[kKindAt] = static_cast<char>(header.kind);
  StoreLittle<uint64_t>(&out[kRecordBytesAt], header.record_bytes);
  StoreLittle<uint64_t>(&out[kIdentityLengthAt], header.identity.size());
  return out + header.identity;
}

absl::StatusOr<TypedHeader> DecodeTypedHeader(absl::string_view bytes,
                                              absl::string_view path) {
  if (bytes.size() < kFixedBytes) {
    return absl::DataLossError(
        absl::StrCat(path, ": a typed store header is at least ", kFixedBytes,
                     " bytes, this file has ", bytes.size()));
  }
  if (std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    return absl::DataLossError(
        absl::StrCat(path, ": not a loaderx typed store header (magic \"",
                     absl::CHexEscape(bytes.substr(0, sizeof(kMagic))),
                     "\", want \"LXST\")"));
  }
  const uint8_t version = static_cast<uint8_t>(bytes[kVersionAt]);
  if (version != kVersion) {
    return absl::DataLossError(absl::StrCat(
        path, ": typed header version ", version,
        " is not supported (this build reads version ", kVersion, ")"));
  }
  for (const auto& range : kReservedRanges) {
    for (size_t i = range[0]; i < range[1]; ++i) {
      if (bytes[i] != 0) {
        return absl::DataLossError(absl::StrCat(path, ": reserved byte ", i,
                                                " is not zero (corrupted)"));
      }
    }
  }
  const uint64_t identity_length =
      LoadLittle<uint64_t>(&bytes[kIdentityLengthAt]);
  if (identity_length != bytes.size() - kFixedBytes) {
    return absl::DataLossError(absl::StrCat(
        path, ": the header declares ", identity_length,
        " identity bytes, the file holds ", bytes.size() - kFixedBytes));
  }
  TypedHeader header;
  header.kind = static_cast<uint8_t>(bytes[kKindAt]);
  header.record_bytes = LoadLittle<uint64_t>(&bytes[kRecordBytesAt]);
  header.identity = std::string(bytes.substr(kFixedBytes));
  return header;
}

}  // namespace loaderx
