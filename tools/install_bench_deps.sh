#!/usr/bin/env bash
# Installs what the benchmarks compare against and the tests do not need:
# Debian's torch for tools/bench_loader.py. Idempotent, like install_deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install_deps.sh
if ! dpkg-query -W -f='${Status}' python3-torch 2>/dev/null | grep -q "install ok installed"; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends python3-torch >/dev/null
fi
