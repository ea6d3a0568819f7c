#!/usr/bin/env bash
# Spark's jars for the connector (org.loaderx.spark): spark-sql_2.13 and its
# run-time dependencies, resolved from Maven Central by
# maven-dependency-plugin's copy-dependencies (tools/ci/spark/pom.xml) into
#
#   $LOADERX_CACHE/spark/jars-$SPARK_VERSION/   (default cache
#                                               /var/tmp/loaderx-cache)
#
# once; the directory appears whole (copied beside it, then renamed) and a
# warm run downloads nothing. Prints the directory on its last line.
#
#   bash tools/ci/install_spark.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

spark_version=4.0.1
dependency_plugin=org.apache.maven.plugins:maven-dependency-plugin:3.8.1
cache="${LOADERX_CACHE:-/var/tmp/loaderx-cache}/spark"
jars="$cache/jars-$spark_version"

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [[ ! -d "$jars" ]]; then
  echo "resolving spark-sql_2.13 $spark_version from Maven Central into $jars" >&2
  rm -rf "$jars.partial"
  if ! mvn -B -ntp -q -Dmaven.repo.local="$cache/m2" -f tools/ci/spark/pom.xml \
    -Dspark.version="$spark_version" "$dependency_plugin:copy-dependencies" \
    -DincludeScope=runtime -DoutputDirectory="$jars.partial" >&2; then
    echo "could not resolve Spark's jars: is Maven Central reachable?" \
      "(the first run needs it; later runs are offline)" >&2
    exit 1
  fi
  ls "$jars.partial"/spark-sql_2.13-"$spark_version".jar >/dev/null
  mv "$jars.partial" "$jars"
  # The jars are all that is used; Maven's own copy of them is not needed.
  rm -rf "$cache/m2"
fi
echo "$jars"
