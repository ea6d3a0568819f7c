#!/usr/bin/env bash
# Builds the extra CPython interpreters the Python suites also run on — 3.13 and
# the free-threaded 3.13t (configure --disable-gil) — from Debian's source
# package (trixie's python3.13; sid's 3.14 sources are not served here) into the
# dependency cache, and installs numpy from PyPI into each. Cached: an
# interpreter whose `bin/python3` already imports numpy is left alone, so a warm
# run does nothing and needs no network.
#
#   bash tools/ci/pythons.sh            # both
#   bash tools/ci/pythons.sh 3.13t      # one
#
# Result: $LOADERX_CACHE/python/<name>/bin/python3 for name in 3.13, 3.13t.
# Cold cost: a plain build (no PGO/LTO, no test run) at `nice`, a few minutes of
# CPU each on two cores. The build's own dependencies (libssl-dev, zlib1g-dev,
# libffi-dev, libbz2-dev, liblzma-dev, libsqlite3-dev) come from install_deps.sh.
set -euo pipefail

CACHE=${LOADERX_CACHE:-/var/tmp/loaderx-cache}
PY_ROOT=$CACHE/python
SRC_CACHE=$CACHE/python-src
SUITE=trixie
NUMPY_SPEC='numpy>=2.1,<3'   # 2.1 is the first numpy with cp313t wheels

names=("$@")
((${#names[@]})) || names=(3.13 3.13t)

ready() { # name
  [[ -x "$PY_ROOT/$1/bin/python3" ]] &&
    "$PY_ROOT/$1/bin/python3" -c 'import numpy, ssl' >/dev/null 2>&1
}

fetch_source() { # -> prints the unpacked source directory
  local dir
  dir=$(find "$SRC_CACHE" -maxdepth 1 -type d -name 'python3.13-3.13*' 2>/dev/null | head -1)
  if [[ -n "$dir" ]]; then echo "$dir"; return; fi
  local apt_dir=$SRC_CACHE/apt
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $SUITE main" \
    > "$apt_dir/sources.list"
  local apt=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o Dir::Etc::sourceparts=-
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache")
  apt-get "${apt[@]}" update -qq >&2
  (cd "$SRC_CACHE" && apt-get "${apt[@]}" source --download-only python3.13 >&2)
  local orig
  orig=$(ls "$SRC_CACHE"/python3.13_*.orig.tar.xz | head -1)
  tar -C "$SRC_CACHE" -xf "$orig"
  # The upstream tarball unpacks as Python-3.13.x; name it after the package.
  local up
  up=$(find "$SRC_CACHE" -maxdepth 1 -type d -name 'Python-3.13*' | head -1)
  mv "$up" "$SRC_CACHE/python3.13-$(basename "$up" | sed 's/^Python-//')"
  find "$SRC_CACHE" -maxdepth 1 -type d -name 'python3.13-3.13*' | head -1
}

build() { # name
  local name=$1 flags=()
  [[ "$name" == *t ]] && flags+=(--disable-gil)
  local src build_dir prefix=$PY_ROOT/$name
  src=$(fetch_source)
  build_dir=$CACHE/python-build/$name
  rm -rf "$build_dir" "$prefix"
  mkdir -p "$build_dir"
  echo "pythons: building CPython $name from $(basename "$src") into $prefix" >&2
  (cd "$build_dir" &&
    "$src/configure" --prefix="$prefix" --without-ensurepip --disable-test-modules \
      "${flags[@]}" >configure.log 2>&1 &&
    nice -n 10 make -j"$(nproc)" >make.log 2>&1 &&
    make install >install.log 2>&1) || {
    echo "pythons: building $name failed; logs in $build_dir" >&2; return 1; }
  ln -sf "$(ls "$prefix/bin" | grep -E '^python3\.13t?$' | head -1)" "$prefix/bin/python3"
  rm -rf "$build_dir"
}

install_numpy() { # name
  local py=$PY_ROOT/$1/bin/python3
  # pip itself comes from PyPI as a wheel (the build has no ensurepip).
  if ! "$py" -m pip --version >/dev/null 2>&1; then
    local wheels=$CACHE/wheels
    mkdir -p "$wheels"
    ls "$wheels"/pip-*.whl >/dev/null 2>&1 ||
      python3 -m pip download -q --no-deps --only-binary :all: -d "$wheels" pip
    "$py" "$(ls "$wheels"/pip-*.whl | head -1)/pip" install -q --no-index "$(ls "$wheels"/pip-*.whl | head -1)"
  fi
  "$py" -m pip install -q --disable-pip-version-check --only-binary :all: \
    --cache-dir "$CACHE/pip-cache" "$NUMPY_SPEC" pytest
}

for name in "${names[@]}"; do
  if ready "$name"; then continue; fi
  [[ -x "$PY_ROOT/$name/bin/python3" ]] || build "$name"
  install_numpy "$name"
  ready "$name" || { echo "pythons: $name is not usable" >&2; exit 1; }
done
