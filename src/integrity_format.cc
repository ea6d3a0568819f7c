#include "src/integrity_format.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "loaderx/spi/little_endian.h"
#include "src/checksum.h"

namespace loaderx::integrity_format {
namespace {

constexpr char kSlotMagic[4] = {'L', 'X', 'C', 'S'};
constexpr char kSealMagic[4] = {'L', 'X', 'S', 'L'};
constexpr uint8_t kVersion = 1;
constexpr uint8_t kTypedHeaderFlag = 1;
constexpr uint8_t kDictionaryFlag = 2;
constexpr uint8_t kMetadataAdoptedFlag = 4;

// Slots and seals open with a magic and the version and end with the
// checksum of everything before it.
void StartRecord(char* out, const char (&magic)[4]) {
  std::memcpy(out, magic, 4);
  out[4] = static_cast<char>(kVersion);
}

void FinishRecord(std::string& out) {
  const size_t body = out.size() - 8;
  StoreLittle<uint64_t>(&out[body],
                        Checksum(absl::string_view(out).substr(0, body)));
}

bool IntactRecord(absl::string_view bytes, size_t size,
                  const char (&magic)[4]) {
  if (bytes.size() < size || std::memcmp(bytes.data(), magic, 4) != 0 ||
      static_cast<uint8_t>(bytes[4]) != kVersion) {
    return false;
  }
  return LoadLittle<uint64_t>(&bytes[size - 8]) ==
         Checksum(bytes.substr(0, size - 8));
}

}  // namespace

MetaBytes MetaBytesOf(const store_format::PhysicalHeader& header) {
  MetaBytes bytes;
  const auto encoded = store_format::EncodeHeader(header);
  std::copy(encoded.begin(), encoded.end(), bytes.begin());
  return bytes;
}

std::string EncodeSlot(const StateSlot& slot) {
  std::string out(kSlotBytes, '\0');
  StartRecord(out.data(), kSlotMagic);
  out[5] =
      static_cast<char>((slot.typed_header_checksum ? kTypedHeaderFlag : 0) |
                        (slot.dictionary_checksum ? kDictionaryFlag : 0) |
                        (slot.metadata_adopted ? kMetadataAdoptedFlag : 0));
  StoreLittle<uint64_t>(&out[8], slot.sequence);
  StoreLittle<uint32_t>(&out[16], slot.epoch);
  std::memcpy(&out[24], slot.meta.data(), slot.meta.size());
  StoreLittle<uint64_t>(&out[56], slot.meta_stamp);
  StoreLittle<uint64_t>(&out[64], slot.typed_header_checksum.value_or(0));
  StoreLittle<uint64_t>(&out[72], slot.dictionary_checksum.value_or(0));
  StoreLittle<uint64_t>(&out[80], slot.removed_records);
  StoreLittle<uint64_t>(&out[88], slot.removed_from_length);
  StoreLittle<uint64_t>(&out[96], slot.reappeared_records);
  FinishRecord(out);
  return out;
}

std::optional<StateSlot> DecodeSlot(absl::string_view bytes) {
  if (!IntactRecord(bytes, kSlotBytes, kSlotMagic)) return std::nullopt;
  StateSlot slot;
  const uint8_t flags = static_cast<uint8_t>(bytes[5]);
  slot.sequence = LoadLittle<uint64_t>(&bytes[8]);
  slot.epoch = LoadLittle<uint32_t>(&bytes[16]);
  std::memcpy(slot.meta.data(), &bytes[24], slot.meta.size());
  slot.meta_stamp = LoadLittle<uint64_t>(&bytes[56]);
  if (flags & kTypedHeaderFlag) {
    slot.typed_header_checksum = LoadLittle<uint64_t>(&bytes[64]);
  }
  if (flags & kDictionaryFlag) {
    slot.dictionary_checksum = LoadLittle<uint64_t>(&bytes[72]);
  }
  slot.metadata_adopted = (flags & kMetadataAdoptedFlag) != 0;
  slot.removed_records = LoadLittle<uint64_t>(&bytes[80]);
  slot.removed_from_length = LoadLittle<uint64_t>(&bytes[88]);
  slot.reappeared_records = LoadLittle<uint64_t>(&bytes[96]);
  return slot;
}

std::string EncodeSeal(const CommitSeal& seal) {
  std::string out(kSealBytes, '\0');
  StartRecord(out.data(), kSealMagic);
  out[5] = seal.pending ? 1 : 0;
  std::memcpy(&out[8], seal.meta.data(), seal.meta.size());
  std::memcpy(&out[40], seal.previous.data(), seal.previous.size());
  StoreLittle<uint64_t>(&out[72], seal.meta_stamp);
  FinishRecord(out);
  return out;
}

std::optional<CommitSeal> DecodeSeal(absl::string_view bytes) {
  if (!IntactRecord(bytes, kSealBytes, kSealMagic)) return std::nullopt;
  CommitSeal seal;
  seal.pending = bytes[5] != 0;
  std::memcpy(seal.meta.data(), &bytes[8], seal.meta.size());
  std::memcpy(seal.previous.data(), &bytes[40], seal.previous.size());
  seal.meta_stamp = LoadLittle<uint64_t>(&bytes[72]);
  return seal;
}

void EncodeEntry(const ChecksumEntry& entry, char* out) {
  StoreLittle<uint64_t>(out, entry.checksum);
  StoreLittle<uint64_t>(out + 8, entry.binding);
  StoreLittle<uint32_t>(out + 16, entry.epoch);
  StoreLittle<uint32_t>(out + 20, 0);
}

uint64_t BindingOf(const store_format::RecordLoc& loc) {
  char bytes[store_format::kRecordLocBytes];
  store_format::EncodeRecordLoc(loc, bytes);
  static_assert(sizeof(bytes) == 16);
  return Checksum16(bytes);
}

ChecksumEntry EntryFor(absl::string_view stored,
                       const store_format::RecordLoc& loc, uint32_t epoch) {
  return ChecksumEntry{Checksum(stored), BindingOf(loc), epoch};
}

}  // namespace loaderx::integrity_format
