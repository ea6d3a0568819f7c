#!/usr/bin/env bash
# Every scored benchmark in one command, for a quiet machine: installs the
# benchmark dependencies (LMDB; loaderx 1.7.7's venv is built on first use
# by tests/oracle/reference.py), then prints the score tables of
# tools/bench/bench_score.py (every workload, contenders, loaderx 1.7.7 and
# the bare limits, min-max over rounds) and the callgrind instruction
# counts per gathered and per appended record, and the sync rounds of the
# append pass.
#
#   bash tools/bench/run_score.sh [bench_score.py flags, e.g. --scale 4]
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/bench/install_bench_deps.sh
bazel run --config=opt //tools/bench:bench_score -- "$@"
echo
echo "## sync rounds of the append pass (syncs that cannot overlap)"
bazel run --config=opt //tools/bench:append_sync_rounds
echo
echo "## callgrind: per gathered record (64 B, batch 4096)"
bash tools/bench/callgrind_per_record.sh
echo
echo "## callgrind: per appended record (64 B, batch 4096)"
bash tools/bench/callgrind_per_record.sh --measure=append
