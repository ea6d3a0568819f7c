#!/usr/bin/env bash
# The quick start: installs whatever is missing, builds optimised, and runs
# the most end-to-end thing loaderx does on a local directory.
#
#   bash tools/quickstart.sh [directory]     (default /tmp/loaderx-quickstart)
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/install_deps.sh
bazel build --config=opt //tools:quickstart
bazel-bin/tools/quickstart "${1:-/tmp/loaderx-quickstart}"
