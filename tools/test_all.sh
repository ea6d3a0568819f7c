#!/usr/bin/env bash
# Every test: installs whatever is missing, then runs every suite (C++ gtest,
# Python pytest and Java JUnit, against the real build), then the C++ suites
# again under AddressSanitizer + UndefinedBehaviorSanitizer and under
# ThreadSanitizer. `.ci/run` runs exactly this script. The last line it
# prints is the total, `total: N passed, M failed`.
#
#   bash tools/test_all.sh
#
# LOADERX_SANITIZERS=0 skips the sanitizer passes (for a quick local run).
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/install_deps.sh
bash tools/check_format.sh

# CI has no terminal: keep Bazel's progress output to a minimum there.
BAZEL_FLAGS=()
if [[ -n "${CI:-}" ]]; then
  BAZEL_FLAGS+=(--noshow_progress --curses=no --color=no)
fi

tally=$(mktemp)
trap 'rm -f "$tally"' EXIT

# Runs `bazel test //...` with extra flags, then counts the test cases of
# the tests it ran (`$tests`, a query) before the next configuration
# repoints bazel-testlogs.
run_suite() {
  local label=$1 tests=$2
  shift 2
  bazel test "${BAZEL_FLAGS[@]}" "$@" //...
  bazel query "$tests" 2>/dev/null |
    /usr/bin/python3 tools/count_test_cases.py "$label" bazel-testlogs "$tally"
}

all_tests='tests(//...)'
# The Python and Java tests are tagged no_sanitizer (see .bazelrc).
sanitized_tests='tests(//...) except attr(tags, no_sanitizer, tests(//...))'

run_suite all "$all_tests"
if [[ "${LOADERX_SANITIZERS:-1}" != 0 ]]; then
  run_suite cpp-asan-ubsan "$sanitized_tests" --config=asan --config=ubsan
  run_suite cpp-tsan "$sanitized_tests" --config=tsan
fi
/usr/bin/python3 tools/count_test_cases.py --total "$tally"
