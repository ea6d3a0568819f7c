#include "src/store_format.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "loaderx/spi/little_endian.h"

namespace loaderx::store_format {
namespace {

// Field offsets in the physical header.
constexpr size_t kVersionAt = 4;
constexpr size_t kCodecAt = 5;
constexpr size_t kTailChunkAt = 6;
constexpr size_t kTailOffsetAt = 10;
constexpr size_t kLengthAt = 14;
constexpr size_t kReservedAt = 22;

}  // namespace

std::array<char, kHeaderBytes> EncodeHeader(const PhysicalHeader& header) {
  std::array<char, kHeaderBytes> out{};
  std::memcpy(out.data(), kMagic, sizeof(kMagic));
  out[kVersionAt] = static_cast<char>(kVersion);
  out[kCodecAt] = static_cast<char>(header.codec);
  StoreLittle<uint32_t>(out.data() + kTailChunkAt, header.tail_chunk);
  StoreLittle<uint32_t>(out.data() + kTailOffsetAt, header.tail_offset);
  StoreLittle<uint64_t>(out.data() + kLengthAt, header.length);
  return out;
}

absl::StatusOr<PhysicalHeader> DecodeHeader(absl::string_view bytes,
                                            absl::string_view path) {
  if (bytes.size() != kHeaderBytes) {
    return absl::DataLossError(
        absl::StrCat(path, ": a store header is ", kHeaderBytes,
                     " bytes, this file has ", bytes.size()));
  }
  if (std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    return absl::DataLossError(
        absl::StrCat(path, ": not a loaderx store (magic \"",
                     absl::CHexEscape(bytes.substr(0, sizeof(kMagic))),
                     "\", want \"ZREC\")"));
  }
  const uint8_t version = static_cast<uint8_t>(bytes[kVersionAt]);
  if (version != kVersion) {
    return absl::DataLossError(absl::StrCat(
        path, ": store format version ", version,
        " is not supported (this build reads version ", kVersion, ")"));
  }
  for (size_t i = kReservedAt; i < kHeaderBytes; ++i) {
    if (bytes[i] != 0) {
      return absl::DataLossError(absl::StrCat(path, ": reserved header byte ",
                                              i, " is not zero (corrupted)"));
    }
  }
  PhysicalHeader header;
  header.codec = static_cast<uint8_t>(bytes[kCodecAt]);
  header.tail_chunk = LoadLittle<uint32_t>(bytes.data() + kTailChunkAt);
  header.tail_offset = LoadLittle<uint32_t>(bytes.data() + kTailOffsetAt);
  header.length = LoadLittle<uint64_t>(bytes.data() + kLengthAt);
  return header;
}

void EncodeRecordLoc(const RecordLoc& loc, char* out) {
  StoreLittle<uint32_t>(out, loc.offset);
  StoreLittle<uint32_t>(out + 4, loc.phys_length);
  StoreLittle<uint32_t>(out + 8, loc.logic_length);
  StoreLittle<uint32_t>(out + 12, loc.chunk_id);
}

absl::Status CheckRecordLoc(const RecordLoc& loc, uint64_t index,
                            const PhysicalHeader& header,
                            uint64_t chunk_count) {
  auto damaged = [&](absl::string_view why) {
    return absl::DataLossError(absl::StrCat(
        "record-table entry ", index, " (chunk ", loc.chunk_id, ", offset ",
        loc.offset, ", ", loc.phys_length, " bytes stored, ", loc.logic_length,
        " decoded) ", why, " (damaged store)"));
  };
  if (loc.chunk_id >= chunk_count) return damaged("names a missing chunk");
  if (loc.phys_length == 0) return damaged("stores no bytes");
  if (loc.logic_length == 0 || loc.logic_length > kMaxRecordBytes) {
    return damaged("decodes to an impossible size");
  }
  const uint64_t end = uint64_t{loc.offset} + loc.phys_length;
  if (end > kChunkCapacity) return damaged("runs past its chunk's range");
  if (loc.chunk_id > header.tail_chunk ||
      (loc.chunk_id == header.tail_chunk && end > header.tail_offset)) {
    return damaged("lies past the committed frontier");
  }
  return absl::OkStatus();
}

std::string SegmentFileName(uint64_t segment) {
  return absl::StrCat(segment, ".loc");
}

std::string ChunkFileName(uint64_t chunk) {
  return absl::StrCat(chunk, ".chunk");
}

absl::Status MissingEntryError(absl::string_view segment_path, uint64_t index) {
  return absl::DataLossError(absl::StrCat(
      segment_path, " has no entry for record ", index, " (damaged store)"));
}

}  // namespace loaderx::store_format
