#!/usr/bin/env bash
# Runs the store round trip in the test's scratch directory.
exec "$1" "$TEST_TMPDIR/store"
