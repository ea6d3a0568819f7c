#!/usr/bin/env bash
# Runs the quick start twice in a fresh directory (a rerun must start clean)
# and checks it reports success.
set -euo pipefail
quickstart=$1
directory="${TEST_TMPDIR:-$(mktemp -d)}/quickstart"
for run in 1 2; do
  output=$("$quickstart" "$directory")
  echo "$output"
  grep -q '^quickstart: ok$' <<<"$output"
done
