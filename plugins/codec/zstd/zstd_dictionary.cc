#include "loaderx/zstd_dictionary.h"

#include <zdict.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "loaderx/error_code.h"

namespace loaderx {

absl::StatusOr<std::string> TrainZstdDictionary(
    absl::Span<const absl::string_view> samples, size_t capacity) {
  if (capacity == 0) {
    return absl::InvalidArgumentError("a dictionary needs some capacity");
  }
  // The samples as given, as the reference hands them to the trainer: the
  // same samples give the same dictionary.
  std::string concatenated;
  std::vector<size_t> sizes;
  for (absl::string_view sample : samples) {
    concatenated.append(sample.data(), sample.size());
    sizes.push_back(sample.size());
  }
  std::string dictionary(capacity, '\0');
  const size_t size = ZDICT_trainFromBuffer(
      dictionary.data(), dictionary.size(), concatenated.data(), sizes.data(),
      static_cast<unsigned>(sizes.size()));
  if (ZDICT_isError(size)) {
    return DictTrainingError(absl::StrCat(
        "cannot train a ", capacity, "-byte dictionary on ", sizes.size(),
        " samples (", concatenated.size(), " bytes): ",
        ZDICT_getErrorName(size), "; give it more, or more varied, records"));
  }
  dictionary.resize(size);
  return dictionary;
}

}  // namespace loaderx
