// Early-return helpers for `absl::Status` / `absl::StatusOr` in engine code.
//
//   LOADERX_RETURN_IF_ERROR(file->Sync());
//   LOADERX_ASSIGN_OR_RETURN(auto size, file->Size());

#ifndef LOADERX_SPI_STATUS_MACROS_H_
#define LOADERX_SPI_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define LOADERX_RETURN_IF_ERROR(expr)                                     \
  do {                                                                    \
    if (::absl::Status loaderx_status_ = (expr); !loaderx_status_.ok()) { \
      return loaderx_status_;                                             \
    }                                                                     \
  } while (false)

#define LOADERX_STATUS_CONCAT_INNER(a, b) a##b
#define LOADERX_STATUS_CONCAT(a, b) LOADERX_STATUS_CONCAT_INNER(a, b)

#define LOADERX_ASSIGN_OR_RETURN(lhs, expr) \
  LOADERX_ASSIGN_OR_RETURN_IMPL(            \
      LOADERX_STATUS_CONCAT(loaderx_status_or_, __LINE__), lhs, expr)

#define LOADERX_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return std::move(tmp).status();      \
  lhs = *std::move(tmp)

#endif  // LOADERX_SPI_STATUS_MACROS_H_
