#include "tools/bench/bench_data.h"

#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "loaderx/spi/status_macros.h"

namespace loaderx {

std::string ImageLikeRecord(uint64_t i, uint64_t bytes) {
  std::mt19937_64 random(i);
  std::string record(bytes, '\0');
  for (size_t b = 0; b < record.size(); ++b) {
    const uint64_t x = b % 512, y = b / 512;
    record[b] = static_cast<char>(((x * 3 + y * 5 + i * 7) & 0xff) ^
                                  ((b & 1) ? random() & 0x07 : 0));
  }
  return record;
}

absl::Status RemoveStoreDirectory(Vfs& vfs, const std::string& dir) {
  absl::StatusOr<std::vector<std::string>> names = vfs.List(dir);
  if (absl::IsNotFound(names.status())) return absl::OkStatus();
  if (!names.ok()) return names.status();
  for (const std::string& name : *names) {
    LOADERX_RETURN_IF_ERROR(vfs.Remove(absl::StrCat(dir, "/", name)));
  }
  return vfs.RemoveDirectory(dir);
}

}  // namespace loaderx
