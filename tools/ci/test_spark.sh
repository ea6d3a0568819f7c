#!/usr/bin/env bash
# The Spark connector (org.loaderx.spark, spark/): built against Spark's jars
# and loaderx.jar, then run in local mode with 4 task threads, each case a
# JUnit test case:
#
#   install    Spark's jars, resolved once into the cache by
#              tools/ci/install_spark.sh (offline afterwards)
#   build      loaderx.jar (`bazel build //swig:loaderx_jar`), then javac:
#              loaderx-spark.jar (the connector and its DataSourceRegister
#              service file) and the test classes
#   SparkConnectorTest's cases (spark/test/): write-retry-read,
#              storeset-api, speculative-attempts, overwrite-and-refusals
#              (the class comment says what each checks)
#   scala      spark/test/SparkExample.scala (docs/spark.md's Scala example)
#              compiled with Scala 2.13 (install_spark.sh scalac) and run
#   pyspark    PySpark (installed once into the cache by install_spark.sh
#              pyspark) writes and reads a data set with the connector on
#              `spark.jars`, and loaderx's Python StoreSet reads it
#              (spark/test/pyspark_round_trip.py)
#
# The closing line is count_test_cases.py's `spark: N passed, M failed`,
# also added to TALLY.
#
#   bash tools/ci/test_spark.sh TALLY [BAZEL FLAGS...]
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/../.."
root=$PWD

if (($# < 1)); then
  echo "usage: $0 TALLY [BAZEL FLAGS...]" >&2
  exit 2
fi
tally=$1
shift
bazel_flags=("$@")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/xml" "$work/classes" "$work/test" "$work/scratch"
source tools/ci/junit_cases.sh

# What Spark's own launcher passes to Java 17 (Spark needs these packages open).
java_opens=()
for package in java.lang java.lang.invoke java.lang.reflect java.io java.net java.nio \
  java.util java.util.concurrent java.util.concurrent.atomic jdk.internal.ref sun.nio.ch \
  sun.nio.cs sun.security.action sun.util.calendar; do
  java_opens+=("--add-opens=java.base/$package=ALL-UNNAMED")
done
java_opens+=(-Djdk.reflect.useDirectMethodHandle=false -Dio.netty.tryReflectionSetAccessible=true)

install() {
  bash tools/ci/install_spark.sh | tail -n 1 >"$work/jars-dir"
  test -d "$(cat "$work/jars-dir")"
}

build() {
  bazel build "${bazel_flags[@]}" //swig:loaderx_jar
  cp bazel-bin/swig/loaderx.jar "$work/loaderx.jar"
  local jars
  jars=$(cat "$work/jars-dir")
  javac -nowarn -encoding UTF-8 --release 17 -d "$work/classes" \
    -cp "$jars/*:$work/loaderx.jar" spark/java/org/loaderx/spark/*.java
  cp -r spark/resources/META-INF "$work/classes/"
  jar cf "$work/loaderx-spark.jar" -C "$work/classes" .
  javac -nowarn -encoding UTF-8 --release 17 -d "$work/test" \
    -cp "$jars/*:$work/loaderx.jar:$work/loaderx-spark.jar" spark/test/org/loaderx/spark/*.java
}

connector_cases() {
  local jars
  jars=$(cat "$work/jars-dir")
  java "${java_opens[@]}" -Xmx2g \
    -cp "$work/test:$work/loaderx-spark.jar:$work/loaderx.jar:$jars/*" \
    org.loaderx.spark.SparkConnectorTest "$work/xml/connector.xml" "$work/scratch"
}

scala() {
  local jars scalac
  jars=$(cat "$work/jars-dir")
  scalac=$(bash tools/ci/install_spark.sh scalac | tail -n 1)
  mkdir -p "$work/scala"
  java -cp "$scalac/*" scala.tools.nsc.Main -usejavacp -nowarn -d "$work/scala" \
    -cp "$jars/*:$work/loaderx.jar:$work/loaderx-spark.jar" spark/test/SparkExample.scala
  java "${java_opens[@]}" -Xmx1g \
    -cp "$work/scala:$work/loaderx-spark.jar:$work/loaderx.jar:$jars/*" \
    SparkExample "$work/scratch/scala" | tee "$work/scala.out"
  grep -qx "scala: 10000 rows round-tripped" "$work/scala.out"
}

pyspark() {
  local site
  site=$(bash tools/ci/install_spark.sh pyspark | tail -n 1)
  bash tools/docs/stage_python_package.sh "$work/python"
  PYTHONPATH="$site:$work/python" /usr/bin/python3 spark/test/pyspark_round_trip.py \
    "$work/loaderx-spark.jar" "$work/loaderx.jar" "$work/scratch" | tee "$work/pyspark.out"
  grep -qx "pyspark: 20000 rows round-tripped" "$work/pyspark.out"
}

run_case spark install install
((case_failed)) || run_case spark build build
if ((case_failed == 0)); then
  start=$SECONDS
  if connector_cases >"$work/connector.log" 2>&1; then
    grep '^spark: ' "$work/connector.log"
  else
    grep '^spark: ' "$work/connector.log" || true
    echo "spark: the connector cases failed ($((SECONDS - start)) s); their output ends:"
    tail -n 60 "$work/connector.log"
    if [[ ! -s "$work/xml/connector.xml" ]]; then
      # The JVM died before writing its report: one failure for the lot.
      cases+=("<testcase classname=\"spark\" name=\"connector\"><failure message=\"the JVM failed\"/></testcase>")
    fi
  fi
fi

build_failed=$case_failed
((build_failed)) || run_case spark scala scala
((build_failed)) || run_case spark pyspark pyspark

write_cases spark "$work/xml/shell.xml"
/usr/bin/python3 tools/ci/count_test_cases.py spark --xml-dir "$work/xml" "$tally"
