#!/usr/bin/env bash
# The quick start: installs whatever is missing, builds, and runs the
# reference design's example end to end on a local store: .npy files into
# two DenseStores, then the DataLoader over both for 256 steps.
#
#   bash tools/quickstart.sh [directory]     (default /tmp/loaderx-quickstart)
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/ci/install_deps.sh
bazel build --config=opt //tools/examples:quickstart_py
bazel-bin/tools/examples/quickstart_py "${1:-/tmp/loaderx-quickstart}"
