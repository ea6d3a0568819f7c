#include "loaderx/zstd_dictionary.h"

#include <zdict.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace loaderx {

absl::StatusOr<std::string> TrainZstdDictionary(
    absl::Span<const absl::string_view> samples, size_t capacity) {
  if (capacity < 1024) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a dictionary needs at least 1 KiB of capacity, got ", capacity));
  }
  std::string concatenated;
  std::vector<size_t> sizes;
  for (absl::string_view sample : samples) {
    for (size_t at = 0; at < sample.size(); at += kDictionarySamplePiece) {
      const absl::string_view piece = sample.substr(at, kDictionarySamplePiece);
      concatenated.append(piece.data(), piece.size());
      sizes.push_back(piece.size());
    }
  }
  std::string dictionary(capacity, '\0');
  const size_t size = ZDICT_trainFromBuffer(
      dictionary.data(), dictionary.size(), concatenated.data(), sizes.data(),
      static_cast<unsigned>(sizes.size()));
  if (ZDICT_isError(size)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot train a ", capacity, "-byte dictionary on ", sizes.size(),
        " samples (", concatenated.size(), " bytes): ",
        ZDICT_getErrorName(size), "; give it more, or more varied, records"));
  }
  dictionary.resize(size);
  return dictionary;
}

}  // namespace loaderx
