#include "tools/cli/new_store_options.h"

#include <fstream>
#include <sstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/cli/progress.h"

namespace loaderx::cli {

std::vector<OptionSpec> NewStoreOptionSpecs() {
  return {
      {"--codec", "CODEC", "raw, zstd (the default) or zstd_dict"},
      {"--level", "N", "compression level (default: zstd 3, zstd_dict 19)"},
      {"--tier", "TIER",
       "zstd_dict training tier: fast, balanced (default) or max"},
      {"--dictionary", "FILE", "zstd_dict: use this dictionary, untrained"},
  };
}

absl::StatusOr<NewStoreSettings> NewStoreSettingsFrom(
    const ParsedArguments& arguments) {
  NewStoreSettings settings;
  settings.codec = arguments.Value("--codec").value_or("zstd");
  if (std::optional<std::string> level = arguments.Value("--level")) {
    if (!absl::SimpleAtoi(*level, &settings.level)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--level takes an integer, not '", *level, "'"));
    }
  }
  absl::StatusOr<DictionaryTier> tier =
      FindDictionaryTier(arguments.Value("--tier").value_or(""));
  if (!tier.ok()) return tier.status();
  settings.tier = *tier;
  settings.dictionary_file = arguments.Value("--dictionary");
  if (!NeedsDictionary(settings) &&
      (settings.dictionary_file || arguments.Has("--tier"))) {
    return absl::InvalidArgumentError(
        absl::StrCat("--dictionary and --tier are for --codec zstd_dict, not ",
                     settings.codec));
  }
  return settings;
}

bool NeedsDictionary(const NewStoreSettings& settings) {
  return settings.codec == "zstd_dict";
}

absl::StatusOr<std::string> DictionaryFor(const NewStoreSettings& settings,
                                          const TypedStore* records,
                                          CommandContext& context) {
  if (!NeedsDictionary(settings)) return std::string();
  if (settings.dictionary_file) {
    std::ifstream file(*settings.dictionary_file, std::ios::binary);
    if (!file) {
      return absl::NotFoundError(
          absl::StrCat("cannot read dictionary ", *settings.dictionary_file));
    }
    std::ostringstream bytes;
    bytes << file.rdbuf();
    if (bytes.str().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(*settings.dictionary_file, " is empty"));
    }
    return bytes.str();
  }
  if (context.progress) {
    absl::FPrintF(context.progress_stream,
                  "training a %s dictionary (tier %s)...\n",
                  HumanCount(static_cast<double>(settings.tier.capacity)) + "B",
                  settings.tier.name);
  }
  if (records == nullptr) {
    return absl::InvalidArgumentError(
        "zstd_dict needs records or a --dictionary");
  }
  return TrainDictionaryOnStore(*records, settings.tier);
}

}  // namespace loaderx::cli
