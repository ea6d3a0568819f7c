#!/usr/bin/env bash
# Runs JUnit test classes against the Java binding, as a Bazel sh_test.
#   run_junit.sh <binding jar> <native library> <tests jar> <test class>...
set -euo pipefail
binding_jar=$1 native_library=$2 tests_jar=$3
shift 3
junit=/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar
exec /usr/lib/jvm/default-java/bin/java \
  -Djava.library.path="$(dirname "$native_library")" \
  -cp "$binding_jar:$tests_jar:$junit" \
  org.loaderx.testing.JUnitXmlRunner "$@"
