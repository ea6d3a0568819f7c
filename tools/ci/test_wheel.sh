#!/usr/bin/env bash
# The Python package as users install it, each step as README.md tells it:
#
#   wheel          `python -m build --wheel` (Debian's python3, with `build`
#                  from PyPI) makes dist/loaderx_cpp-VERSION-cp311-abi3-
#                  manylinux_X_Y_x86_64.whl (abi3: CPython 3.11+) through Bazel
#   auditwheel     `auditwheel show` (from PyPI) finds it consistent with the
#                  manylinux tag it carries
#   numpyN-*       for numpy 1.x and 2.x: a fresh venv of a second CPython
#                  3.11 build (pyenv's), the wheel installed into it, the
#                  quick start (tools/examples/quickstart.py) and the checks
#                  of tests/wheel/installed_test.py (pytest) run there, and
#                  `mypy --strict` (from PyPI) checks tests/wheel/
#                  typed_usage.py against the installed package
#   py313-abi3     the same wheel in a venv of CPython 3.13 (tools/ci/
#                  pythons.sh's, with its numpy 2): quick start and checks
#   py313t-wheel   a cp313-cp313t wheel built (pip wheel) on free-threaded
#                  3.13t, auditwheel, a 3.13t venv: quick start, checks, GIL off
#   pip-install    `pip install .` from the clone into a fresh venv of
#                  Debian's python3, then the same checks
#
# The second interpreter is $LOADERX_SECOND_PYTHON, else the newest pyenv
# 3.11 (${PYENV_ROOT:-~/.pyenv}/versions/3.11.*), else another python3.11
# on PATH; without one the suite fails saying so. What comes from PyPI
# (build, auditwheel, mypy; numpy and pytest as wheels) is kept in
# $LOADERX_CACHE/wheel (default /var/tmp/loaderx-cache), fetched once;
# the venvs the wheel goes into are new every run. The closing line is
# count_test_cases.py's `wheel: N passed, M failed`, also added to TALLY.
#
#   bash tools/ci/test_wheel.sh TALLY
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/../.."
root=$PWD

if (($# != 1)); then
  echo "usage: $0 TALLY" >&2
  exit 2
fi
tally=$1
cache="${LOADERX_CACHE:-/var/tmp/loaderx-cache}/wheel"
first_python=/usr/bin/python3
version=$(sed -n 's/^LOADERX_VERSION = "\(.*\)"/\1/p' bazel/version.bzl)
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$cache" "$work/xml" "$work/dist"
source tools/ci/junit_cases.sh

# A CPython 3.11 that is not $first_python's build.
second_python() {
  local candidate first
  first=$(readlink -f "$first_python")
  for candidate in ${LOADERX_SECOND_PYTHON:-} \
    $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.11*/bin/python3 2>/dev/null | sort -rV) \
    $(type -ap python3.11); do
    [[ -x "$candidate" && "$(readlink -f "$candidate")" != "$first" ]] || continue
    if "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
      echo "$candidate"
      return
    fi
  done
  return 1
}

# Makes directory $1 with command $2 (given the directory) unless it is
# complete already; an unfinished one is made again. (In place: a venv
# cannot be moved.)
cached() {
  [[ -e "$1/.complete" ]] && return
  rm -rf "$1"
  "$2" "$1"
  touch "$1/.complete"
}

make_tools_venv() {
  "$first_python" -m venv "$1"
  "$1/bin/pip" install -q "${TOOLS[@]}"
}

# Wheels of what the venvs get from PyPI, for the second interpreter (the
# first takes the same cp311 wheels).
make_wheelhouse() {
  local requirement
  for requirement in "${WHEELHOUSE[@]}"; do
    "$second" -m pip download -q --only-binary=:all: -d "$1" "$requirement"
  done
}

TOOLS=("build>=1.2,<2" "auditwheel>=6,<7" "mypy>=1.8,<3")
WHEELHOUSE=("numpy>=1.23,<2" "numpy>=2,<3" "pytest>=7")
# Named by what they hold, so a change of requirements makes new ones.
tools="$cache/tools-$(echo "$first_python ${TOOLS[*]}" | sha256sum | head -c 12)"
wheelhouse="$cache/wheelhouse-$(echo "${WHEELHOUSE[*]}" | sha256sum | head -c 12)"

# --- The cases --------------------------------------------------------------

find_interpreters() {
  second=$(second_python) || {
    echo "no second CPython 3.11 besides $first_python: install one with pyenv" \
      "(${PYENV_ROOT:-~/.pyenv}/versions/3.11.*) or set LOADERX_SECOND_PYTHON"
    return 1
  }
  echo "first: $first_python $("$first_python" -VV)"
  echo "second: $second $("$second" -VV)"
  echo "$second" >"$work/second"
}

# What comes from PyPI, into the cache (once; concurrent runs wait here).
pypi_cache() {
  second=$(cat "$work/second")
  exec 8>"$cache/.lock"
  flock 8
  cached "$tools" make_tools_venv
  cached "$wheelhouse" make_wheelhouse
  ls "$tools/bin" "$wheelhouse"
}

# As README.md has it (into dist/), then moved to the scratch directory.
build_wheel() {
  local name
  "$tools/bin/python" -m build --wheel 2>&1 | tee "$work/build.out"
  name=$(sed -n 's/^Successfully built //p' "$work/build.out")
  mv "dist/$name" "$work/dist/"
  rmdir dist 2>/dev/null || true
  ls "$work/dist"/loaderx_cpp-"$version"-cp311-abi3-manylinux_*_x86_64.whl
}

audit_wheel() {
  local wheel tag report
  wheel=$(ls "$work/dist"/*.whl)
  tag=$(basename "$wheel" .whl | cut -d- -f5)
  report=$("$tools/bin/auditwheel" show "$wheel")
  echo "$report"
  # auditwheel wraps its sentence; the tag follows "platform tag:".
  tr '\n' ' ' <<<"$report" | grep -q "is consistent with the following platform tag: \"$tag\"" || {
    echo "auditwheel does not find $wheel consistent with its own tag $tag"
    return 1
  }
}

# A fresh venv of $2 at $1 with numpy of major $3 and pytest. `pip`
# (with `--pip`) is its own; otherwise the tools' pip installs into it,
# which saves seconds per venv.
fresh_venv() {
  local pip
  if [[ "${4:-}" == --pip ]]; then
    "$2" -m venv "$1"
    pip=("$1/bin/pip")
  else
    "$2" -m venv --without-pip "$1"
    pip=("$tools/bin/pip" --python "$1/bin/python")
  fi
  "${pip[@]}" install -q --no-compile --no-index --find-links "$wheelhouse" \
    "numpy>=$3,<$(($3 + 1))" pytest
}

# The checks, run from outside the source tree so that `loaderx` is the
# installed one. $1: the venv; $2: its numpy major; $3: the report's name.
installed_checks() {
  mkdir -p "$work/run-$3"
  cd "$work/run-$3"
  LOADERX_EXPECT_NUMPY=$2 "$1/bin/python" -m pytest -q -p no:cacheprovider \
    --junitxml="$work/xml/$3.xml" -o junit_suite_name="wheel-$3" \
    "$root/tests/wheel/installed_test.py"
}

install_wheel() {
  fresh_venv "$work/venv-numpy$numpy" "$(cat "$work/second")" "$numpy"
  "$tools/bin/pip" --python "$work/venv-numpy$numpy/bin/python" install --no-index \
    "$(ls "$work/dist"/*.whl)"
}

quickstart() {
  cd "$work"
  "$work/venv-numpy$numpy/bin/python" "$root/tools/examples/quickstart.py" "$work/quickstart-numpy$numpy"
}

checks() {
  installed_checks "$work/venv-numpy$numpy" "$numpy" "numpy$numpy"
}

# The public API's annotations, as typed code sees them (py.typed).
typing_check() {
  cd "$work"
  "$tools/bin/mypy" --strict --cache-dir "$work/mypy-cache-$numpy" \
    --python-executable "$work/venv-numpy$numpy/bin/python" "$root/tests/wheel/typed_usage.py"
}

# The same abi3 wheel on CPython 3.13 (tools/ci/pythons.sh's, whose numpy
# and pytest the venv sees): one wheel for 3.11 and later.
py313_abi3() {
  local python="${LOADERX_CACHE:-/var/tmp/loaderx-cache}/python/3.13/bin/python3"
  "$python" -m venv --system-site-packages --without-pip "$work/venv-py313"
  # The interpreter's own pip (seen through the system site packages): the
  # tools' pip is older than 3.13.
  "$work/venv-py313/bin/python" -m pip install -q --no-index --no-deps \
    "$(ls "$work/dist"/*.whl)"
  cd "$work"
  "$work/venv-py313/bin/python" "$root/tools/examples/quickstart.py" "$work/quickstart-py313"
  installed_checks "$work/venv-py313" 2 py313-abi3
}

# A wheel built on free-threaded 3.13t (`cp313-cp313t`: there is no limited
# API there), checked by auditwheel and installed into a 3.13t venv: the
# quick start, the checks, and the GIL still off after the import.
py313t_wheel() {
  local python="${LOADERX_CACHE:-/var/tmp/loaderx-cache}/python/3.13t/bin/python3"
  local wheel
  cd "$work"
  "$python" -m pip wheel -q --no-deps --no-build-isolation -w "$work/dist-ft" "$root"
  wheel=$(ls "$work/dist-ft"/loaderx_cpp-"$version"-cp313-cp313t-manylinux_*_x86_64.whl)
  "$tools/bin/auditwheel" show "$wheel"
  "$python" -m venv --system-site-packages --without-pip "$work/venv-py313t"
  "$work/venv-py313t/bin/python" -m pip install -q --no-index --no-deps "$wheel"
  "$work/venv-py313t/bin/python" "$root/tools/examples/quickstart.py" "$work/quickstart-py313t"
  "$work/venv-py313t/bin/python" -c \
    'import sys, loaderx.loaderx_native; sys.exit(sys._is_gil_enabled())'
  installed_checks "$work/venv-py313t" 2 py313t-wheel
}

pip_install_dot() {
  fresh_venv "$work/venv-pip" "$first_python" 2 --pip
  "$work/venv-pip/bin/pip" install .
  installed_checks "$work/venv-pip" 2 pip-install
}

run_case wheel interpreters find_interpreters
((case_failed)) || run_case wheel pypi-cache pypi_cache
((case_failed)) || run_case wheel build build_wheel
if ((case_failed == 0)); then
  run_case wheel auditwheel audit_wheel
  for numpy in 1 2; do
    run_case wheel "numpy$numpy-install" install_wheel
    ((case_failed)) && continue
    run_case wheel "numpy$numpy-quickstart" quickstart
    run_case wheel "numpy$numpy-checks" checks
    run_case wheel "numpy$numpy-typing" typing_check
  done
  run_case wheel py313-abi3 py313_abi3
  run_case wheel py313t-wheel py313t_wheel
  run_case wheel pip-install pip_install_dot
fi

write_cases wheel "$work/xml/wheel.xml"
/usr/bin/python3 tools/ci/count_test_cases.py wheel --xml-dir "$work/xml" "$tally"
