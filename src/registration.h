// How the registries' registration objects (`VfsRegistration`,
// `CodecRegistration`, `TypedOwnerRegistration`) add their plugin: at
// static-initialisation time, where an error has no one to be reported to.
// A name or tag registered twice means two plugins were linked under one
// name, a build mistake that must not go unnoticed, so these abort the
// program, naming the clash.

#ifndef LOADERX_SRC_REGISTRATION_H_
#define LOADERX_SRC_REGISTRATION_H_

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "loaderx/registry.h"

namespace loaderx {

// Prints `message` as a failed plugin registration and aborts.
[[noreturn]] void AbortRegistration(const std::string& message);

template <typename Entry>
void RegisterOrDie(Registry<Entry>& registry, absl::string_view name,
                   Entry entry) {
  absl::Status status = registry.Register(name, std::move(entry));
  if (!status.ok()) AbortRegistration(status.ToString());
}

// `RegisterOrDie` for tagged entries: the tag must be unique as well as the
// name, since a header names its codec or owner by tag alone.
template <typename Entry>
void RegisterTaggedOrDie(Registry<Entry>& registry, absl::string_view name,
                         Entry entry) {
  if (auto clash = FindByTag(registry, entry.tag); clash.has_value()) {
    AbortRegistration(absl::StrCat(
        registry.kind(), " \"", name, "\" cannot take tag ",
        static_cast<int>(entry.tag), ": \"", clash->first, "\" has it"));
  }
  RegisterOrDie(registry, name, std::move(entry));
}

}  // namespace loaderx

#endif  // LOADERX_SRC_REGISTRATION_H_
