// Store sets on the command line (`loaderx/store_set.h`): `set create`
// writes a manifest, and `info`, `stats` and `verify` given a manifest
// instead of a store describe the whole set (these functions, called by
// commands_inspect.cc when `LooksLikeStoreSet`).

#ifndef LOADERX_TOOLS_CLI_COMMANDS_SET_H_
#define LOADERX_TOOLS_CLI_COMMANDS_SET_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "tools/cli/arguments.h"
#include "tools/cli/command.h"

namespace loaderx::cli {

// Whether `path` is a regular file starting with the manifest magic "LXSS".
bool LooksLikeStoreSet(absl::string_view path);

absl::Status RunSetInfo(const ParsedArguments& arguments,
                        CommandContext& context);
absl::Status RunSetStats(const ParsedArguments& arguments,
                         CommandContext& context);
absl::Status RunSetVerify(const ParsedArguments& arguments,
                          CommandContext& context);

}  // namespace loaderx::cli

#endif  // LOADERX_TOOLS_CLI_COMMANDS_SET_H_
