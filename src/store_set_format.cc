#include "src/store_set_format.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "loaderx/spi/little_endian.h"
#include "src/checksum.h"

namespace loaderx::store_set_format {
namespace {

absl::Status CheckPath(absl::string_view path, size_t member) {
  if (path.empty() || path.size() > kMaxPathBytes ||
      path.find('\0') != absl::string_view::npos || path.front() == '/') {
    return absl::InvalidArgumentError(absl::StrCat(
        "store set: member ", member, "'s path '", path, "' must be 1 to ",
        kMaxPathBytes, " bytes, relative to the manifest, without NUL"));
  }
  return absl::OkStatus();
}

void PutU64(std::string& out, uint64_t value) {
  char bytes[8];
  StoreLittle<uint64_t>(bytes, value);
  out.append(bytes, 8);
}

}  // namespace

uint64_t Manifest::records() const {
  uint64_t total = 0;
  for (const Member& member : members) total += member.records;
  return total;
}

absl::StatusOr<std::string> EncodeManifest(const Manifest& manifest) {
  if (manifest.members.empty() || manifest.members.size() > kMaxMembers) {
    return absl::InvalidArgumentError(
        absl::StrCat("store set: ", manifest.members.size(),
                     " members; a set has 1 to ", kMaxMembers));
  }
  uint64_t total = 0;
  for (size_t i = 0; i < manifest.members.size(); ++i) {
    const Member& member = manifest.members[i];
    if (absl::Status status = CheckPath(member.path, i); !status.ok()) {
      return status;
    }
    if (total + member.records < total) {
      return absl::InvalidArgumentError(
          absl::StrCat("store set: the record counts overflow at member ", i));
    }
    total += member.records;
  }
  std::string out(kMagic, 4);
  out.push_back(static_cast<char>(kVersion));
  out.append(3, '\0');
  PutU64(out, manifest.members.size());
  PutU64(out, total);
  PutU64(out, manifest.identity);
  for (const Member& member : manifest.members) {
    PutU64(out, member.records);
    PutU64(out, member.fingerprint);
    char length[4];
    StoreLittle<uint32_t>(length, static_cast<uint32_t>(member.path.size()));
    out.append(length, 4);
    out.append(member.path);
  }
  PutU64(out, Checksum(out));
  return out;
}

absl::StatusOr<Manifest> DecodeManifest(absl::string_view bytes,
                                        absl::string_view path) {
  auto damaged = [&](absl::string_view what) {
    return absl::DataLossError(absl::StrCat(
        path, ": not a loaderx store-set manifest (LXSS v1): ", what));
  };
  if (bytes.size() < kHeaderBytes + kChecksumBytes) {
    return damaged(absl::StrCat("only ", bytes.size(), " bytes"));
  }
  if (std::memcmp(bytes.data(), kMagic, 4) != 0) return damaged("bad magic");
  if (static_cast<uint8_t>(bytes[4]) != kVersion) {
    return damaged(absl::StrCat(
        "version ", static_cast<int>(static_cast<uint8_t>(bytes[4])),
        ", this reader knows ", kVersion));
  }
  const size_t body = bytes.size() - kChecksumBytes;
  if (LoadLittle<uint64_t>(bytes.data() + body) !=
      Checksum(bytes.substr(0, body))) {
    return damaged("checksum mismatch");
  }
  if (bytes[5] != 0 || bytes[6] != 0 || bytes[7] != 0) {
    return damaged("nonzero reserved bytes");
  }
  const uint64_t count = LoadLittle<uint64_t>(bytes.data() + 8);
  const uint64_t total = LoadLittle<uint64_t>(bytes.data() + 16);
  if (count == 0 || count > kMaxMembers) {
    return damaged(absl::StrCat(count, " members"));
  }
  Manifest manifest;
  manifest.identity = LoadLittle<uint64_t>(bytes.data() + 24);
  manifest.members.reserve(count);
  size_t at = kHeaderBytes;
  uint64_t sum = 0;
  for (uint64_t i = 0; i < count; ++i) {
    if (body - at < kMemberFixedBytes) {
      return damaged(absl::StrCat("member ", i, " is cut off"));
    }
    Member member;
    member.records = LoadLittle<uint64_t>(bytes.data() + at);
    member.fingerprint = LoadLittle<uint64_t>(bytes.data() + at + 8);
    const uint32_t length = LoadLittle<uint32_t>(bytes.data() + at + 16);
    at += kMemberFixedBytes;
    if (length > body - at) {
      return damaged(absl::StrCat("member ", i, "'s path is cut off"));
    }
    member.path = std::string(bytes.substr(at, length));
    at += length;
    if (!CheckPath(member.path, i).ok()) {
      return damaged(absl::StrCat("member ", i, " has a bad path"));
    }
    if (sum + member.records < sum) {
      return damaged(absl::StrCat("record counts overflow at member ", i));
    }
    sum += member.records;
    manifest.members.push_back(std::move(member));
  }
  if (at != body) {
    return damaged(absl::StrCat(body - at, " bytes after the last member"));
  }
  if (sum != total) {
    return damaged(absl::StrCat("records field ", total,
                                " is not the members' sum ", sum));
  }
  return manifest;
}

}  // namespace loaderx::store_set_format
