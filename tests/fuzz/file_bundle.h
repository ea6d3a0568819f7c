// A fuzz input that stands for a store directory: a sequence of files,
//
//   repeated { u8 name_length; name; u32 size (little-endian); bytes }
//
// decoded leniently (a truncated last entry keeps what it has), so every
// byte string is some directory and mutations of a real store's bundle
// stay close to real stores. `EncodeBundle` makes the seed corpus.

#ifndef LOADERX_TESTS_FUZZ_FILE_BUNDLE_H_
#define LOADERX_TESTS_FUZZ_FILE_BUNDLE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace loaderx::fuzz {

using FileBundle = std::vector<std::pair<std::string, std::string>>;

FileBundle DecodeBundle(absl::string_view bytes);
std::string EncodeBundle(const FileBundle& files);

}  // namespace loaderx::fuzz

#endif  // LOADERX_TESTS_FUZZ_FILE_BUNDLE_H_
