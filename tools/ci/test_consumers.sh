#!/usr/bin/env bash
# Builds and runs a program against loaderx the three ways the docs (docs/cpp.md, docs/cli.md) tell
# users to, each exactly as written there:
#
#   install     `bazel run -c opt //:install -- PREFIX`; every public header
#               is installed and compiles against the installed tree alone.
#   cmake       tests/consumers/cmake: `find_package(loaderx)`, then builds
#               and runs tests/consumers/store_roundtrip.cc.
#   pkg-config  the same program, one `g++ ... $(pkg-config ...)` line.
#   cli         the installed bin/loaderx runs docs/cli.md's command-line tour.
#   bazel       tests/consumers, a second workspace that takes loaderx by
#               `local_repository` + `loaderx_repositories()`, runs it as a test
#               (`bazel test //:store_roundtrip_test` there).
#
# Each is one JUnit test case; the closing line is count_test_cases.py's
# `consumers: N passed, M failed`, also added to TALLY.
#
#   bash tools/ci/test_consumers.sh TALLY [BAZEL_FLAG...]
#
# The Bazel flags (test_all.sh's output options) go to every Bazel command.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

if (($# < 1)); then
  echo "usage: $0 TALLY [BAZEL_FLAG...]" >&2
  exit 2
fi
tally=$1
shift
BAZEL_FLAGS=("$@")

work=$(mktemp -d)
# The consumer workspace's Bazel server is ours: stop it when done.
trap '(cd "$root/tests/consumers" && bazel shutdown) >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
prefix="$work/prefix"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"

install_tree() {
  bazel run "${BAZEL_FLAGS[@]}" -c opt //:install -- "$prefix"

  # Every header of include/loaderx, and nothing else, is installed.
  diff <(cd include && find loaderx -name '*.h' | sort) \
    <(cd "$prefix/include" && find loaderx -type f | sort)
  pkg-config --validate loaderx
  # Together they compile against the installed tree and its dependencies.
  (cd "$prefix/include" && find loaderx -name '*.h' | sort |
    sed 's/.*/#include "&"/') >"$work/all_headers.cc"
  g++ -fsyntax-only "$work/all_headers.cc" $(pkg-config --cflags loaderx)
}

cmake_consumer() {
  cmake -S tests/consumers/cmake -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix"
  cmake --build "$work/cmake"
  "$work/cmake/store_roundtrip" --all-plugins "$work/cmake-store"
}

pkg_config_consumer() {
  g++ -o "$work/store_roundtrip" tests/consumers/store_roundtrip.cc $(pkg-config --cflags --libs loaderx)
  "$work/store_roundtrip" --all-plugins "$work/pkg-config-store"
}

# docs/cli.md's command-line tour, extracted and run as written, with the
# installed bin/loaderx first on PATH, in a scratch directory.
cli_tour() {
  sed -n '/<!-- cli-example:begin -->/,/<!-- cli-example:end -->/p' docs/cli.md |
    sed '/^<!--/d; /^```/d' >"$work/cli_tour.sh"
  grep -q 'loaderx import' "$work/cli_tour.sh"
  mkdir -p "$work/cli"
  # Debian's python3 (with numpy) ahead of any other on PATH.
  (cd "$work/cli" && PATH="$prefix/bin:/usr/bin:$PATH" bash -euo pipefail "$work/cli_tour.sh") >"$work/cli.out"
  cat "$work/cli.out"
  grep -qx "every record intact" "$work/cli.out"
  grep -qx "zstd_dict" "$work/cli.out"
  [[ "$(tail -c 7 "$work/cli.out")" == "second" ]]
}

bazel_consumer() {
  cd tests/consumers
  bazel test "${BAZEL_FLAGS[@]}" //:store_roundtrip_test
}

source tools/ci/junit_cases.sh

run_case consumers install install_tree
run_case consumers cmake cmake_consumer
run_case consumers pkg-config pkg_config_consumer
run_case consumers cli cli_tour
run_case consumers bazel bazel_consumer

mkdir -p "$work/xml"
write_cases consumers "$work/xml/consumers.xml"
/usr/bin/python3 tools/ci/count_test_cases.py consumers --xml-dir "$work/xml" "$tally"
