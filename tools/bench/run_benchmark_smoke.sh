#!/usr/bin/env bash
# Runs a benchmark binary on a tiny data set in the test's temporary
# directory; it exits non-zero if any variant fails its validation. Nothing
# here judges speed.
set -euo pipefail
binary=$1
shift
exec "$binary" --dir="${TEST_TMPDIR:-/tmp}" "$@"
