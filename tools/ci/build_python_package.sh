#!/usr/bin/env bash
# Builds the `loaderx` Python package (optimised) and assembles it in one
# directory for use outside Bazel:
#
#   bash tools/ci/build_python_package.sh [directory]    (default dist/python)
#   export PYTHONPATH=$PWD/dist/python
#   python3 -c "from loaderx.zrecord import DenseStore"
#
# The extension is built against Debian's /usr/bin/python3 (3.11) and works
# with any CPython 3.11 that has numpy.
set -euo pipefail
cd "$(dirname "$0")/../.."

out="${1:-dist/python}"
bash tools/ci/install_deps.sh
bazel build --config=opt //swig:python //swig:python/loaderx/_loaderx_native.so
bin="$(bazel info --config=opt bazel-bin)/swig/python/loaderx"
rm -rf "$out/loaderx"
mkdir -p "$out/loaderx"
cp swig/python/loaderx/*.py "$out/loaderx/"
cp "$bin/loaderx_native.py" "$bin/_loaderx_native.so" "$out/loaderx/"
chmod u+w "$out/loaderx/"*
echo "loaderx package in $out/loaderx; use it with: export PYTHONPATH=$(cd "$out" && pwd)"
