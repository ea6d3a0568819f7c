#!/usr/bin/env bash
# Runs JUnit test classes against the Java binding, as a Bazel sh_test. The
# jar loads the native library it carries: no java.library.path.
#   run_junit.sh <java> <binding jar> <tests jar> <test class>...
set -euo pipefail
java=$1 binding_jar=$2 tests_jar=$3
shift 3
junit=/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar
exec "$java" \
  -cp "$binding_jar:$tests_jar:$junit" \
  org.loaderx.testing.JUnitXmlRunner "$@"
