#!/usr/bin/env bash
# Builds the Python package (//swig:python) and copies it, sources and
# native module, into DIR/loaderx, so `PYTHONPATH=DIR` imports the build.
#
#   bash tools/docs/stage_python_package.sh DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$1
bazel build //swig:python //swig:loaderx_jar
bin=$(bazel info bazel-bin 2>/dev/null)
mkdir -p "$dir/loaderx"
cp swig/python/loaderx/*.py swig/python/loaderx/py.typed "$dir/loaderx/"
cp "$bin/swig/python/loaderx/loaderx_native.py" \
  "$bin/swig/python/loaderx/_loaderx_native.so" "$dir/loaderx/"
