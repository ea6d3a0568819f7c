#!/usr/bin/env bash
# The loader with a CPU-heavy pure-Python per-sample transform (and the
# identity), 4 transform threads, on CPython 3.13 (GIL) and free-threaded
# 3.13t side by side, and torch's DataLoader with 4 worker processes on
# Debian's 3.11 doing the same work; one run, ratios printed. Run it on a
# quiet machine (`uptime`): it measures CPU parallelism.
#
#   bash tools/bench/bench_transform.sh [--steps S] [--records N] ...
#
# Arguments go to tools/bench/bench_transform.py. The interpreters are
# tools/ci/pythons.sh's; the 3.13 run uses the abi3 extension of the default
# build, the 3.13t run an extension built for it (`--repo_env`).
set -euo pipefail
cd "$(dirname "$0")/../.."
pythons="${LOADERX_CACHE:-/var/tmp/loaderx-cache}/python"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

stage() { # DIR [BAZEL_FLAGS...]: the built package copied into DIR/loaderx
  local dir=$1
  shift
  bazel build "$@" //swig:python >/dev/null 2>&1
  local bin
  bin=$(bazel info "$@" bazel-bin 2>/dev/null)
  mkdir -p "$dir/loaderx"
  cp swig/python/loaderx/*.py "$dir/loaderx/"
  cp "$bin/swig/python/loaderx/loaderx_native.py" \
    "$bin/swig/python/loaderx/_loaderx_native.so" "$dir/loaderx/"
}

stage "$work/abi3"
stage "$work/ft" --repo_env=LOADERX_PYTHON="$pythons/3.13t/bin/python3"
bazel build //swig:python >/dev/null 2>&1  # Back to the default interpreter.

run() { # PACKAGE PYTHON [ARGS...]
  local package=$1 python=$2
  shift 2
  PYTHONPATH="$package" "$python" tools/bench/bench_transform.py \
    --store "$work/store" "$@"
}
{
  run "$work/abi3" "$pythons/3.13/bin/python3" "$@"
  run "$work/ft" "$pythons/3.13t/bin/python3" "$@"
  if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    run "$work/abi3" /usr/bin/python3 --torch "$@"
  fi
} | tee "$work/results.jsonl"
/usr/bin/python3 - "$work/results.jsonl" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
base = rows[0]
print(f"{'runner':28} {'python':8} {'heavy b/s':>10} {'ratio':>6} {'identity b/s':>13} {'ratio':>6}")
for row in rows:
    print(f"{row['runner']:28} {row['python']:8} {row['heavy']:>10} "
          f"{row['heavy'] / base['heavy']:>6.2f} {row['identity']:>13} "
          f"{row['identity'] / base['identity']:>6.2f}")
PY
