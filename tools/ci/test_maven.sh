#!/usr/bin/env bash
# loaderx.jar as a Maven user gets it, each step as README.md tells it:
#
#   artifacts      the jar as released: tools/packaging/build_jar.py links
#                  its JNI library self-contained (glibc only, checked) and
#                  writes loaderx-VERSION.jar and .pom
#   plugin-cache   the Maven plugins the steps below use (pinned in
#                  tests/java/maven_project/pom.xml and here) resolved from
#                  Maven Central into $LOADERX_CACHE/m2 (default
#                  /var/tmp/loaderx-cache/m2), once: the first run needs the
#                  registry and fails saying so when it cannot be reached
#   install-jar    `mvn -o install:install-file` puts the jar with its pom
#                  (org.loaderx:loaderx:VERSION) into that local repository
#   build          `mvn -o package` builds tests/java/maven_project, which
#                  depends on org.loaderx:loaderx, offline
#   run            `mvn -o exec:java` runs its class (a DenseStore written and
#                  read back in try-with-resources); so does plain `java` with
#                  the installed jar on the class path
#
# Every step after plugin-cache is offline (`-o`), so the test proves the
# cache is enough. The closing line is count_test_cases.py's
# `maven: N passed, M failed`, also added to TALLY.
#
#   bash tools/ci/test_maven.sh TALLY
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/../.."
root=$PWD

if (($# != 1)); then
  echo "usage: $0 TALLY" >&2
  exit 2
fi
tally=$1
cache="${LOADERX_CACHE:-/var/tmp/loaderx-cache}"
m2="$cache/m2"
version=$(sed -n 's/^LOADERX_VERSION = "\(.*\)"/\1/p' bazel/version.bzl)
install_plugin=org.apache.maven.plugins:maven-install-plugin:3.1.2
exec_plugin=org.codehaus.mojo:exec-maven-plugin:3.5.0

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$cache" "$work/xml"
source tools/ci/junit_cases.sh

mvn_() {
  mvn -B -ntp -Dmaven.repo.local="$m2" "$@"
}

build_artifacts() {
  /usr/bin/python3 tools/packaging/build_jar.py "$work/dist"
  mv "$work/dist/loaderx-$version.jar" "$work/loaderx.jar"
  mv "$work/dist/loaderx-$version.pom" "$work/loaderx.pom"
  grep -q "<version>$version</version>" "$work/loaderx.pom"
}

install_jar() {
  mvn_ "$@" "$install_plugin:install-file" -Dfile="$work/loaderx.jar" -DpomFile="$work/loaderx.pom"
  test -f "$m2/org/loaderx/loaderx/$version/loaderx-$version.jar"
}

# The user's project, copied out of the tree (Maven writes target/ beside it).
project() {
  rm -rf "$work/project"
  cp -r tests/java/maven_project "$work/project"
}

build_project() {
  mvn_ "$@" -f "$work/project/pom.xml" -Dloaderx.version="$version" package
}

run_project() {
  mvn_ "$@" -f "$work/project/pom.xml" -Dloaderx.version="$version" \
    "$exec_plugin:java" -Dexec.mainClass=example.StoreRoundTrip | tee "$work/run.out"
  grep -qx "maven: 1000 records round-tripped" "$work/run.out"
}

# Once per cache: the steps online, which resolves every plugin they use.
# Concurrent runs wait on the lock; an unfinished cache is filled again.
plugin_cache() {
  exec 8>"$cache/.m2.lock"
  flock 8
  if [[ -e "$m2/.complete" ]]; then
    echo "plugins already cached in $m2"
    return
  fi
  echo "resolving Maven plugins from Maven Central into $m2"
  project
  if ! install_jar || ! build_project || ! run_project; then
    echo "could not resolve the Maven plugins into $m2: is Maven Central reachable?" \
      "(the first run needs it; later runs are offline)"
    return 1
  fi
  touch "$m2/.complete"
}

offline_install() {
  rm -rf "$m2/org/loaderx"
  install_jar -o
}

offline_build() {
  project
  build_project -o
  ls "$work/project/target/loaderx-maven-user-1.0.jar"
}

offline_run() {
  run_project -o
  # The installed artifact alone, as any JVM program would use it.
  java -cp "$work/project/target/loaderx-maven-user-1.0.jar:$m2/org/loaderx/loaderx/$version/loaderx-$version.jar" \
    example.StoreRoundTrip | grep -qx "maven: 1000 records round-tripped"
}

run_case maven artifacts build_artifacts
((case_failed)) || run_case maven plugin-cache plugin_cache
if ((case_failed == 0)); then
  run_case maven install-jar offline_install
  ((case_failed)) || run_case maven build offline_build
  ((case_failed)) || run_case maven run offline_run
fi
rm -rf "$m2/org/loaderx"

write_cases maven "$work/xml/maven.xml"
/usr/bin/python3 tools/ci/count_test_cases.py maven --xml-dir "$work/xml" "$tally"
