// The directory a test may write real files in: Bazel's per-test
// `TEST_TMPDIR`, or /tmp when run by hand.

#ifndef LOADERX_TESTS_TEMP_DIR_H_
#define LOADERX_TESTS_TEMP_DIR_H_

#include <cstdlib>
#include <string>

namespace loaderx {

inline std::string TestTempDir() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return tmp != nullptr ? tmp : "/tmp";
}

}  // namespace loaderx

#endif  // LOADERX_TESTS_TEMP_DIR_H_
