#!/usr/bin/env bash
# Runs JUnit test classes against the Java binding, as a Bazel sh_test.
#   run_junit.sh <java> <binding jar> <native library> <tests jar> <test class>...
set -euo pipefail
java=$1 binding_jar=$2 native_library=$3 tests_jar=$4
shift 4
junit=/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar
exec "$java" \
  -Djava.library.path="$(dirname "$native_library")" \
  -cp "$binding_jar:$tests_jar:$junit" \
  org.loaderx.testing.JUnitXmlRunner "$@"
