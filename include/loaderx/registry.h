// `Registry<Entry>` maps plugin names to entries (factories, descriptors) so
// the engine finds a VFS, codec or typed owner by the name a user or an
// on-disk header gives it. Plugins register at static-initialisation time
// through a namespace-scope registration object (see `VfsRegistration`,
// `CodecRegistration`, `TypedOwnerRegistration`), so linking a plugin's
// `alwayslink` target is all it takes to make it findable; a user's own plugin
// registers the same way without touching the engine. (A registration that
// clashes aborts the program: that policy is the engine's, in
// src/registration.h.)
//
// Thread safety: every method may be called concurrently. Entries are copied
// out, so a lookup never holds a reference into the registry.

#ifndef LOADERX_REGISTRY_H_
#define LOADERX_REGISTRY_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "loaderx/error_code.h"

namespace loaderx {

template <typename Entry>
class Registry {
 public:
  // `kind` names what is registered ("VFS", "codec"), for error messages.
  explicit Registry(std::string kind) : kind_(std::move(kind)) {}
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Adds `entry` under `name`. InvalidArgument for an empty name,
  // AlreadyExists if the name is taken (the existing entry is kept).
  absl::Status Register(absl::string_view name, Entry entry) {
    if (name.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot register a ", kind_, " with an empty name"));
    }
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, inserted] = entries_.emplace(std::string(name), std::move(entry));
    if (!inserted) {
      return absl::AlreadyExistsError(
          absl::StrCat(kind_, " \"", name, "\" is already registered"));
    }
    return absl::OkStatus();
  }

  // The entry registered as `name`, or NotFound (with
  // `ErrorCode::kUnknownName` attached) listing every registered name.
  absl::StatusOr<Entry> Find(absl::string_view name) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(std::string(name));
    if (it == entries_.end()) {
      return UnknownNameError(absl::StrCat(
          "no ", kind_, " is registered as \"", name,
          "\"; registered: ", entries_.empty() ? "(none)" : JoinNamesLocked()));
    }
    return it->second;
  }

  // The first entry, in name order, for which `predicate(name, entry)` holds.
  template <typename Predicate>
  std::optional<std::pair<std::string, Entry>> FindIf(
      Predicate predicate) const {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [name, entry] : entries_) {
      if (predicate(name, entry)) return std::make_pair(name, entry);
    }
    return std::nullopt;
  }

  // Every registered name, sorted.
  std::vector<std::string> Names() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> names;
    names.reserve(entries_.size());
    for (const auto& [name, entry] : entries_) names.push_back(name);
    return names;
  }

  const std::string& kind() const { return kind_; }

 private:
  std::string JoinNamesLocked() const {
    return absl::StrJoin(entries_, ", ", [](std::string* out, const auto& kv) {
      absl::StrAppend(out, kv.first);
    });
  }

  const std::string kind_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;  // Guarded by `mu_`.
};

// For registries whose entries also carry a persisted one-byte `tag` (codecs,
// typed owners): the entry with `tag`, looked up when a header is read.
template <typename Entry>
std::optional<std::pair<std::string, Entry>> FindByTag(
    const Registry<Entry>& registry, uint8_t tag) {
  return registry.FindIf([tag](const std::string&, const Entry& entry) {
    return entry.tag == tag;
  });
}

}  // namespace loaderx

#endif  // LOADERX_REGISTRY_H_
