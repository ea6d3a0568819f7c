#!/usr/bin/env bash
# Installs every Debian package that building, testing and benchmarking loaderx
# needs. Idempotent: when everything is present it touches nothing (no
# `apt-get update`, no network). Safe to run on a fresh Debian 12 machine as root.
#
#   bash tools/ci/install_deps.sh [--windows]
#
# --windows adds what the Windows build and its tests under Wine need: the
# MinGW-w64 cross compiler, Wine, and (install_windows_deps.sh) the Debian
# sources of the libraries it compiles and a Wine prefix, in a cache outside
# the repository.
set -euo pipefail
cd "$(dirname "$0")/../.."

PACKAGES=(
  # Build: Bazel 4 from Debian plus the rule repositories it would otherwise download.
  bazel-bootstrap bazel-platforms bazel-skylib bazel-rules-java
  g++ make git clang-format
  # The libFuzzer targets (--config=fuzz, tools/ci/run_fuzzers.sh): clang and
  # its sanitizer and libFuzzer runtimes.
  clang libclang-rt-14-dev
  # Native libraries the engine and its tests link against.
  libzstd-dev libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev
  libmsgpack-cxx-dev libxxhash-dev
  # The `loaderx` command reads .npz (zip) archives with minizip.
  libminizip-dev
  # Bindings: SWIG, the Python headers and numpy, the JDK and JUnit.
  swig python3 python3-dev python3-numpy python3-pytest python3-venv
  # 1.7.7's own suite (tests/oracle/reference_suite_test.py) reads store.zr with msgpack.
  python3-msgpack
  default-jdk-headless junit4
  # torch, for the tests of stores pickled into DataLoader workers
  # (tests/python/pickle_test.py: spawned workers open them read-only).
  python3-torch
  # loaderx.jar installed into a local Maven repository and used by a Maven
  # project (tools/ci/test_maven.sh).
  maven
  # The Scala example (tests/scala/), compiled against loaderx.jar.
  scala
  # Builds that use the installed library (tools/ci/test_consumers.sh).
  cmake pkgconf
  # CPython 3.13/3.13t built from source (tools/ci/pythons.sh).
  libssl-dev zlib1g-dev libffi-dev libbz2-dev liblzma-dev libsqlite3-dev
  # The Python wheel (tools/packaging/): Debian source packages unpacked and
  # built position-independent, the extension's ELF headers read.
  dpkg-dev xz-utils binutils
  # The documentation site (tools/docs/build_site.sh): Sphinx with MyST for
  # the guides and the Python reference, Doxygen for the C++ reference.
  doxygen python3-sphinx python3-myst-parser
)
windows=0
if [[ "${1:-}" == --windows ]]; then
  windows=1
  PACKAGES+=(
    # The Windows build: MinGW-w64 (POSIX threads), Wine to run its tests,
    # dpkg-dev to unpack Debian sources, GoogleTest's source.
    g++-mingw-w64-x86-64-posix wine64 dpkg-dev googletest
  )
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done

if ((${#missing[@]} > 0)); then
  if [[ $(id -u) -ne 0 ]]; then
    SUDO=sudo
  else
    SUDO=
  fi
  echo "install_deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# SWIG 4.5 for the Python module (PyPI's `swig` wheel; Debian 12's 4.1
# cannot mark it free-threading safe), and the extra interpreters the Python
# suites run on: CPython 3.13 and free-threaded 3.13t, built once from
# Debian's source package into the cache (cold: minutes of CPU; then nothing).
bash tools/ci/install_swig.sh
bash tools/ci/pythons.sh

if ((windows)); then
  bash tools/ci/install_windows_deps.sh
fi
