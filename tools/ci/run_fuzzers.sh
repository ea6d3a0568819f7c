#!/usr/bin/env bash
# Builds the libFuzzer targets in //tests/fuzz with clang (--config=fuzz:
# AddressSanitizer + UndefinedBehaviorSanitizer) and runs each for a bounded
# time from a scratch copy of its committed corpus. A crash, a leak, a
# sanitizer report, an out-of-memory (2 GiB) or a slow input (10 s) fails
# the run; the reproducer is left in the output directory.
#
#   bash tools/ci/run_fuzzers.sh [SECONDS_EACH] [OUTPUT_DIR]
#
# SECONDS_EACH defaults to 60. With OUTPUT_DIR, a JUnit report per fuzzer is
# written there (tools/ci/count_test_cases.py --xml-dir counts them). For a
# longer campaign that grows the corpus, run a fuzzer by hand on
# tests/fuzz/corpus/NAME (libFuzzer adds new inputs to that directory), e.g.
#
#   bazel build --config=fuzz //tests/fuzz:store_fuzzer
#   bazel-out/k8-fastbuildfuzz/bin/tests/fuzz/store_fuzzer \
#       -max_total_time=3600 -rss_limit_mb=2048 -timeout=10 tests/fuzz/corpus/store
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds="${1:-60}"
out="${2:-}"
fuzzers=(store identity npy_header)

BAZEL_FLAGS=()
if [[ -n "${CI:-}" ]]; then
  BAZEL_FLAGS+=(--noshow_progress --curses=no --color=no)
fi
targets=()
for name in "${fuzzers[@]}"; do targets+=("//tests/fuzz:${name}_fuzzer"); done
bazel build "${BAZEL_FLAGS[@]}" --config=fuzz "${targets[@]}"
bin="$(bazel info --config=fuzz bazel-bin 2>/dev/null)/tests/fuzz"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for name in "${fuzzers[@]}"; do
  mkdir -p "$work/$name/corpus" "$work/$name/artifacts"
  cp tests/fuzz/corpus/"$name"/* "$work/$name/corpus/"
  log="$work/$name/log"
  started=$(date +%s)
  if "$bin/${name}_fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 \
      -timeout=10 -print_final_stats=1 \
      -artifact_prefix="$work/$name/artifacts/" "$work/$name/corpus" \
      >"$log" 2>&1; then
    result=passed
  else
    result=failed
    status=1
  fi
  elapsed=$(( $(date +%s) - started ))
  runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo 0)
  echo "fuzz $name: $result after ${elapsed}s, $runs inputs"
  if [[ $result == failed ]]; then
    tail -40 "$log" >&2
    if [[ -n "$out" ]]; then
      mkdir -p "$out/reproducers"
      cp "$work/$name/artifacts/"* "$out/reproducers/" 2>/dev/null || true
    fi
  fi
  if [[ -n "$out" ]]; then
    mkdir -p "$out"
    failure=""
    [[ $result == failed ]] && failure="<failure message=\"fuzzer found a failing input\"/>"
    cat >"$out/fuzz_$name.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="fuzz" tests="1"><testcase name="${name}_fuzzer" time="$elapsed">$failure</testcase></testsuite></testsuites>
XML
  fi
done
exit "$status"
