#include "tools/cli/npz_archive.h"

#include <minizip/unzip.h>

#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace loaderx::cli {
namespace {

constexpr absl::string_view kSuffix = ".npy";

// The member of the archive that is open, read to its end.
class MemberSource final : public ByteSource {
 public:
  MemberSource(unzFile zip, std::string name)
      : zip_(zip), name_(std::move(name)) {}
  ~MemberSource() override {
    if (!closed_) unzCloseCurrentFile(zip_);
  }

  absl::StatusOr<size_t> Read(absl::Span<char> buffer) override {
    if (closed_) return 0;
    // minizip reads at most 4 GiB at a time.
    const unsigned chunk =
        static_cast<unsigned>(std::min<size_t>(buffer.size(), 1u << 30));
    const int count = unzReadCurrentFile(zip_, buffer.data(), chunk);
    if (count < 0) {
      return absl::DataLossError(
          absl::StrCat("cannot read ", name_, ": zip error ", count));
    }
    if (count == 0 && chunk > 0) {
      closed_ = true;
      if (unzCloseCurrentFile(zip_) == UNZ_CRCERROR) {
        return absl::DataLossError(absl::StrCat(
            name_, " does not match its CRC-32: the archive is damaged"));
      }
    }
    return static_cast<size_t>(count);
  }
  const std::string& name() const override { return name_; }

 private:
  unzFile zip_;
  std::string name_;
  bool closed_ = false;
};

}  // namespace

absl::StatusOr<std::unique_ptr<NpzArchive>> NpzArchive::Open(
    absl::string_view path) {
  const std::string name(path);
  unzFile zip = unzOpen64(name.c_str());
  if (zip == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " is not a readable zip (.npz) archive"));
  }
  std::unique_ptr<NpzArchive> archive(new NpzArchive(name, zip));
  for (int at = unzGoToFirstFile(zip); at == UNZ_OK;
       at = unzGoToNextFile(zip)) {
    unz_file_info64 info;
    char member[4096];
    if (unzGetCurrentFileInfo64(zip, &info, member, sizeof(member), nullptr, 0,
                                nullptr, 0) != UNZ_OK) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " has a damaged zip directory"));
    }
    const std::string member_name(member);
    if (!absl::EndsWith(member_name, kSuffix) ||
        member_name.size() == kSuffix.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " holds '", member_name,
                       "', which is not an array (.npz members are NAME.npy)"));
    }
    archive->arrays_.push_back(
        member_name.substr(0, member_name.size() - kSuffix.size()));
  }
  return archive;
}

NpzArchive::~NpzArchive() { unzClose(static_cast<unzFile>(zip_)); }

absl::StatusOr<std::unique_ptr<ByteSource>> NpzArchive::OpenArray(
    absl::string_view name) {
  unzFile zip = static_cast<unzFile>(zip_);
  const std::string member = absl::StrCat(name, kSuffix);
  if (unzLocateFile(zip, member.c_str(), /*iCaseSensitivity=*/1) != UNZ_OK) {
    return absl::NotFoundError(
        absl::StrCat(path_, " has no array '", name,
                     "'; it has: ", absl::StrJoin(arrays_, ", ")));
  }
  if (unzOpenCurrentFile(zip) != UNZ_OK) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot read ", path_, ":", member,
                     " (an unsupported compression method or encryption)"));
  }
  return std::make_unique<MemberSource>(zip, absl::StrCat(path_, ":", member));
}

}  // namespace loaderx::cli
