#!/bin/sh
# A full disk on a real filesystem: a private 1 MiB tmpfs (a mount
# namespace of its own, so nothing outside sees it), filled under a store of
# each kind by tmpfs_probe (see there for what is checked). Needs to mount:
# root, or a user namespace; where neither is allowed the test says so and
# passes without running (the fault-VFS suite, full_disk_test, still runs).
set -eu
probe="$1"
case "$probe" in /*) ;; *) probe="$PWD/$probe" ;; esac
mnt="${TEST_TMPDIR:-/tmp}/full_disk_mnt"
mkdir -p "$mnt"
run='mount -t tmpfs -o size=1m loaderx_full_disk "$1" && "$2" "$1"'
if unshare -m true 2>/dev/null; then
  exec unshare -m sh -c "$run" sh "$mnt" "$probe"
elif unshare -Urm true 2>/dev/null; then
  exec unshare -Urm sh -c "$run" sh "$mnt" "$probe"
fi
echo "SKIPPED: this sandbox permits no mount namespace (unshare -m and" \
  "unshare -Urm both refused), so no small tmpfs can be made" >&2
exit 0
