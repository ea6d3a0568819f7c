// gtest helpers for `absl::Status` / `absl::StatusOr`: the status is printed
// on failure, so a failing test names the error it got.

#ifndef LOADERX_TESTS_STATUS_TESTING_H_
#define LOADERX_TESTS_STATUS_TESTING_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"

namespace loaderx::testing_internal {

inline const absl::Status& GetStatus(const absl::Status& status) {
  return status;
}
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

}  // namespace loaderx::testing_internal

// Each macro evaluates `expr` exactly once.
#define EXPECT_OK(expr)                                                       \
  do {                                                                        \
    const auto& loaderx_status_ = (expr);                                     \
    EXPECT_TRUE(::loaderx::testing_internal::GetStatus(loaderx_status_).ok()) \
        << ::loaderx::testing_internal::GetStatus(loaderx_status_);           \
  } while (false)

#define ASSERT_OK(expr)                                                       \
  do {                                                                        \
    const auto& loaderx_status_ = (expr);                                     \
    ASSERT_TRUE(::loaderx::testing_internal::GetStatus(loaderx_status_).ok()) \
        << ::loaderx::testing_internal::GetStatus(loaderx_status_);           \
  } while (false)

// Expects `expr` to fail with `expected_code`.
#define EXPECT_STATUS_CODE(expr, expected_code)                               \
  do {                                                                        \
    const auto& loaderx_status_ = (expr);                                     \
    EXPECT_EQ(::loaderx::testing_internal::GetStatus(loaderx_status_).code(), \
              expected_code)                                                  \
        << ::loaderx::testing_internal::GetStatus(loaderx_status_);           \
  } while (false)

#define LOADERX_CONCAT_INNER(a, b) a##b
#define LOADERX_CONCAT(a, b) LOADERX_CONCAT_INNER(a, b)

// `ASSERT_OK_AND_ASSIGN(auto file, vfs.Open(...));`
#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  ASSERT_OK_AND_ASSIGN_IMPL(LOADERX_CONCAT(status_or_, __LINE__), lhs, expr)
#define ASSERT_OK_AND_ASSIGN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  ASSERT_TRUE(tmp.ok()) << tmp.status();          \
  lhs = std::move(tmp).value()

#endif  // LOADERX_TESTS_STATUS_TESTING_H_
