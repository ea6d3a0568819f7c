#!/usr/bin/env bash
# Installs what the benchmarks compare against and the tests do not need:
# Debian's torch (tools/bench/bench_loader.py), h5py and lmdb
# (tools/bench/bench_dense.py, bench_score.py), valgrind and bc
# (tools/bench/callgrind_per_record.sh). Idempotent, like install_deps.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/ci/install_deps.sh
missing=()
for pkg in python3-torch python3-h5py python3-lmdb valgrind bc; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$pkg")
done
if ((${#missing[@]} > 0)); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
