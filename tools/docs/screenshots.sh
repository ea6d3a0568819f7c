#!/usr/bin/env bash
# Builds the site and renders three of its pages to docs/img/ with Debian's
# headless Chromium (`apt-get install chromium`; not needed by the tests):
# site-index.png, site-python-api.png and site-cpp-api.png, so a reader of
# the repository sees what the site looks like.
#
#   bash tools/docs/screenshots.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
bash tools/docs/build_site.sh "$site/html" >/dev/null
shoot() {
  # The flags keep Chromium off this machine's closed network.
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$site/profile-$1" --window-size=1280,900 \
    --screenshot="docs/img/$1.png" "file://$site/html/$2" >/dev/null 2>&1
  echo "docs/img/$1.png: $2"
}
shoot site-index index.html
shoot site-python-api python-api.html
shoot site-cpp-api cpp-api/classloaderx_1_1DenseStore.html
