#!/usr/bin/env bash
# The documentation's checks, as JUnit cases counted into TALLY:
#
#   examples    every block README.md and docs/*.md mark `<!-- example: LANG -->`
#               runs (tools/docs/run_examples.py): Python in a fresh process
#               against the built package, shell with the installed CLI,
#               C++ compiled against the installed tree, Java against the jar;
#               one case per example
#   links       no broken relative link or heading anchor (check_links.py)
#   docstrings  every public Python name has a docstring (check_docstrings.py)
#   chart       README's headline chart is what its table draws
#   format      docs/format.md is what the format headers' comments give
#   site        tools/docs/build_site.sh: Sphinx, Doxygen and Javadoc, with
#               every warning an error (Javadoc under -Xdoclint:all: every
#               public name of org.loaderx documented, with its parameters,
#               result and declared exceptions)
#
# The closing line is `docs: N passed, M failed`.
#
#   bash tools/ci/test_docs.sh TALLY [BAZEL_FLAG...]
set -euo pipefail
cd "$(dirname "$0")/../.."

if (($# < 1)); then
  echo "usage: $0 TALLY [BAZEL_FLAG...]" >&2
  exit 2
fi
tally=$1
shift

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pages=(README.md docs/*.md)
mkdir -p "$work/xml"

# What the examples run against: the package, the jar and an installed tree.
bash tools/docs/stage_python_package.sh "$work/python" >"$work/stage.log" 2>&1 ||
  { tail -n 40 "$work/stage.log"; exit 1; }
jar="$(bazel info "$@" bazel-bin 2>/dev/null)/swig/loaderx.jar"
bazel run "$@" -c opt //:install -- "$work/prefix" >"$work/install.log" 2>&1 ||
  { tail -n 40 "$work/install.log"; exit 1; }

status=0
/usr/bin/python3 tools/docs/run_examples.py --python-path "$work/python" \
  --prefix "$work/prefix" --jar "$jar" --xml "$work/xml/examples.xml" \
  "${pages[@]}" || status=1

links() { /usr/bin/python3 tools/docs/check_links.py "${pages[@]}"; }
docstrings() {
  PYTHONPATH="$work/python" /usr/bin/python3 tools/docs/check_docstrings.py
}
chart() { /usr/bin/python3 tools/docs/headline_chart.py --check; }
format_page() { /usr/bin/python3 tools/docs/format_page.py --check; }
site() { bash tools/docs/build_site.sh "$work/site"; }

source tools/ci/junit_cases.sh
run_case docs links links
run_case docs docstrings docstrings
run_case docs chart chart
run_case docs format format_page
run_case docs site site
write_cases docs "$work/xml/checks.xml"
/usr/bin/python3 tools/ci/count_test_cases.py docs --xml-dir "$work/xml" "$tally" ||
  status=1
exit "$status"
