#!/usr/bin/env bash
# Every test: installs whatever is missing, then runs the C++ suites plainly,
# under AddressSanitizer + UndefinedBehaviorSanitizer, and under
# ThreadSanitizer. `.ci/run` runs exactly this script. The last line it
# prints is the total, `all: N passed, M failed`.
#
#   bash tools/test_all.sh
#
# LOADERX_SANITIZERS=0 skips the sanitizer passes (for a quick local run).
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/install_deps.sh

# CI has no terminal: keep Bazel's progress output to a minimum there.
BAZEL_FLAGS=()
if [[ -n "${CI:-}" ]]; then
  BAZEL_FLAGS+=(--noshow_progress --curses=no --color=no)
fi

tally=$(mktemp)
trap 'rm -f "$tally"' EXIT

# Runs `bazel test //...` with extra flags, then counts its test cases
# before the next configuration repoints bazel-testlogs.
run_cpp_suite() {
  local label=$1
  shift
  bazel test "${BAZEL_FLAGS[@]}" "$@" //...
  bazel query 'tests(//...)' 2>/dev/null |
    /usr/bin/python3 tools/count_test_cases.py "$label" bazel-testlogs "$tally"
}

run_cpp_suite cpp
if [[ "${LOADERX_SANITIZERS:-1}" != 0 ]]; then
  run_cpp_suite cpp-asan-ubsan --config=asan --config=ubsan
  run_cpp_suite cpp-tsan --config=tsan
fi
/usr/bin/python3 tools/count_test_cases.py --total "$tally"
