#!/usr/bin/env bash
# The Windows pass: builds the Windows test executables with MinGW-w64
# (`--config=mingw_test`, see .bazelrc), runs each under Wine with a gtest
# XML report, runs the cross-platform store test between the Linux and the
# Windows build, and counts the reports (tools/ci/count_test_cases.py
# --xml-dir).
#
#   bash tools/ci/test_windows.sh [TALLY]
#
# TALLY is test_all.sh's tally file; without it the counts are printed only.
# Installs what is missing first (`install_deps.sh --windows`). The build's
# outputs are cached by Bazel's disk cache in $LOADERX_CACHE/mingw (default
# /var/tmp/loaderx-cache), next to the sources and the Wine prefix, so a
# second run, even from a fresh clone, rebuilds nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."

bash tools/ci/install_deps.sh --windows

cache="${LOADERX_CACHE:-/var/tmp/loaderx-cache}/mingw"
tally_arg=${1:-}

# The Windows suites: every C++ unit and conformance test that does not
# need a POSIX system, and the Win32 VFS's own. They run from the root of
# the clone, where the golden files they read are.
WINDOWS_TESTS=(
  //vfs/win32:win32_path_test
  //vfs/win32:win32_vfs_test
  //tests:vfs_conformance_test
  //plugins/codec/raw:raw_codec_test
  //plugins/codec/zstd:zstd_codec_test
  //plugins/codec/zstd:zstd_dictionary_test
  //plugins/owner:owner_test
  //src:record_engine_test
  //src:record_engine_compact_test
  //tests:record_engine_fault_test
  //src:typed_store_test
  //tests:typed_store_conformance_test
  //tests/owners:token_sequence_owner_test
  //src:store_format_test
  //src:record_engine_codec_test
  //src:integrity_format_test
  //src:compaction_plan_test
  //src:record_table_test
  //tests:integrity_test
  //tests:crash_matrix_test
  //src:sampler_test
  //src:sampler_golden_test
  //src:sfc64_test
  //src:feistel_permutation_test
  //src:thread_pool_test
  //src:store_streams_test
  //src:loader_batch_test
  //src:data_loader_test
  //src:data_loader_concurrency_test
  //src:path_test
  //src:registry_test
)
CROSS_TEST=//tests:cross_platform_store_test

BAZEL_FLAGS=()
if [[ -n "${CI:-}" ]]; then
  BAZEL_FLAGS+=(--noshow_progress --curses=no --color=no)
fi

# Bazel's disk cache for the Windows build lives with the other Windows
# artifacts; entries unused for a month are dropped.
disk_cache="$cache/bazel-disk-cache"
mkdir -p "$disk_cache"
find "$disk_cache" -type f -atime +30 -delete 2>/dev/null || true

bazel build "${BAZEL_FLAGS[@]}" --config=mingw_test --disk_cache="$disk_cache" \
  "${WINDOWS_TESTS[@]}" "$CROSS_TEST"
bazel build "${BAZEL_FLAGS[@]}" "$CROSS_TEST"
windows_bin=$(bazel info --config=mingw_test bazel-bin)
linux_bin=$(bazel info bazel-bin)

work=$(mktemp -d)
reports="$work/reports"
mkdir -p "$reports"

# Wine: the prefix install_windows_deps.sh made, no debug chatter, no
# display, no Mono or Gecko installers.
export WINEPREFIX="$cache/wine"
export WINEDEBUG=-all
export WINEDLLOVERRIDES="mscoree,mshtml="
unset DISPLAY WAYLAND_DISPLAY
wine=/usr/lib/wine/wine64
cleanup() {
  # The Wine server outlives its last program by a few seconds; wait for
  # it rather than leave it behind (or kill another run's programs).
  /usr/lib/wine/wineserver64 -w 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Wine's drive Z: is the Unix root.
if [[ "$(readlink "$WINEPREFIX/dosdevices/z:")" != / ]]; then
  echo "test_windows: $WINEPREFIX/dosdevices/z: does not map the root" >&2
  exit 1
fi
windows_path() { local path=$1; echo "Z:${path//\//\\}"; }

# A report for a run that crashed, hung or exited non-zero without saying
# which case failed, so the count cannot mistake it for a pass.
record_failure() {
  local name=$1 why=$2
  cat >"$reports/$name.failed.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="$name" tests="1" failures="1">
<testcase name="$name" classname="$name"><failure message="$why"/></testcase>
</testsuite></testsuites>
XML
}

# run NAME PLATFORM EXECUTABLE [ARGS...]: one test executable with its own
# temporary directory and XML report; its output is shown if it fails.
run() {
  local name=$1 platform=$2 executable=$3
  shift 3
  local tmp="$work/tmp/$name" log="$work/$name.log" xml="$reports/$name.xml"
  mkdir -p "$tmp"
  local rc=0
  if [[ "$platform" == windows ]]; then
    TEST_TMPDIR=$(windows_path "$tmp") timeout -k 10 600 \
      "$wine" "$executable" "--gtest_output=xml:$(windows_path "$xml")" "$@" \
      >"$log" 2>&1 || rc=$?
  else
    TEST_TMPDIR="$tmp" timeout -k 10 600 \
      "$executable" "--gtest_output=xml:$xml" "$@" >"$log" 2>&1 || rc=$?
  fi
  if ((rc != 0)); then
    if [[ ! -s "$xml" ]] || ! grep -q '<failure' "$xml"; then
      record_failure "$name" "exited with status $rc"
    fi
    echo "test_windows: $name failed (exit status $rc):" >&2
    tail -n 40 "$log" >&2
  fi
}

# run_retrying_wine_flakes NAME EXECUTABLE: `run` on Windows, once more if
# the Wine server itself went away under the suite ("wine client error",
# seen about once in a few hundred suites on these VMs): that is Wine's
# failure, not the suite's, so the server is restarted, the first attempt's
# report dropped and the suite run again from a fresh directory. A second
# failure, or any other failure, counts.
run_retrying_wine_flakes() {
  local name=$1 executable=$2
  run "$name" windows "$executable"
  if grep -qi 'wine client error' "$work/$name.log" 2>/dev/null; then
    echo "test_windows: $name: the Wine server went away; restarting it" \
      "and running the suite again" >&2
    /usr/lib/wine/wineserver64 -k 2>/dev/null || true
    /usr/lib/wine/wineserver64 -w 2>/dev/null || true
    rm -rf "$work/tmp/$name" "$reports/$name.xml" "$reports/$name.failed.xml"
    run "$name" windows "$executable"
  fi
}

for label in "${WINDOWS_TESTS[@]}"; do
  target=${label#//}
  run_retrying_wine_flakes "${target//[\/:]/_}" "$windows_bin/${target/://}.exe"
done

# Cross-platform files, phase by phase (see the test's comment).
cross="$work/cross"
mkdir -p "$cross"
cross_target=${CROSS_TEST#//}
cross_windows="$windows_bin/${cross_target/://}.exe"
cross_linux="$linux_bin/${cross_target/://}"
export LOADERX_CROSS_PLATFORM_DIR
LOADERX_CROSS_PLATFORM_DIR="$cross"
run cross_1_linux linux "$cross_linux" --gtest_filter='*.Write'
LOADERX_CROSS_PLATFORM_DIR=$(windows_path "$cross")
run cross_2_windows windows "$cross_windows" \
  --gtest_filter='*.Write:*.ReadOther:*.ExtendOther'
LOADERX_CROSS_PLATFORM_DIR="$cross"
run cross_3_linux linux "$cross_linux" \
  --gtest_filter='*.ReadOther:*.ExtendOther:*.SameBytes'
LOADERX_CROSS_PLATFORM_DIR=$(windows_path "$cross")
run cross_4_windows windows "$cross_windows" --gtest_filter='*.SameBytes'

count=(/usr/bin/python3 tools/ci/count_test_cases.py windows --xml-dir "$reports")
if [[ -n "$tally_arg" ]]; then
  "${count[@]}" "$tally_arg"
else
  "${count[@]}" "$work/tally"
fi
