// The options of the commands that create a store (`recode`, `import`):
// --codec, --level, --tier and --dictionary, and the dictionary they imply
// for "zstd_dict" (trained on the records by the engine's
// `TrainDictionaryOnStore`, or read from a file).

#ifndef LOADERX_TOOLS_CLI_NEW_STORE_OPTIONS_H_
#define LOADERX_TOOLS_CLI_NEW_STORE_OPTIONS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "loaderx/store_dictionary.h"
#include "loaderx/typed_store.h"
#include "tools/cli/arguments.h"
#include "tools/cli/command.h"

namespace loaderx::cli {

struct NewStoreSettings {
  std::string codec;  // "zstd" unless given.
  int level = 0;
  DictionaryTier tier;
  std::optional<std::string> dictionary_file;
};

std::vector<OptionSpec> NewStoreOptionSpecs();

// The settings given (InvalidArgument for an unknown tier, a level that is
// not a number, a dictionary for a codec without one).
absl::StatusOr<NewStoreSettings> NewStoreSettingsFrom(
    const ParsedArguments& arguments);

// Whether the codec needs a dictionary ("zstd_dict").
bool NeedsDictionary(const NewStoreSettings& settings);

// The dictionary for a store made from `records`: empty unless the codec
// needs one; the --dictionary file if given; else trained on `records`
// (which may be null when a file is given).
absl::StatusOr<std::string> DictionaryFor(const NewStoreSettings& settings,
                                          const TypedStore* records,
                                          CommandContext& context);

}  // namespace loaderx::cli

#endif  // LOADERX_TOOLS_CLI_NEW_STORE_OPTIONS_H_
