#!/usr/bin/env bash
# Installs every Debian package that building, testing and benchmarking loaderx
# needs. Idempotent: when everything is present it touches nothing (no
# `apt-get update`, no network). Safe to run on a fresh Debian 12 machine as root.
set -euo pipefail

PACKAGES=(
  # Build: Bazel 4 from Debian plus the rule repositories it would otherwise download.
  bazel-bootstrap bazel-platforms bazel-skylib bazel-rules-java
  g++ make git clang-format
  # Native libraries the engine and its tests link against.
  libzstd-dev libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev
  libmsgpack-cxx-dev
  # Bindings: SWIG, the Python headers and numpy, the JDK and JUnit.
  swig python3 python3-dev python3-numpy python3-pytest python3-venv
  default-jdk-headless junit4
  # Builds that use the installed library (tools/ci/test_consumers.sh).
  cmake pkgconf
  # The Python wheel (tools/packaging/): Debian source packages unpacked and
  # built position-independent, the extension's ELF headers read.
  dpkg-dev xz-utils binutils
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  SUDO=sudo
else
  SUDO=
fi
echo "install_deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
