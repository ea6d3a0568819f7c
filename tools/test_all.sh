#!/usr/bin/env bash
# Every test: installs whatever is missing, then runs every suite (C++ gtest,
# Python pytest and Java JUnit, against the real build), the Python suites
# again on CPython 3.13 and free-threaded 3.13t (tools/ci/test_pythons.sh),
# then programs built
# against loaderx from outside its build (tools/ci/test_consumers.sh), the
# Python wheel installed into fresh venvs (tools/ci/test_wheel.sh), the jar
# through Maven (tools/ci/test_maven.sh), the documentation's examples and
# site (tools/ci/test_docs.sh), loaderx.torch under torchrun with 4 ranks
# (tools/ci/test_torchrun.sh), then
# the C++ suites again under AddressSanitizer + UndefinedBehaviorSanitizer
# and under ThreadSanitizer, then the libFuzzer targets under ASan + UBSan
# for $LOADERX_FUZZ_SECONDS each (default 60; 0 skips them;
# tools/ci/run_fuzzers.sh). `.ci/run` runs exactly this script. Each pass
# prints a closing line; the last line is the total, `total: N passed, M
# failed`, and the exit status is non-zero if any pass failed.
#
#   bash tools/test_all.sh
#
# LOADERX_SANITIZERS=0 skips the sanitizer and fuzzer passes (for a quick
# local run).
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/ci/install_deps.sh
# .bazelrc points every build at one disk cache; drop what no build has read
# for 30 days so it does not grow without bound.
find /var/tmp/loaderx-cache/bazel-disk -type f -atime +30 -delete 2>/dev/null || true
bash tools/ci/check_format.sh

# CI has no terminal: keep Bazel's progress output to a minimum there.
BAZEL_FLAGS=()
if [[ -n "${CI:-}" ]]; then
  BAZEL_FLAGS+=(--noshow_progress --curses=no --color=no)
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tally="$work/tally"
status=0

# Runs `bazel test //...` with extra flags and counts its test cases from the
# build event file of that very run (tools/ci/count_test_cases.py), so no
# other Bazel command can change what is counted.
run_suite() {
  local label=$1
  shift
  local bep="$work/$label.bep.json"
  bazel test "${BAZEL_FLAGS[@]}" --build_event_json_file="$bep" "$@" //... || status=1
  /usr/bin/python3 tools/ci/count_test_cases.py "$label" --bep "$bep" "$tally" || status=1
}

# timed NAME COMMAND...: runs a pass and prints how long it took, so the CI
# budget (well under 30 minutes on 2 cores) can be kept pass by pass.
timed() {
  local name=$1 start=$SECONDS rc=0
  shift
  "$@" || rc=$?
  echo "time: $name took $((SECONDS - start)) s" >&2
  return "$rc"
}

timed all run_suite all
# The Python suites again on CPython 3.13 (the same abi3 extension) and on
# free-threaded 3.13t (its own extension, the GIL off).
timed pythons bash tools/ci/test_pythons.sh "$tally" "${BAZEL_FLAGS[@]}" || status=1
# Programs built against loaderx from outside: a second Bazel workspace, and
# CMake and pkg-config against the installed library.
timed consumers bash tools/ci/test_consumers.sh "$tally" "${BAZEL_FLAGS[@]}" ||
  status=1
# The documentation: every marked example run, links, docstrings, and the
# site (Sphinx, Doxygen, Javadoc) built with warnings as errors.
timed docs bash tools/ci/test_docs.sh "$tally" "${BAZEL_FLAGS[@]}" || status=1
# loaderx.torch under `torchrun --nproc_per_node=4` (gloo, CPU): the ranks'
# all-gathered sample ids equal the single-process batch at every step,
# also across an elastic 4 -> 2 -> 4 resume.
timed torchrun bash tools/ci/test_torchrun.sh "$tally" || status=1
# The Python wheel, built and installed as users do, run in fresh venvs.
timed wheel bash tools/ci/test_wheel.sh "$tally" || status=1
# loaderx.jar installed into a local Maven repository, a Maven project built
# and run against it offline.
timed maven bash tools/ci/test_maven.sh "$tally" || status=1
# The Spark connector (spark/): DataFrames written as store sets and read
# back, with a task retried, in local mode with 4 task threads.
timed spark bash tools/ci/test_spark.sh "$tally" "${BAZEL_FLAGS[@]}" || status=1
# MinGW build, under Wine.
timed windows bash tools/ci/test_windows.sh "$tally" || status=1
if [[ "${LOADERX_SANITIZERS:-1}" != 0 ]]; then
  # The Python and Java tests are tagged no_sanitizer (see .bazelrc).
  timed cpp-asan-ubsan run_suite cpp-asan-ubsan --config=asan --config=ubsan
  timed cpp-tsan run_suite cpp-tsan --config=tsan
fi
fuzz_seconds="${LOADERX_FUZZ_SECONDS:-60}"
if [[ "${LOADERX_SANITIZERS:-1}" != 0 && "$fuzz_seconds" != 0 ]]; then
  timed fuzz bash tools/ci/run_fuzzers.sh "$fuzz_seconds" "$work/fuzz" || status=1
  /usr/bin/python3 tools/ci/count_test_cases.py fuzz --xml-dir "$work/fuzz" "$tally" || status=1
fi
/usr/bin/python3 tools/ci/count_test_cases.py --total "$tally" || status=1
exit "$status"
