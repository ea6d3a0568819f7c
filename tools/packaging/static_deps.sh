#!/usr/bin/env bash
# Makes a directory of position-independent static archives, one for each
# library named, so that the Python extension can link them into itself
# (the wheel's `-L` directory, see tools/packaging/loaderx_build/):
#
#   bash tools/packaging/static_deps.sh LIB...      e.g. zstd absl_base stdc++
#
# prints the directory, $LOADERX_CACHE/static/lib-HASH (LOADERX_CACHE
# defaults to /var/tmp/loaderx-cache; HASH names what it was made from).
# For each `-lLIB`:
#
#   - the installed `libLIB.a` (Debian's, or GCC's for its runtime
#     libraries such as `stdc++`) is linked into the directory when it is
#     position-independent;
#   - otherwise the library is built from its Debian source package (the
#     version of the installed package where the archive still serves it),
#     with -fPIC, into the cache: `abseil` (CMake, only the libraries asked
#     for), `libzstd` and `zlib` (their Makefiles) are known; another
#     source package is an error naming it.
#
# Sources come with `apt-get source` from `deb-src` twins of the machine's
# own `deb` entries, with apt's state kept in the cache (the machine's apt
# configuration is not touched). Idempotent: with everything present it
# only checks, without network. Concurrent runs serialise on a lock.
set -euo pipefail

if (($# == 0)); then
  echo "usage: $0 LIB..." >&2
  exit 2
fi

cache="${LOADERX_CACHE:-/var/tmp/loaderx-cache}/static"
mkdir -p "$cache/src" "$cache/build"
exec 9>"$cache/.lock"
flock 9

log() { echo "static_deps: $*" >&2; }

# Whether archive $1 links into a shared object: objects built without
# -fPIC fail with a relocation error.
is_pic() {
  local output
  output=$(gcc -shared -o /dev/null -Wl,--whole-archive "$1" -Wl,--no-whole-archive 2>&1) && return 0
  if grep -q -e 'recompile with -fPIC' -e 'relocation R_X86_64' <<<"$output"; then
    return 1
  fi
  log "cannot tell whether $1 is position-independent:"
  echo "$output" >&2
  exit 1
}

# --- Debian sources ---------------------------------------------------------

apt_in_cache() {
  "$@" -o Dir::Etc::SourceList="$cache/apt/sources.list" \
    -o Dir::Etc::SourceParts="$cache/apt/sources.list.d" \
    -o Dir::State::Lists="$cache/apt/lists" \
    -o Dir::Cache="$cache/apt/cache"
}

apt_ready=0
prepare_apt() {
  ((apt_ready)) && return
  local file
  mkdir -p "$cache/apt/sources.list.d" "$cache/apt/lists/partial" "$cache/apt/cache"
  rm -f "$cache/apt/sources.list.d/"*
  for file in /etc/apt/sources.list.d/*.sources; do
    [[ -f "$file" ]] || continue
    sed -e 's/^Types:.*$/Types: deb-src/' "$file" >"$cache/apt/sources.list.d/${file##*/}"
  done
  grep -hE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    sed 's/^deb /deb-src /' >"$cache/apt/sources.list" || true
  # An entry without sources fails its part of the update; whether the
  # package's source is found is what counts (below).
  apt_in_cache apt-get -qq update >/dev/null 2>&1 || log "apt-get update reported errors (continuing)"
  apt_ready=1
}

# Unpacks source package $1 (the source of installed package $2) and prints
# its directory: the installed version if the archive serves it, else the
# newest it serves.
unpacked_source() {
  local source=$1 binary=$2 installed version candidates dir
  installed=$(dpkg-query -W -f='${source:Version}' "$binary")
  for dir in "$cache/src/$source-${installed#*:}" "$cache/src/$source"-*; do
    if [[ -e "$dir/.loaderx-complete" ]]; then
      echo "$dir"
      return
    fi
  done
  prepare_apt
  mapfile -t candidates < <({
    echo "$installed"
    apt_in_cache apt-cache showsrc "$source" | sed -n 's/^Version: //p' | sort -rV
  } | awk '!seen[$0]++')
  mkdir -p "$cache/downloads"
  for version in "${candidates[@]}"; do
    if (cd "$cache/downloads" &&
      apt_in_cache apt-get -qq source --download-only "$source=$version" >/dev/null 2>&1); then
      dir="$cache/src/$source-${version#*:}"
      rm -rf "$dir"
      dpkg-source --no-check -x "$cache/downloads/${source}_${version#*:}.dsc" "$dir" >/dev/null
      touch "$dir/.loaderx-complete"
      log "$source $version unpacked in $dir"
      [[ "$version" == "$installed" ]] ||
        log "WARNING: $source $version is older than the installed $installed, whose source is not served here"
      echo "$dir"
      return
    fi
    log "$source $version cannot be downloaded, trying an older one"
  done
  log "no version of the $source source package could be fetched"
  exit 1
}

# --- Builds from source -----------------------------------------------------

# Abseil as Debian builds it (C++17; Debian's options.h is in its source),
# position-independent, only the libraries asked for. $1: source directory;
# the rest: library names (absl_base, ...).
build_abseil() {
  local src=$1 build
  shift
  build="$cache/build/$(basename "$src")"
  if [[ ! -e "$build/CMakeCache.txt" ]]; then
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMAKE_CXX_STANDARD=17 \
      -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DBUILD_SHARED_LIBS=OFF \
      -DBUILD_TESTING=OFF >"$build.log" 2>&1 || {
      cat "$build.log" >&2
      exit 1
    }
  fi
  # The CMake target of libabsl_X.a is X.
  cmake --build "$build" -j "$(nproc)" --target "${@#absl_}" >>"$build.log" 2>&1 || {
    tail -n 50 "$build.log" >&2
    exit 1
  }
  local name
  for name in "$@"; do
    ln -sfn "$(find "$build/absl" -name "lib$name.a" -print -quit)" "$lib_dir/lib$name.a"
  done
}

# zstd's static library as upstream's Makefile builds it (Debian's too),
# position-independent. $1: source directory.
build_zstd() {
  local src=$1 build
  build="$cache/build/$(basename "$src")"
  if [[ ! -e "$build/libzstd.a" ]]; then
    rm -rf "$build"
    cp -a "$src/lib" "$build"
    make -C "$build" -j "$(nproc)" libzstd.a CFLAGS="-O3 -fPIC" >"$build.log" 2>&1 || {
      tail -n 50 "$build.log" >&2
      exit 1
    }
  fi
  ln -sfn "$build/libzstd.a" "$lib_dir/libzstd.a"
}

# zlib's static library (minizip's dependency, for the command line that
# the extension carries), position-independent. $1: source directory.
build_zlib() {
  local src=$1 build
  build="$cache/build/$(basename "$src")"
  if [[ ! -e "$build/libz.a" ]]; then
    rm -rf "$build"
    cp -a "$src" "$build"
    (cd "$build" && CFLAGS="-O3 -fPIC" ./configure --static >"$build.log" 2>&1 &&
      make -j "$(nproc)" libz.a >>"$build.log" 2>&1) || {
      tail -n 50 "$build.log" >&2
      exit 1
    }
  fi
  ln -sfn "$build/libz.a" "$lib_dir/libz.a"
}

# --- The libraries ----------------------------------------------------------

# The archive the compiler would link for `-l$1 -static`: GCC's own for its
# runtime libraries (libstdc++, libatomic), Debian's for the rest.
installed_archive() {
  local found
  found=$(g++ -print-file-name="lib$1.a")
  if [[ "$found" == /* ]]; then
    readlink -f "$found"
  else
    echo "lib$1.a (not found by g++)"
  fi
}

# What the directory is made from: this script, the libraries and their
# installed archives. The directory is named by it, so a change (a Debian
# update, another library) makes a new directory, and the Bazel link that
# names it with `-L` runs again: Bazel does not track files found by `-L`.
fingerprint=$(
  sha256sum "$0"
  for name in "$@"; do
    installed=$(installed_archive "$name")
    echo "$name $(stat -L -c '%n %s %Y' "$installed" 2>/dev/null || echo "$installed missing")"
  done
)
lib_dir="$cache/lib-$(sha256sum <<<"$fingerprint" | head -c 16)"
if [[ -e "$lib_dir/.complete" ]]; then
  echo "$lib_dir"
  exit 0
fi
rm -rf "$lib_dir"
mkdir -p "$lib_dir"

abseil_wanted=()
for name in "$@"; do
  target="$lib_dir/lib$name.a"
  installed=$(installed_archive "$name")
  if [[ ! -e "$installed" ]]; then
    log "no static library for -l$name ($installed is missing)"
    exit 1
  fi
  if is_pic "$installed"; then
    ln -s "$installed" "$target"
    continue
  fi
  binary=$(dpkg-query -S "$installed" | cut -d: -f1)
  source=$(dpkg-query -W -f='${source:Package}' "$binary")
  case "$source" in
    abseil) abseil_wanted+=("$name") ;;
    libzstd) build_zstd "$(unpacked_source libzstd "$binary")" ;;
    zlib) build_zlib "$(unpacked_source zlib "$binary")" ;;
    *)
      log "$installed (from $source) is not position-independent, and building $source is not known here"
      exit 1
      ;;
  esac
done
if ((${#abseil_wanted[@]} > 0)); then
  log "building ${abseil_wanted[*]} from Debian's abseil source"
  build_abseil "$(unpacked_source abseil libabsl-dev)" "${abseil_wanted[@]}"
fi

for name in "$@"; do
  is_pic "$lib_dir/lib$name.a" || {
    log "$lib_dir/lib$name.a is not position-independent"
    exit 1
  }
done
echo "$fingerprint" >"$lib_dir/.complete"
echo "$lib_dir"
