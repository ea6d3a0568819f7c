#!/usr/bin/env bash
# The Python suites (//tests/python/...) on the other interpreters that
# tools/ci/pythons.sh builds, each pass with its own closing line:
#
#   python-3.13    CPython 3.13 running the abi3 extension built for 3.11
#                  (the default build's, unchanged: one module for 3.11+)
#   python-3.13t   free-threaded CPython 3.13t with its own extension (no
#                  limited API there), the GIL off: free_threading_test.py
#                  asserts it stays off and that transforms run in parallel
#
# Each is `bazel test` with `--repo_env` choosing the interpreter (see
# bazel/python_headers.bzl), so only the test actions (and, for 3.13t, the
# extension) differ from the default build; the disk cache keeps both. The
# default run (`run_suite all`) already covers Debian's 3.11.
#
#   bash tools/ci/test_pythons.sh TALLY [BAZEL_FLAGS...]
set -euo pipefail
cd "$(dirname "$0")/../.."

if (($# < 1)); then
  echo "usage: $0 TALLY [BAZEL_FLAGS...]" >&2
  exit 2
fi
tally=$1
shift
pythons="${LOADERX_CACHE:-/var/tmp/loaderx-cache}/python"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

# pass NAME REPO_ENV...: the Python suites with those repository settings.
pass() {
  local name=$1 bep="$work/$1.bep.json"
  shift
  local env_flags=()
  for setting in "$@"; do env_flags+=(--repo_env="$setting"); done
  bazel test "${BAZEL_FLAGS[@]}" "${env_flags[@]}" --build_event_json_file="$bep" \
    -- //tests/python/... "${TORCH_ONLY[@]/#/-}" || status=1
  /usr/bin/python3 tools/ci/count_test_cases.py "python-$name" --bep "$bep" "$tally" ||
    status=1
}

BAZEL_FLAGS=("$@")
# Suites that are all torch: torch is Debian's, for its 3.11 only (PyPI's
# wheels for 3.13 are gigabytes), so there they would run nothing.
TORCH_ONLY=(//tests/python:torch_adapter_test)
for name in 3.13 3.13t; do
  python=$pythons/$name/bin/python3
  if [[ ! -x "$python" ]]; then
    echo "test_pythons: no $python (tools/ci/pythons.sh builds it)" >&2
    echo "python-$name: 0 passed, 1 failed"
    echo '{"passed": 0, "failed": 1, "skipped": 0}' >>"$tally"
    status=1
    continue
  fi
  if [[ "$name" == *t ]]; then
    pass "$name" "LOADERX_PYTHON=$python"
  else
    pass "$name" "LOADERX_TEST_PYTHON=$python"
  fi
done
# Leave the workspace configured for the default interpreter again, so the
# next plain `bazel` command does not start by refetching.
bazel build "${BAZEL_FLAGS[@]}" //swig:python >/dev/null 2>&1 || true
exit "$status"
