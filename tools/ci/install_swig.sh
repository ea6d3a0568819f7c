#!/usr/bin/env bash
# Installs SWIG 4.5 (PyPI's `swig` wheel, which carries the binary and its
# library) into the dependency cache, for the Python extension: SWIG 4.3 and
# later can mark the module as safe without the GIL (`-nogil`), and their
# runtime builds against Python's limited API. Debian 12's SWIG 4.1 does
# neither; it still generates the Java binding.
#
#   bash tools/ci/install_swig.sh
#
# Result: $LOADERX_CACHE/swig-$VERSION/bin/swig, a wrapper that sets SWIG_LIB
# to the unpacked library. Cached: when that runs, nothing is fetched.
set -euo pipefail

CACHE=${LOADERX_CACHE:-/var/tmp/loaderx-cache}
VERSION=4.5.1
ROOT=$CACHE/swig-$VERSION

if [[ -x "$ROOT/bin/swig" ]] && "$ROOT/bin/swig" -version 2>/dev/null | grep -q "$VERSION"; then
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip download -q --disable-pip-version-check --no-deps \
  --only-binary :all: -d "$work" "swig==$VERSION"
rm -rf "$ROOT"
mkdir -p "$ROOT/bin"
python3 -m zipfile -e "$work"/swig-"$VERSION"-*.whl "$ROOT/wheel"
chmod +x "$ROOT/wheel/swig/data/bin/swig"
cat > "$ROOT/bin/swig" <<WRAPPER
#!/bin/sh
SWIG_LIB="$ROOT/wheel/swig/data/share/swig/$VERSION" exec "$ROOT/wheel/swig/data/bin/swig" "\$@"
WRAPPER
chmod +x "$ROOT/bin/swig"
"$ROOT/bin/swig" -version | grep -q "$VERSION"
echo "install_swig: SWIG $VERSION in $ROOT" >&2
