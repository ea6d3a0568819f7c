#!/usr/bin/env bash
# Builds the documentation site (HTML) into one folder, default build/site:
#
#   index.html ...   the guides (docs/*.md, MyST) and the Python API
#                    reference (autodoc over the built package), by Sphinx
#   cpp-api/         the C++ API and plugin SPI, by Doxygen (docs/Doxyfile)
#   java-api/        the Java API (org.loaderx), by Javadoc
#
# Every warning of the three fails the build. Needs the Debian packages
# doxygen, python3-sphinx and python3-myst-parser (tools/ci/install_deps.sh)
# and builds the Python package and the jar with Bazel.
#
#   bash tools/docs/build_site.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(realpath -m "${1:-build/site}")

package=$(mktemp -d)
trap 'rm -rf "$package"' EXIT
bash tools/docs/stage_python_package.sh "$package"
jar="$(bazel info bazel-bin 2>/dev/null)/swig/loaderx.jar"

rm -rf "$out"
mkdir -p "$out"
PYTHONPATH="$package" /usr/bin/python3 -m sphinx -W --keep-going -q -b html \
  docs "$out"
mkdir -p "$out/cpp-api"
(cat docs/Doxyfile && echo "OUTPUT_DIRECTORY = $out/cpp-api") | doxygen -
javadoc -quiet -Werror -Xdoclint:all -d "$out/java-api" \
  -sourcepath swig/java -cp "$jar" \
  -subpackages org.loaderx -exclude org.loaderx.internal:org.loaderx.testing \
  >/dev/null
echo "site: $out/index.html"
