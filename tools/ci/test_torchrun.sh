#!/usr/bin/env bash
# loaderx.torch under torchrun, as a data-parallel job runs it: 4 processes
# on the CPU (gloo), each reading its rank's slice of every global batch
# from stores opened read-only (tests/torchrun/rank_batches.py). Cases:
#
#   MODE-world4     sequential (0), IID (1) and cyclic (2): at every step the
#                   all-gather of the ranks' sample ids equals the
#                   single-process batch, and each rank's ragged records
#                   are its ids' records
#   elastic-4-2-4   a cyclic run of world 4 saves its state at step 7; a run
#                   of world 2 resumes it for 9 steps and saves; a run of
#                   world 4 resumes that; every step checked as above
#
# torch comes from Debian's python3-torch (CPU, with gloo), which
# tools/ci/install_deps.sh installs. Where `torchrun` or torch's gloo
# backend is missing the pass is skipped, saying so, and counts nothing.
# The closing line is `torchrun: N passed, M failed`, added to TALLY.
#
#   bash tools/ci/test_torchrun.sh TALLY
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

if (($# != 1)); then
  echo "usage: $0 TALLY" >&2
  exit 2
fi
tally=$1

python=/usr/bin/python3
if ! command -v torchrun >/dev/null ||
  ! "$python" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
  echo "torchrun: skipped (torchrun or torch with gloo is not installed)"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/xml" "$work/data"
bash tools/docs/stage_python_package.sh "$work/python" >"$work/stage.log" 2>&1 ||
  { tail -n 40 "$work/stage.log"; exit 1; }
export PYTHONPATH="$work/python"
script="$root/tests/torchrun/rank_batches.py"
"$python" "$script" make "$work/data" 203

source tools/ci/junit_cases.sh

# --redirects 1 --tee 1: torch 1.13's launcher parses its default "0" with
# an enum lookup that Python 3.11 no longer answers for zero (torchrun then
# fails in `to_map`); stdout to a log and the console works everywhere.
run() {
  local procs=$1
  shift
  torchrun --standalone --redirects 1 --tee 1 --log_dir "$work/logs" \
    --nproc_per_node="$procs" "$script" "$work/data" "$@"
}
sequential() { run 4 0 20; }
iid() { run 4 1 20; }
cyclic() { run 4 2 40; }
elastic() {
  run 4 2 7 --save "$work/state4.json"
  grep -q '"step": 7' "$work/state4.json"
  run 2 2 9 --resume "$work/state4.json" --save "$work/state2.json"
  grep -q '"step": 16' "$work/state2.json"
  run 4 2 9 --resume "$work/state2.json"
}

run_case torchrun sequential-world4 sequential
run_case torchrun iid-world4 iid
run_case torchrun cyclic-world4 cyclic
run_case torchrun elastic-4-2-4 elastic
write_cases torchrun "$work/xml/torchrun.xml"
"$python" tools/ci/count_test_cases.py torchrun --xml-dir "$work/xml" "$tally"
