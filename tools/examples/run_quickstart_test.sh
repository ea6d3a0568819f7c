#!/usr/bin/env bash
# Runs each quick start given twice in a fresh directory (a rerun must start
# clean) and checks that it reports success.
set -euo pipefail
for quickstart in "$@"; do
  directory="${TEST_TMPDIR:-$(mktemp -d)}/$(basename "$quickstart")"
  for run in 1 2; do
    output=$("$quickstart" "$directory")
    echo "$output"
    grep -q '^quickstart: ok$' <<<"$output"
  done
done
