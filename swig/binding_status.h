// Statuses to `BindingError`s: the one place the binding layer throws. Not
// seen by SWIG; shared by the binding's implementation files.

#ifndef LOADERX_SWIG_BINDING_STATUS_H_
#define LOADERX_SWIG_BINDING_STATUS_H_

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "loaderx/error_code.h"
#include "swig/binding.h"

namespace loaderx::binding {

inline void ThrowIfError(const absl::Status& status) {
  if (!status.ok()) {
    throw BindingError(static_cast<int>(status.code()),
                       static_cast<int>(ErrorCodeOf(status)),
                       std::string(status.message()));
  }
}

template <typename T>
T ValueOrThrow(absl::StatusOr<T> status_or) {
  ThrowIfError(status_or.status());
  return *std::move(status_or);
}

}  // namespace loaderx::binding

#endif  // LOADERX_SWIG_BINDING_STATUS_H_
