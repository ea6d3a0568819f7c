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
# With `pyspark`, instead: PySpark of the same version (and py4j) from PyPI,
# downloaded into $LOADERX_CACHE/pyspark/dist/ and installed (pure Python
# with its own copy of Spark's jars) into $LOADERX_CACHE/pyspark/site-VERSION/,
# a directory for PYTHONPATH; prints that directory.
#
# With `scalac`: the Scala 2.13 compiler's jars (Spark 4 is Scala 2.13;
# Debian's scalac is 2.11), from tools/ci/spark/scalac-pom.xml the same way,
# into $LOADERX_CACHE/spark/scalac-SCALA_VERSION/; prints that directory.
#
#   bash tools/ci/install_spark.sh [pyspark|scalac]
set -euo pipefail
cd "$(dirname "$0")/../.."

spark_version=4.0.1
scala_version=2.13.16 # the scala-library Spark 4.0.1 depends on
dependency_plugin=org.apache.maven.plugins:maven-dependency-plugin:3.8.1
cache="${LOADERX_CACHE:-/var/tmp/loaderx-cache}/spark"
jars="$cache/jars-$spark_version"

if [[ "${1:-}" == pyspark ]]; then
  pycache="${LOADERX_CACHE:-/var/tmp/loaderx-cache}/pyspark"
  site="$pycache/site-$spark_version"
  mkdir -p "$pycache"
  exec 9>"$pycache/.lock"
  flock 9
  if [[ ! -d "$site" ]]; then
    echo "installing pyspark $spark_version from PyPI into $site" >&2
    if ! /usr/bin/python3 -m pip download -q --no-deps -d "$pycache/dist" \
      "pyspark==$spark_version" py4j==0.10.9.9 setuptools wheel >&2; then
      echo "could not download pyspark: is PyPI reachable?" \
        "(the first run needs it; later runs are offline)" >&2
      exit 1
    fi
    venv=$(mktemp -d)
    /usr/bin/python3 -m venv "$venv/env"
    "$venv/env/bin/pip" install -q --no-index --find-links "$pycache/dist" \
      "pyspark==$spark_version" >&2
    mv "$venv"/env/lib/python3*/site-packages "$site.partial"
    rm -rf "$venv"
    mv "$site.partial" "$site"
  fi
  echo "$site"
  exit 0
fi

pom=tools/ci/spark/pom.xml
if [[ "${1:-}" == scalac ]]; then
  jars="$cache/scalac-$scala_version"
  pom=tools/ci/spark/scalac-pom.xml
fi
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [[ ! -d "$jars" ]]; then
  echo "resolving $pom's dependencies from Maven Central into $jars" >&2
  rm -rf "$jars.partial"
  if ! mvn -B -ntp -q -Dmaven.repo.local="$cache/m2" -f "$pom" \
    -Dspark.version="$spark_version" -Dscala.version="$scala_version" \
    "$dependency_plugin:copy-dependencies" \
    -DincludeScope=runtime -DoutputDirectory="$jars.partial" >&2; then
    echo "could not resolve the jars: is Maven Central reachable?" \
      "(the first run needs it; later runs are offline)" >&2
    exit 1
  fi
  [[ -e "$jars.partial/spark-sql_2.13-$spark_version.jar" ||
    -e "$jars.partial/scala-compiler-$scala_version.jar" ]]
  mv "$jars.partial" "$jars"
  # The jars are all that is used; Maven's own copy of them is not needed.
  rm -rf "$cache/m2"
fi
echo "$jars"
