#include "src/journal.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "loaderx/spi/little_endian.h"
#include "loaderx/spi/path.h"
#include "loaderx/spi/status_macros.h"
#include "src/checksum.h"

namespace loaderx {
namespace {

constexpr char kMagic[4] = {'L', 'X', 'J', 'N'};
constexpr uint8_t kVersion = 1;
constexpr size_t kFixedBytes = 48;
constexpr size_t kEntryBytes =
    8 + store_format::kRecordLocBytes + integrity_format::kEntryBytes;
constexpr size_t kChecksumBytes = 8;

}  // namespace

uint64_t JournalRecordBytes(uint64_t entries) {
  return kFixedBytes + kEntryBytes * entries + kChecksumBytes;
}

std::string EncodeJournal(const JournalRecord& record) {
  std::string out(
      kFixedBytes + kEntryBytes * record.entries.size() + kChecksumBytes, '\0');
  std::memcpy(out.data(), kMagic, sizeof(kMagic));
  out[4] = static_cast<char>(kVersion);
  out[5] = static_cast<char>(record.op);
  StoreLittle<uint64_t>(&out[8], record.entries.size());
  const auto header = store_format::EncodeHeader(record.header);
  std::memcpy(&out[16], header.data(), header.size());
  char* entry = &out[kFixedBytes];
  for (const JournalEntry& e : record.entries) {
    StoreLittle<uint64_t>(entry, e.index);
    store_format::EncodeRecordLoc(e.loc, entry + 8);
    integrity_format::EncodeEntry(e.checksum,
                                  entry + 8 + store_format::kRecordLocBytes);
    entry += kEntryBytes;
  }
  const size_t body = out.size() - kChecksumBytes;
  StoreLittle<uint64_t>(&out[body],
                        Checksum(absl::string_view(out).substr(0, body)));
  return out;
}

absl::StatusOr<std::optional<JournalRecord>> DecodeJournal(
    absl::string_view bytes, absl::string_view path) {
  if (bytes.size() < kFixedBytes + kChecksumBytes ||
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0 ||
      static_cast<uint8_t>(bytes[4]) != kVersion) {
    return std::nullopt;
  }
  const uint64_t count = LoadLittle<uint64_t>(&bytes[8]);
  if (count > (bytes.size() - kFixedBytes - kChecksumBytes) / kEntryBytes) {
    return std::nullopt;  // Torn: shorter than it says.
  }
  const size_t body = kFixedBytes + kEntryBytes * count;
  if (LoadLittle<uint64_t>(&bytes[body]) != Checksum(bytes.substr(0, body))) {
    return std::nullopt;
  }
  const uint8_t op = static_cast<uint8_t>(bytes[5]);
  if (op < static_cast<uint8_t>(JournalOp::kDelete) ||
      op > static_cast<uint8_t>(JournalOp::kCompactionEnd)) {
    return absl::DataLossError(
        absl::StrCat(path, ": unknown maintenance operation ", op));
  }
  JournalRecord record;
  record.op = static_cast<JournalOp>(op);
  LOADERX_ASSIGN_OR_RETURN(
      record.header, store_format::DecodeHeader(
                         bytes.substr(16, store_format::kHeaderBytes), path));
  record.entries.resize(count);
  const char* entry = &bytes[kFixedBytes];
  for (JournalEntry& e : record.entries) {
    e.index = LoadLittle<uint64_t>(entry);
    e.loc = store_format::DecodeRecordLoc(entry + 8);
    e.checksum = integrity_format::DecodeEntry(entry + 8 +
                                               store_format::kRecordLocBytes);
    entry += kEntryBytes;
  }
  return record;
}

absl::StatusOr<std::optional<JournalRecord>> Journal::Read(
    Vfs& vfs, absl::string_view directory) {
  const std::string path = JoinPath(std::string(directory), kJournalFile);
  absl::StatusOr<std::string> bytes = ReadFileToString(vfs, path);
  if (absl::IsNotFound(bytes.status())) {
    return std::optional<JournalRecord>();
  }
  LOADERX_RETURN_IF_ERROR(bytes.status());
  return DecodeJournal(*bytes, path);
}

absl::Status Journal::OpenFile() {
  if (file_ != nullptr) return absl::OkStatus();
  const std::string path = JoinPath(directory_, kJournalFile);
  LOADERX_ASSIGN_OR_RETURN(const bool existed, vfs_.Exists(path));
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<VfsFile> file,
                           vfs_.Open(path, OpenMode::kCreate));
  LOADERX_ASSIGN_OR_RETURN(const uint64_t size, file->Size());
  // The record must not vanish with its directory entry.
  if (!existed) LOADERX_RETURN_IF_ERROR(vfs_.SyncDirectory(directory_));
  file_ = std::move(file);
  dirty_bytes_ = size;
  return absl::OkStatus();
}

absl::Status Journal::Write(const JournalRecord& record) {
  LOADERX_RETURN_IF_ERROR(OpenFile());
  const std::string bytes = EncodeJournal(record);
  // Whatever lies past the record is ignored (the record says its length,
  // and its checksum covers it).
  dirty_bytes_ = std::max<uint64_t>(dirty_bytes_, bytes.size());
  LOADERX_RETURN_IF_ERROR(file_->WriteAt(0, bytes));
  return file_->SyncData();
}

absl::Status Journal::Clear() {
  LOADERX_RETURN_IF_ERROR(OpenFile());
  if (dirty_bytes_ > kJournalReserveBytes) {
    LOADERX_RETURN_IF_ERROR(file_->Truncate(kJournalReserveBytes));
    dirty_bytes_ = kJournalReserveBytes;
  }
  if (dirty_bytes_ > 0) {
    LOADERX_RETURN_IF_ERROR(file_->WriteAt(0, std::string(dirty_bytes_, '\0')));
  }
  LOADERX_RETURN_IF_ERROR(file_->SyncData());
  dirty_bytes_ = 0;
  return absl::OkStatus();
}

absl::Status Journal::Reserve() {
  LOADERX_RETURN_IF_ERROR(OpenFile());
  LOADERX_ASSIGN_OR_RETURN(const uint64_t size, file_->Size());
  if (size >= kJournalReserveBytes) return absl::OkStatus();
  LOADERX_RETURN_IF_ERROR(file_->Allocate(kJournalReserveBytes));
  return file_->SyncData();
}

}  // namespace loaderx
