#!/usr/bin/env bash
# Prepares the Windows build and test environment in a cache outside the
# repository (called by `install_deps.sh --windows`, after the MinGW-w64 and
# Wine packages are installed):
#
#   $LOADERX_CACHE/mingw/src/abseil   Debian's abseil source, patched
#   $LOADERX_CACHE/mingw/src/zstd     Debian's libzstd source, patched
#   $LOADERX_CACHE/mingw/wine         a Wine prefix for running the tests
#
# (LOADERX_CACHE defaults to /var/tmp/loaderx-cache.) Each source is
# unpacked into a directory named by its Debian version, and `src/NAME`
# links to it, so the Bazel repositories in bazel/mingw/ and the build
# cache stay keyed by version. Sources come with `apt-get source` from
# `deb-src` entries derived from the machine's own `deb` entries, with
# apt's state kept in the cache: the machine's apt configuration is not
# touched. GoogleTest comes from `/usr/src/googletest` (Debian's
# `googletest`) and msgpack-c++ from Debian's headers, so neither is
# fetched. Idempotent: when everything is present it does nothing, without
# network. Concurrent runs serialise on a lock in the cache.
set -euo pipefail

cache="${LOADERX_CACHE:-/var/tmp/loaderx-cache}/mingw"
mkdir -p "$cache/src"
exec 9>"$cache/.lock"
flock 9

# The `deb-src` twin of every `deb` entry this machine uses, deb822 and
# one-line entries alike, written into the cache's own apt configuration.
write_source_entries() {
  local file
  mkdir -p "$cache/apt/sources.list.d"
  rm -f "$cache/apt/sources.list.d/"*
  for file in /etc/apt/sources.list.d/*.sources; do
    [[ -f "$file" ]] || continue
    sed -e 's/^Types:.*$/Types: deb-src/' "$file" \
      >"$cache/apt/sources.list.d/$(basename "$file")"
  done
  grep -hE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    sed 's/^deb /deb-src /' >"$cache/apt/sources.list" || true
}

apt_in_cache() {
  apt-get -q -o Dir::Etc::SourceList="$cache/apt/sources.list" \
    -o Dir::Etc::SourceParts="$cache/apt/sources.list.d" \
    -o Dir::State::Lists="$cache/apt/lists" \
    -o Dir::Cache="$cache/apt/cache" "$@"
}

apt_cache_in_cache() {
  apt-cache -o Dir::Etc::SourceList="$cache/apt/sources.list" \
    -o Dir::Etc::SourceParts="$cache/apt/sources.list.d" \
    -o Dir::State::Lists="$cache/apt/lists" \
    -o Dir::Cache="$cache/apt/cache" "$@"
}

apt_ready=0
prepare_apt() {
  ((apt_ready)) && return
  mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache"
  write_source_entries
  # A third-party entry without sources fails its part of the update; what
  # matters is whether Debian's sources are found below.
  apt_in_cache update -qq >/dev/null 2>&1 ||
    echo "install_windows_deps: apt-get update reported errors (continuing)" >&2
  apt_ready=1
}

# fetch_source NAME SOURCE BINARY: unpacks (and patches) Debian source
# package SOURCE into src/NAME-VERSION and points src/NAME at it. VERSION is
# that of the installed binary package BINARY if the archive still serves
# it (so the Windows build compiles what the Linux build links), else the
# newest it does serve.
fetch_source() {
  local name=$1 source=$2 binary=$3
  if [[ -e "$cache/src/$name/.loaderx-complete" ]]; then
    return
  fi
  prepare_apt
  local wanted candidates version
  wanted=$(dpkg-query -W -f='${source:Version}' "$binary" 2>/dev/null || true)
  mapfile -t candidates < <(
    { [[ -n "$wanted" ]] && echo "$wanted"
      apt_cache_in_cache showsrc "$source" | sed -n 's/^Version: //p' | sort -rV; } |
      awk '!seen[$0]++')
  mkdir -p "$cache/downloads"
  for version in "${candidates[@]}"; do
    if (cd "$cache/downloads" &&
        apt_in_cache source --download-only "$source=$version" >/dev/null 2>&1); then
      local dsc="$cache/downloads/${source}_${version#*:}.dsc"
      local dir="$cache/src/$name-${version#*:}"
      rm -rf "$dir"
      dpkg-source --no-check -x "$dsc" "$dir" >/dev/null
      rm -f "$cache/src/"*.orig.tar.* "$cache/src/"*.debian.tar.*
      touch "$dir/.loaderx-complete"
      ln -sfn "$(basename "$dir")" "$cache/src/$name"
      echo "install_windows_deps: $source $version unpacked in $dir" >&2
      return
    fi
    echo "install_windows_deps: $source $version is not downloadable, trying an older one" >&2
  done
  echo "install_windows_deps: no version of the $source source could be fetched" >&2
  exit 1
}

fetch_source abseil abseil libabsl-dev
fetch_source zstd libzstd libzstd-dev

# A Wine prefix made once per Wine version. No display is needed for
# console programs; the Mono and Gecko installers are switched off so
# nothing waits for a dialog.
wine_version=$(dpkg-query -W -f='${Version}' wine64)
prefix="$cache/wine-$wine_version"
if [[ ! -e "$prefix/.loaderx-complete" ]]; then
  rm -rf "$prefix"
  WINEPREFIX="$prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" \
    DISPLAY= /usr/lib/wine/wine64 wineboot --init >/dev/null 2>&1 || true
  WINEPREFIX="$prefix" /usr/lib/wine/wineserver64 -w
  [[ -d "$prefix/drive_c/windows" ]] || {
    echo "install_windows_deps: wineboot did not create $prefix" >&2
    exit 1
  }
  touch "$prefix/.loaderx-complete"
fi
ln -sfn "$(basename "$prefix")" "$cache/wine"
