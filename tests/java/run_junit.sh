#!/usr/bin/env bash
# Runs JUnit test classes against the Java binding, as a Bazel sh_test. The
# jar loads the native library it carries: no java.library.path.
#   run_junit.sh <java> <binding jar> <tests jar> <test class>...
set -euo pipefail
java=$1 binding_jar=$2 tests_jar=$3
shift 3
junit=/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar
# Allocations of 128 KiB and more get mappings of their own that freeing
# unmaps (glibc otherwise raises the threshold after the first such free and
# recycles them), so a read of freed native memory crashes instead of
# passing unnoticed (BatchLifetimeTest).
export GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072
exec "$java" \
  -cp "$binding_jar:$tests_jar:$junit" \
  org.loaderx.testing.JUnitXmlRunner "$@"
